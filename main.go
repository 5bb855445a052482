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
	"syscall"

	"github.com/ocdx/gh-ocdx/cmd"
)

// version is set at release time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	deps := cmd.NewDeps(version)
	err := cmd.Run(ctx, os.Args[1:], deps)
	code := exitCode(ctx, err) // before stop(), which cancels ctx
	stop()
	if err != nil {
		fmt.Fprintln(deps.IO.ErrOut, "error:", err)
	}
	os.Exit(code)
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
