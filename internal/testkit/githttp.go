package testkit

import (
	"encoding/base64"
	"net/http"
	"net/http/cgi"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// The fake serves its repositories over git's smart HTTP, as
// https://HOST/OWNER/REPO.git, from the bare remote of the repository's
// PRs: a clone made as actions/checkout makes it, whose remote gh and
// gh-ocdx recognise as the repository on GH_HOST, fetches and pushes
// there. git authenticates as a workflow's checkout does, with the token
// in an Authorization header (basic, user x-access-token); git trusts the
// fake's certificate through GIT_SSL_CAINFO.

var reGitHTTP = regexp.MustCompile(`^/([^/]+/[^/]+?)\.git(/.*)$`)

// gitAuthorized says whether a git request carries the fake's token.
func (g *GitHub) gitAuthorized(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	if h == "token "+g.Token || h == "Bearer "+g.Token {
		return true
	}
	scheme, cred, _ := strings.Cut(h, " ") // the scheme is case-insensitive
	b, err := base64.StdEncoding.DecodeString(cred)
	_, pass, _ := strings.Cut(string(b), ":")
	return strings.EqualFold(scheme, "basic") && err == nil && pass == g.Token
}

// serveGit runs git http-backend on the repository's bare remote.
func (g *GitHub) serveGit(w http.ResponseWriter, r *http.Request) {
	if !g.gitAuthorized(r) {
		w.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
		http.Error(w, "Authentication failed", http.StatusUnauthorized)
		return
	}
	m := reGitHTTP.FindStringSubmatch(r.URL.Path)
	remote := g.remoteOf(m[1])
	if remote == "" {
		notFound(w)
		return
	}
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h := &cgi.Handler{Path: filepath.Join(strings.TrimSpace(string(out)), "git-http-backend"), Root: "/" + m[1] + ".git",
		Env: []string{"GIT_PROJECT_ROOT=" + remote, "GIT_HTTP_EXPORT_ALL=1", "REMOTE_USER=x-access-token",
			"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.receivepack", "GIT_CONFIG_VALUE_0=true",
			"GIT_PROTOCOL=" + r.Header.Get("Git-Protocol")}}
	h.ServeHTTP(w, r)
}
