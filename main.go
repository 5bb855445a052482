// Command gh-ocdx is the GitHub CLI extension `gh ocdx`: it reviews and fixes
// pull requests with LLMs. main only wires dependencies, runs the command and
// turns its result into an exit code.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/ocdx/gh-ocdx/cmd"
)

// version is set at release time with -ldflags "-X main.version=v1.2.3";
// without it, the build information says what was built (versionOf).
var version = ""

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	info, _ := debug.ReadBuildInfo()
	deps := cmd.NewDeps(versionOf(version, info))
	err := cmd.Run(ctx, os.Args[1:], deps)
	code := exitCode(ctx, err) // before stop(), which cancels ctx
	stop()
	if err != nil {
		fmt.Fprintln(deps.IO.ErrOut, "error:", err)
	}
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

// exitCode is the one place where errors become exit codes
// (docs/architecture.md, Packages).
func exitCode(ctx context.Context, err error) int {
	var usage *cmd.UsageError
	var incomplete *cmd.IncompleteError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, cmd.ErrCancelled), ctx.Err() != nil:
		return 130
	case errors.As(err, &usage):
		return 2
	case errors.As(err, &incomplete):
		return 3
	default:
		return 1
	}
}
