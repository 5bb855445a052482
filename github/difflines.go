package github

import "github.com/ocdx/gh-ocdx/diff"

// ParseDiffLines says which lines of which file a PR's diff d shows, on
// which side: GitHub accepts a review comment only on such a line
// (docs/architecture.md, Posting). d is git's unified diff, or one rebuilt
// from the files endpoint; a file cut from a diff that was read only in
// part has only the lines that arrived.
func ParseDiffLines(d string) diff.Lines { return diff.IndexOf([]byte(d)) }
