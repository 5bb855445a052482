// Command gh-ocdx is the GitHub CLI extension `gh ocdx`: it reviews and fixes
// pull requests with LLMs. main only builds the dependencies, runs the
// command and exits with the code cmd.Execute returns.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/ocdx/gh-ocdx/cmd"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
)

// version is set at release time with -ldflags "-X main.version=v1.2.3";
// without it, the build information says what was built (versionOf).
var version = ""

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	info, _ := debug.ReadBuildInfo()
	code := cmd.Execute(ctx, os.Args[1:], cmdutil.NewDeps(versionOf(version, info), cmdutil.System()))
	stop()
	os.Exit(code)
}

// versionOf is the version gh-ocdx reports: the one stamped at release,
// else the module version go recorded (go install module@version), else
// "dev" with the commit it was built from when go recorded it.
func versionOf(stamped string, info *debug.BuildInfo) string {
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
