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
	"github.com/ocdx/gh-ocdx/internal/buildinfo"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
)

// version is set at release time with -ldflags "-X main.version=v1.2.3";
// without it, the build information says what was built (buildinfo.Version).
var version = ""

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	info, _ := debug.ReadBuildInfo()
	code := cmd.Execute(ctx, os.Args[1:], cmdutil.NewDeps(buildinfo.Version(version, info), cmdutil.System()))
	stop()
	os.Exit(code)
}
