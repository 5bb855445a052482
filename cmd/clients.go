package cmd

import (
	"fmt"
	"time"

	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/llm"
)

// Timeouts a user may set: a local model can think for minutes before its
// first token, and a slow GitHub Enterprise take more than a minute.
const (
	envModelTimeout  = "OCDX_MODEL_TIMEOUT"  // a model answer's inactivity deadline: no data for this long cuts the attempt (default 2m)
	envGitHubTimeout = "OCDX_GITHUB_TIMEOUT" // per GitHub request (default 60s)
)

// envDuration reads a timeout setting; unset is 0, the client's default.
func envDuration(d *Deps, name string) (time.Duration, error) {
	v := d.Getenv(name)
	if v == "" {
		return 0, nil
	}
	t, err := time.ParseDuration(v)
	if err != nil || t <= 0 {
		return 0, fmt.Errorf("%s=%q is not a duration: set it to a value such as 90s or 10m, or unset it for the default", name, v)
	}
	return t, nil
}

// checkTimeouts validates both settings, before any request is made.
func checkTimeouts(d *Deps) error {
	for _, name := range []string{envModelTimeout, envGitHubTimeout} {
		if _, err := envDuration(d, name); err != nil {
			return err
		}
	}
	return nil
}

// newModel builds the provider/model client of role with the user's
// timeout and the role's output cap (0: the client's default); its calls,
// retries and streamed tokens are shown on stderr as they run.
func newModel(d *Deps, role, name string, outputCap int64) (*progressModel, error) {
	t, err := envDuration(d, envModelTimeout)
	if err != nil {
		return nil, err
	}
	registerCredentials(d)
	m := &progressModel{role: role, name: name, prog: d.prog(), log: d.Log}
	if m.Model, err = llm.New(name, d.Getenv, llm.Options{Timeout: t, MaxTokens: outputCap, OnRetry: m.retried, Progress: m.streamed}); err != nil {
		return nil, err
	}
	return m, nil
}

func (d *Deps) prog() *progress {
	d.progressMu.Lock()
	defer d.progressMu.Unlock()
	if d.progress == nil {
		d.progress = newProgress(d.IO.ErrOut, 0)
	}
	return d.progress
}

// newGitHub builds the GitHub client for host with the user's timeout.
func newGitHub(d *Deps, host string) (*github.Client, error) {
	t, err := envDuration(d, envGitHubTimeout)
	if err != nil {
		return nil, err
	}
	registerCredentials(d)
	return github.New(host, github.Options{Token: githubToken(host), Timeout: t})
}
