package change

import "github.com/ocdx/gh-ocdx/github"

// Subject is a change as the agents' prompts describe it: a pull request
// (OfPR), or a change that is none, a local branch or a case eval replays,
// which has no number, URL or linked issues (docs/architecture.md, Local
// review). The prompts read this, never a *github.PullRequest: what is
// posted, fetched or pushed for a PR goes by the PR itself.
type Subject struct {
	Number int    // 0: not a pull request
	Title  string // one line
	URL    string // "": not a pull request
	Author string
	State  string // a PR's: OPEN, CLOSED, MERGED; "" for a change that is none
	Body   string
	// BaseRef and BaseOID are what the change is compared with (a PR's
	// base; a branch's base and merge base), HeadRef and HeadOID its head.
	BaseRef, BaseOID, HeadRef, HeadOID string
	Files                              []github.ChangedFile
	// ChangedFiles, Additions and Deletions count the whole change: a PR
	// may have more files than Files lists.
	ChangedFiles, Additions, Deletions int
	LinkedIssues                       []github.IssueRef
}

// OfPR is pr as the prompts describe it.
func OfPR(pr *github.PullRequest) Subject {
	return Subject{Number: pr.Number, Title: pr.Title, URL: pr.URL, Author: pr.Author, State: pr.State, Body: pr.Body,
		BaseRef: pr.BaseRefName, BaseOID: pr.BaseRefOid, HeadRef: pr.HeadRefName, HeadOID: pr.HeadRefOid,
		Files: pr.Files, ChangedFiles: pr.ChangedFiles, Additions: pr.Additions, Deletions: pr.Deletions, LinkedIssues: pr.ClosingIssues}
}

// OfFiles is a change that is no pull request over files: its counts are
// theirs.
func OfFiles(files []github.ChangedFile) Subject {
	s := Subject{Files: files, ChangedFiles: len(files)}
	for _, f := range files {
		s.Additions += f.Additions
		s.Deletions += f.Deletions
	}
	return s
}
