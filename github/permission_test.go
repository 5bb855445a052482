package github_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// Permission reads the role GitHub names (role_name), not the folded
// "permission" field that calls a maintainer a writer and a triager a
// reader; a login GitHub does not know there has none; a refusal is an
// error, never a permission.
func TestPermissionReadsTheRole(t *testing.T) {
	t.Parallel()
	gh := testkit.NewGitHub(t)
	c := newClient(t, gh)
	ctx := context.Background()
	for login, role := range map[string]string{"ada": "admin", "max": "maintain", "wes": "write", "tri": "triage", "rea": "read", "non": "none"} {
		gh.SetPermission("octo/widgets", login, role)
		got, err := c.Permission(ctx, repo, login)
		if err != nil || string(got) != role {
			t.Errorf("Permission(%s) = %q, %v; want %q", login, got, err, role)
		}
	}
	if got, err := c.Permission(ctx, repo, "stranger"); err != nil || got != github.PermNone {
		t.Errorf("Permission(stranger) = %q, %v; want none (404)", got, err)
	}
	gh.SetPermission("octo/widgets", "github-actions[bot]", "write")
	if got, err := c.Permission(ctx, repo, "github-actions[bot]"); err != nil || got != github.PermWrite {
		t.Errorf("Permission(github-actions[bot]) = %q, %v", got, err)
	}
	gh.Fail(testkit.Fault{Kind: "permission", Status: http.StatusForbidden})
	if got, err := c.Permission(ctx, repo, "wes"); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("a 403 gave %q, %v; want an error", got, err)
	}
	if n := gh.Count("permission"); n != 9 {
		t.Errorf("%d permission requests, want one per call (9)", n)
	}
}

func TestCanWrite(t *testing.T) {
	t.Parallel()
	for p, want := range map[github.Permission]bool{github.PermAdmin: true, github.PermMaintain: true, github.PermWrite: true,
		github.PermTriage: false, github.PermRead: false, github.PermNone: false, "": false} {
		if p.CanWrite() != want {
			t.Errorf("%q.CanWrite() = %v", p, !want)
		}
	}
}
