package setup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/llm"
)

// WriteNew creates the configuration file at path with the text file, and
// never overwrites one: an existing file is an error (fs.ErrExist), even a
// file created since the caller looked.
func WriteNew(path, file string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("cannot create the configuration directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return err
	}
	if err != nil {
		return fmt.Errorf("cannot create the configuration: %w", err)
	}
	_, err = f.WriteString(file)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path) // a half-written file would only fail validation later
		return fmt.Errorf("cannot write the configuration: %w", err)
	}

	return nil
}

// NextSteps is what config init says after writing the file at
// loc.Preferred: the models to name (local, an ollama model named in every
// role, or none), the keys to export (getenv says which are set), the
// verify commands (and what proposed them), and how to check the file.
func NextSteps(getenv func(string) string, loc config.Location, local string, verifyCmds []string, verifySaid string) string {
	path := loc.Preferred
	var b strings.Builder
	fmt.Fprintf(&b, "Wrote %s\n\nNext steps:\n", path)
	if local != "" {
		fmt.Fprintf(&b, "  1. It names ollama/%s, served by ollama at %s, in every role: gh ocdx review works now, without a key. To use other models, name each role's as provider/model (providers: %s).\n",
			local, Endpoint(getenv, llm.Providers["ollama"]), strings.Join(sortedProviderNames(), ", "))
	} else {
		fmt.Fprintf(&b, "  1. Edit it: name the model of each role as provider/model (providers: %s).\n", strings.Join(sortedProviderNames(), ", "))
	}
	b.WriteString("  2. Export the API key of each provider you use:\n")
	var keyless []string
	for _, name := range sortedProviderNames() {
		env := llm.Providers[name].CredentialEnv
		if env == "" {
			keyless = append(keyless, name+"/")
			continue
		}
		state := "not set yet"
		if getenv(env) != "" {
			state = "already set"
		}
		fmt.Fprintf(&b, "       %-30s # for %s/ models (%s)\n", "export "+env+"=...", name, state)
	}
	if len(keyless) > 0 {
		fmt.Fprintf(&b, "     %s models need no key.\n", strings.Join(keyless, ", "))
	}
	if len(verifyCmds) > 0 {
		fmt.Fprintf(&b, "  3. Check the verify commands, %s: %s. They apply in every repository whose %s sets no \"verify\"; commit them there as {\"verify\": [...]} to share them.\n",
			verifySaid, strings.Join(verifyCmds, "; "), config.RepoFile)
	} else {
		fmt.Fprintf(&b, "  3. Add \"verify\": the commands that check a fix before it is pushed (%s); fix and review-loop push nothing without them. A repository's %s can set them too.\n", verifySaid, config.RepoFile)
	}
	fmt.Fprintf(&b, "  4. Optionally, add \"analyzers\": commands whose output (SARIF, errorformat, ...) is evidence for a review, such as [%s]; a repository's %s can set them too.\n", config.AnalyzerExample, config.RepoFile)
	b.WriteString("  5. Check it: gh ocdx config validate\n")
	if loc.Legacy {
		fmt.Fprintf(&b, "\nThe legacy configuration %s is no longer read now that this file exists; copy its models here.\n", loc.Path)
	}
	return b.String()
}

func sortedProviderNames() []string {
	var names []string
	for n := range llm.Providers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
