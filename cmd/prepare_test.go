package cmd

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/cmdutil/cmdtest"
)

func TestApplyBasePolicy(t *testing.T) {
	pr := func(p github.PolicyFile) *github.PullRequest {
		p.Commit = "1a2b3c4d5e6f"
		return &github.PullRequest{Number: 7, BaseRefName: "main", BasePolicy: p}
	}
	cfg := func() *config.Config {
		return &config.Config{Verify: []string{"go test ./..."}, Path: "/home/u/.config/gh-ocdx/config.json"}
	}
	d, _, _ := cmdtest.DepsEnv(map[string]string{"HOME": "/home/u"})

	c := cfg()
	if err := applyBasePolicy(c, pr(github.PolicyFile{})); err != nil || c.VerifyFrom != "" {
		t.Fatalf("no file on the base: %v, from %q", err, c.VerifyFrom)
	}
	if got := verifySource(d, c); got != "from your configuration ~/.config/gh-ocdx/config.json" {
		t.Errorf("source %q", got)
	}

	c = cfg()
	if err := applyBasePolicy(c, pr(github.PolicyFile{Found: true, Text: `{"verify": ["make lint"]}`})); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Verify, []string{"make lint"}) || verifySource(d, c) != "from .ocdx.json on main at 1a2b3c4" {
		t.Errorf("base policy: %v %s", c.Verify, verifySource(d, c))
	}

	for name, p := range map[string]github.PolicyFile{
		"invalid":   {Found: true, Text: `{"verify": ["make"], "prFixModel": "openai/x"}`},
		"truncated": {Found: true, Text: `{"verify": [`, Truncated: true},
		"not text":  {Found: true, NotText: true},
	} {
		c := cfg()
		err := applyBasePolicy(c, pr(p))
		var cerr *config.Error
		if !errors.As(err, &cerr) || !strings.Contains(err.Error(), ".ocdx.json on main at 1a2b3c4") || !slices.Equal(c.Verify, cfg().Verify) {
			t.Errorf("%s: %v; Verify %v", name, err, c.Verify)
		}
	}
}
