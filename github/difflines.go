package github

import "github.com/ocdx/gh-ocdx/diff"

// DiffLines says which lines of which file a PR's diff shows, on which
// side (diff.Lines): GitHub accepts a review comment only on such a line
// (docs/architecture.md, Posting).
type DiffLines = diff.Lines

// Sides of a review comment: RIGHT is the PR's version (added and context
// lines), LEFT the base's (removed lines).
const (
	Right = diff.Right
	Left  = diff.Left
)

// ParseDiffLines reads a unified diff (git's, or rebuilt from the files
// endpoint). A file cut from a diff that was read only in part has only
// the lines that arrived.
func ParseDiffLines(d string) DiffLines { return diff.IndexOf([]byte(d)) }
