package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// VerifyHere are the verify commands in effect in workDir, as config
// validate checks them: its repository's .ocdx.json's, else the
// configuration's; root is where they run (the repository's root, else
// workDir), from where they were read (home written as ~).
func (c *Config) VerifyHere(home, workDir string) (root string, cmds []string, from string) {
	root = RepoRoot(workDir)
	cmds, from = c.Verify, homeRel(home, c.Path)
	if root == "" {
		return workDir, cmds, from
	}
	if repo, path, err := RepoVerify(root); err == nil && len(repo) > 0 {
		cmds, from = repo, path
	}
	return root, cmds, from
}

// AnalyzersHere are the analyzers in effect in workDir, as config validate
// checks them: its repository's .ocdx.json's, else the configuration's;
// root is where they run, from where they were read, as VerifyHere.
func (c *Config) AnalyzersHere(home, workDir string) (root string, as []Analyzer, from string) {
	root = RepoRoot(workDir)
	as, from = c.Analyzers, homeRel(home, c.Path)
	if root == "" {
		return workDir, as, from
	}
	if p, path, err := ReadPolicy(root); err == nil && len(p.Analyzers) > 0 {
		as, from = p.Analyzers, path
	}
	return root, as, from
}

// VerifyHint says where verify commands are set (for the branch baseRef
// when it is not ""), with those the repository at root suggests; home is
// $HOME, written as ~.
func (c *Config) VerifyHint(home, root, baseRef string) string {
	example := `["make test"]`
	if det := DetectVerify(root); len(det.Commands) > 0 {
		example = VerifyJSON(det.Commands) + " (what this repository's " + strings.Join(det.From, ", ") + " suggest)"
	}
	repo := "the repository's " + RepoFile
	if baseRef != "" {
		repo = RepoFile + " on " + baseRef
	}
	return fmt.Sprintf("add \"verify\": %s to your configuration %s ('gh ocdx config init' proposes them when it writes a new one), or to %s for everyone who runs gh-ocdx there",
		example, homeRel(home, c.Path), repo)
}

// VerifySource says where the verify commands came from, as shown before
// they run: "from .ocdx.json on main at 1a2b3c4", or "from your
// configuration ~/.config/gh-ocdx/config.json".
func (c *Config) VerifySource(home string) string {
	if c.VerifyFrom != "" {
		return "from " + c.VerifyFrom
	}
	return "from your configuration " + homeRel(home, c.Path)
}

// homeRel writes path with ~ for the home directory.
func homeRel(home, path string) string {
	if rel, err := filepath.Rel(home, path); home != "" && err == nil && filepath.IsLocal(rel) {
		return "~" + string(filepath.Separator) + rel
	}
	return path
}

// RepoRoot returns the nearest directory at or above dir holding .git
// (a directory, or a file in worktrees), or "" outside a repository. It runs
// no git command, so the config verbs work without git.
func RepoRoot(dir string) string {
	for dir != "" {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	return ""
}
