package cmd

import (
	"context"
	"fmt"

	"github.com/ocdx/gh-ocdx/internal/cmdutil"
)

func runVersion(_ context.Context, d *cmdutil.Deps, args []string) error {
	fs := cmdutil.NewFlagSet("version", "gh ocdx version", "Print the version of gh-ocdx.")
	if err := fs.ParseArgs(d, args, 0); err != nil {
		return err
	}
	fmt.Fprintf(d.IO.Out, "gh-ocdx %s\n", d.Version)
	return nil
}
