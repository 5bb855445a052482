package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestVersion(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	for _, tc := range []struct {
		name    string
		stamped string
		info    *debug.BuildInfo
		want    string
	}{
		{"stamped at release", "v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "v0.9.0"}}, "v1.2.3"},
		{"go install module@version", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.9.0"}}, "v0.9.0"},
		{"a checkout with its commit", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("ed1a091abcdef0123456789", "false")}, "dev (ed1a091abcde)"},
		{"a checkout with changes", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("ed1a091abcdef0123456789", "true")}, "dev (ed1a091abcde+dirty)"},
		{"nothing known", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{"no build information", "", nil, "dev"},
	} {
		if got := Version(tc.stamped, tc.info); got != tc.want {
			t.Errorf("%s: Version = %q, want %q", tc.name, got, tc.want)
		}
	}
}
