// Package localchange is the change a local review reads (gh ocdx review):
// a branch's commits since its merge base with the base, plus what is not
// committed, read through package git; its diff, its file pages for
// pr_diff, the policy at the merge base, and its description for the
// prompts (docs/architecture.md, Local review).
package localchange

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ocdx/gh-ocdx/change"
	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/text"
	"github.com/ocdx/gh-ocdx/learnings"
)

// Change is a change to review that is no pull request (gh ocdx review):
// a branch's commits since its merge base with the base, plus what is not
// committed (docs/architecture.md, Local review).
type Change struct {
	Branch    string
	Base      string // the ref the merge base was taken with: origin/main
	MergeBase string
	Head      string // the commit checked out
	Author    string
	Files     []github.ChangedFile
	Diff      []byte // the whole diff; the reviewers get it cut at change.DiffLimit
	Untracked []string
	Tree      string // the working tree's tracked files, as a git tree: what the reviewers read
}

// ReadChange reads the change to review on branch: the merge base with
// base (--base; "" for the upstream's default branch), the snapshot of the
// tracked files as they are in the working tree, the diff and file list
// between them, and the untracked files' names.
func ReadChange(ctx context.Context, g *git.Repo, branch, base string) (*Change, error) {
	base, err := g.DefaultBase(ctx, base)
	if err != nil {
		return nil, err
	}
	mb, err := g.MergeBase(ctx, base, branch)
	if err != nil {
		return nil, err
	}
	head, err := g.Head(ctx)
	if err != nil {
		return nil, err
	}
	// The two passes over the working tree, the tracked files' stat
	// (Snapshot) and the walk for untracked ones, run side by side: in a
	// large repository each takes most of a local review's own time
	// (BenchmarkReadChange).
	var untracked []string
	walked := make(chan error, 1)
	go func() {
		var err error
		untracked, err = g.Untracked(ctx)
		walked <- err
	}()
	tree, err := g.Snapshot(ctx)
	if werr := <-walked; err == nil {
		err = werr
	}
	if err != nil {
		return nil, err
	}
	ch := &Change{Branch: branch, Base: base, MergeBase: mb, Head: head, Tree: tree, Untracked: untracked}
	ch.Author, _ = g.Run(ctx, "config", "user.name")
	if ch.Diff, err = g.Diff(ctx, mb, tree); err != nil {
		return nil, err
	}
	stats, err := g.Numstat(ctx, mb, tree)
	if err != nil {
		return nil, err
	}
	for _, f := range stats {
		ch.Files = append(ch.Files, github.ChangedFile{Path: f.Path, Additions: f.Additions, Deletions: f.Deletions})
	}
	return ch, nil
}

// Uncommitted lists what the working tree changes on top of the commit
// checked out, tracked or untracked, from what ReadChange read: no
// further pass over the tree (the --fix check that the tree is clean).
func (ch *Change) Uncommitted(ctx context.Context, g *git.Repo) ([]string, error) {
	var b strings.Builder
	if err := g.RunIO(ctx, nil, &b, "diff", "--name-only", "-z", "--no-renames", "--end-of-options", ch.Head, ch.Tree, "--"); err != nil {
		return nil, err
	}
	var out []string
	for _, p := range strings.Split(b.String(), "\x00") {
		if p != "" {
			out = append(out, p)
		}
	}
	return append(out, ch.Untracked...), nil
}

// FilesPage is page (from 1) of the change's file patches, as GitHub pages
// a PR's files: what the reviewers' pr_diff reads (change.DiffTool).
func (ch *Change) FilesPage(_ context.Context, page int) ([]github.FilePatch, error) {
	files, err := diff.Parse(ch.Diff)
	if err != nil {
		return nil, err
	}
	var out []github.FilePatch
	for i := (page - 1) * github.FilesPerPage; i >= 0 && i < len(files) && i < page*github.FilesPerPage; i++ {
		f := files[i]
		p := github.FilePatch{Filename: f.Path(), Status: "modified", Patch: strings.TrimSuffix(string(ch.Diff[f.PatchStart:f.End]), "\n")}
		switch {
		case f.IsNew:
			p.Status = "added"
		case f.IsDeleted:
			p.Status = "removed"
		case f.IsRename:
			p.Status, p.PreviousFilename = "renamed", f.OldPath
		}
		out = append(out, p)
	}
	return out, nil
}

// Policy is the repository policy of a local review: .ocdx.json and
// REVIEW.md at the merge base, never the branch's own (a checked-out
// branch, perhaps someone else's, would otherwise hide its files from the
// reviewers or tell them what to conclude). where names the .ocdx.json.
func (ch *Change) Policy(ctx context.Context, g *git.Repo) (p *config.Policy, where string, err error) {
	where = fmt.Sprintf("%s at the merge base %s with %s", config.RepoFile, text.ShortOID(ch.MergeBase), ch.Base)
	read := func(name string) (github.PolicyFile, error) {
		b, found, err := g.Blob(ctx, ch.MergeBase, name)
		return github.PolicyFile{Commit: ch.MergeBase, Found: found, Text: string(b), NotText: found && !utf8.Valid(b)}, err
	}
	pol, err := read(config.RepoFile)
	if err != nil {
		return nil, "", err
	}
	guide, err := read(config.ReviewFile)
	if err != nil {
		return nil, "", err
	}
	learned, err := read(learnings.File)
	if err != nil {
		return nil, "", err
	}
	p, err = config.FromBase(where, pol, guide, learned)
	return p, where, err
}

// Subject is the change as the reviewer, verifier and fix prompts
// describe it: title, body, author, files, head and base, with no number,
// URL or linked issues (docs/architecture.md, Local review).
func (ch Change) Subject() change.Subject {
	s := change.OfFiles(ch.Files)
	s.Title, s.Author = "Local changes on "+ch.Branch, ch.Author
	s.HeadRef, s.HeadOID, s.BaseRef, s.BaseOID = ch.Branch, ch.Head, ch.Base, ch.MergeBase
	s.Body = "The current branch's commits since its merge base with " + ch.Base + ", plus its uncommitted changes."
	return s
}
