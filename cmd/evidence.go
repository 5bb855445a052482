package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/evidence"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/internal/cmdutil"
	"github.com/ocdx/gh-ocdx/internal/glob"
	"github.com/ocdx/gh-ocdx/internal/text"
)

// maxEvidenceFiles bounds the result files one run reads.
const maxEvidenceFiles = 100

// evidenceSpec is one --evidence: a file or directory, with its format
// when named ("sarif:out/lint.sarif").
type evidenceSpec struct {
	Format evidence.Format
	Path   string
}

// parseEvidence reads the --evidence values: PATH, or FORMAT:PATH with a
// format evidence reads (any other prefix is part of the path).
func parseEvidence(vals []string) ([]evidenceSpec, error) {
	var out []evidenceSpec
	for _, v := range vals {
		s := evidenceSpec{Path: v}
		if f, p, ok := strings.Cut(v, ":"); ok && slices.Contains(evidence.Formats, evidence.Format(strings.ToLower(f))) {
			s.Format, s.Path = evidence.Format(strings.ToLower(f)), p
		}
		if s.Path == "" {
			return nil, fmt.Errorf("--evidence %q names no file: give FILE, DIR or FORMAT:FILE (formats: %s)", v, evidence.FormatNames())
		}
		out = append(out, s)
	}
	return out, nil
}

// readEvidence reads the tool result files of a review before its first
// round (docs/architecture.md, Evidence): those --evidence names (a
// directory: each file in it), then those the base branch's evidence
// globs match among the files git does not track at head, so that a PR
// cannot commit its own results. A file named on the command line that
// cannot be read is an error; a glob's file is skipped with a warning.
func readEvidence(ctx context.Context, d *cmdutil.Deps, specs []evidenceSpec, policy *config.Policy, repo *git.Repo, head string) ([]evidence.Set, error) {
	type file struct {
		path   string
		format evidence.Format
		named  bool
	}
	var files []file
	for _, s := range specs {
		st, err := os.Stat(s.Path)
		if err != nil {
			return nil, fmt.Errorf("--evidence: %w", err)
		}
		if !st.IsDir() {
			files = append(files, file{s.Path, s.Format, true})
			continue
		}
		entries, err := os.ReadDir(s.Path)
		if err != nil {
			return nil, fmt.Errorf("--evidence: %w", err)
		}
		for _, e := range entries {
			if e.Type().IsRegular() {
				files = append(files, file{filepath.Join(s.Path, e.Name()), s.Format, true})
			}
		}
	}
	if policy != nil && len(policy.Evidence) > 0 && repo != nil {
		paths, err := repo.NotTracked(ctx, head)
		if err != nil {
			d.Warn("the evidence globs of .ocdx.json were not read: listing the files git does not track failed: %v", err)
		}
		for _, p := range paths {
			if slices.ContainsFunc(policy.Evidence, func(g string) bool { return glob.Match(g, p) }) {
				files = append(files, file{filepath.Join(repo.Dir, filepath.FromSlash(p)), "", false})
			}
		}
	}
	if len(files) > maxEvidenceFiles {
		d.Warn("%s of tool results: reading the first %d", text.Plural(len(files), "file"), maxEvidenceFiles)
		files = files[:maxEvidenceFiles]
	}
	root := ""
	if repo != nil {
		root = repo.Dir
	}
	var sets []evidence.Set
	for _, f := range files {
		s, err := readEvidenceFile(f.path, f.format, root, !f.named)
		if err != nil && f.named {
			return nil, fmt.Errorf("--evidence %s: %w", f.path, err)
		}
		if err != nil {
			d.Warn("skipped the tool results in %s: %v", f.path, err)
			continue
		}
		if s.Cut {
			d.Warn("%s is larger than %d MiB: read as far as that", f.path, evidence.MaxFileBytes>>20)
		}
		sets = append(sets, s)
	}
	return sets, nil
}

// readEvidenceFile reads one result file; a glob's file must be a regular
// file, not a link out of the checkout.
func readEvidenceFile(path string, f evidence.Format, root string, regular bool) (evidence.Set, error) {
	if regular {
		st, err := os.Lstat(path)
		if err != nil {
			return evidence.Set{}, err
		}
		if !st.Mode().IsRegular() {
			return evidence.Set{}, fmt.Errorf("not a regular file")
		}
	}
	fh, err := os.Open(path)
	if err != nil {
		return evidence.Set{}, err
	}
	defer fh.Close()
	s, err := evidence.Read(fh, f, evidence.ToolOf(path), root)
	s.Source = path
	return s, err
}
