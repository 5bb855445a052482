package github

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// StoredTokens are the tokens gh keeps in its hosts.yml (hostsFile), every
// login's: their values are hidden in all gh-ocdx sends, whatever their
// shape. The tokens gh keeps in the system keyring are resolved, and
// hidden, by the client that uses them.
func StoredTokens(getenv func(string) string) []string { return hostsTokens(hostsFile(getenv)) }

// hostsFile is where gh keeps its logins: $GH_CONFIG_DIR/hosts.yml, else
// $XDG_CONFIG_HOME/gh/hosts.yml, else ~/.config/gh/hosts.yml.
func hostsFile(getenv func(string) string) string {
	if d := getenv("GH_CONFIG_DIR"); d != "" {
		return filepath.Join(d, "hosts.yml")
	}
	if d := getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "gh", "hosts.yml")
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "gh", "hosts.yml")
}

// maxHostsFile bounds what is read of hosts.yml.
const maxHostsFile = 1 << 20

// hostsTokens are the value of every `oauth_token:` line of a hosts.yml
// (one per host and per account). A missing or unreadable file has none:
// the tokens gh keeps in the system keyring are resolved, and registered,
// by the GitHub client.
func hostsTokens(path string) []string {
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(io.LimitReader(f, maxHostsFile))
	sc.Buffer(make([]byte, 0, 4096), maxHostsFile)
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), ":")
		if !ok || strings.Trim(strings.TrimSpace(k), `"'`) != "oauth_token" {
			continue
		}
		v = strings.TrimSpace(v)
		if i := strings.Index(v, " #"); i >= 0 {
			v = strings.TrimSpace(v[:i])
		}
		out = append(out, strings.Trim(v, `"'`))
	}
	return out
}
