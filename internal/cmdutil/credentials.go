package cmdutil

import (
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/redact"
)

// registerCredentials hides, in everything sent to a model or posted, the
// values of the credential variables and every oauth_token of gh's
// hosts.yml, whatever their shape. newModel and Deps.GitHubClient call it before
// they build a client, so no request is made before the set is complete,
// and a verb that sends nothing (version, state, config init) reads no
// hosts.yml. The GitHub token a client resolves is added by Deps.githubToken.
func registerCredentials(d *Deps) {
	d.credentials.Do(func() {
		var vals []string
		for _, k := range git.Credentials {
			vals = append(vals, d.Getenv(k))
		}
		redact.Register(append(vals, github.StoredTokens(d.Getenv)...)...)
	})
}
