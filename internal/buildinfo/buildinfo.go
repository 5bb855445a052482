// Package buildinfo says which gh-ocdx was built. It is main's, apart so
// that its test does not link the whole binary (docs/architecture.md,
// Packages).
package buildinfo

import "runtime/debug"

// Version is the version gh-ocdx reports: the one stamped at release,
// else the module version go recorded (go install module@version), else
// "dev" with the commit it was built from when go recorded it.
func Version(stamped string, info *debug.BuildInfo) string {
	if stamped != "" {
		return stamped
	}
	if info == nil {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	var dirty bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return "dev (" + rev + ")"
}
