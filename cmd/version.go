package cmd

import (
	"context"
	"fmt"
)

func runVersion(_ context.Context, d *Deps, args []string) error {
	fs := newFlagSet("version", "gh ocdx version", "Print the version of gh-ocdx.")
	if err := fs.parse(d, args, 0); err != nil {
		return err
	}
	fmt.Fprintf(d.IO.Out, "gh-ocdx %s\n", d.Version)
	return nil
}
