package github

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestHostsTokensReadsEveryLogin(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hosts.yml")
	body := "github.com:\n    users:\n        mona:\n            oauth_token: gho_first0000\n    oauth_token: 'quoted-second' # current\n" +
		"    user: mona\nghe.example.com:\n    \"oauth_token\": \"third-token-value\"\n    not_oauth_token: no\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	got := hostsTokens(path)
	if want := []string{"gho_first0000", "quoted-second", "third-token-value"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if hostsTokens(filepath.Join(t.TempDir(), "absent.yml")) != nil {
		t.Error("a missing file gave tokens")
	}
}

func TestHostsFileFollowsGh(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"GH_CONFIG_DIR": "/g", "XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/g/hosts.yml"},
		{map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/x/gh/hosts.yml"},
		{map[string]string{"HOME": "/h"}, "/h/.config/gh/hosts.yml"},
	} {
		if got := hostsFile(env(tc.vars)); got != tc.want {
			t.Errorf("%v: got %s, want %s", tc.vars, got, tc.want)
		}
	}
}
