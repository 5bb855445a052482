// Package secretscan is gh-ocdx's own reviewer of secrets: it reads the
// added lines of a diff, and the PR's commits (their added lines, file names
// and messages), and turns what looks like a credential into a P0 SEC-
// finding with the value masked (docs/architecture.md, The secret scan).
package secretscan

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/internal/text"
)

// Scanner names gh-ocdx as the source of the findings it computes.
const Scanner = "gh-ocdx secret scan"

// secretChunk and secretBytes bound the added lines of one file scanned at
// a time: the scan holds this much of a diff, never the whole.
const (
	secretChunk = 4096
	secretBytes = 256 << 10
)

// maxKeyLines is longer than any private key block (a 4096-bit RSA key in
// PEM is about 50 lines): a header whose block runs on past it has no END,
// and the lines after it are scanned as code, not hidden as the key.
const maxKeyLines = 200

// scanLines reports each secret of lines (joined: the lines joined by
// line breaks) to add, by its index in lines; continued is a line inside
// a private key block, after its header.
func scanLines(joined string, lines []string, add func(i int, kind string, continued bool)) {
	if len(lines) == 0 {
		return
	}
	header, run := -1, 0
	for _, h := range redact.Find(joined) {
		add(h.Line, h.Kind, h.Continued)
		if !h.Continued {
			header, run = h.Line, 0
			continue
		}
		if run++; run > maxKeyLines && header >= 0 {
			// An unterminated key: what follows its header is scanned anew.
			from := header + 1
			scanLines(strings.Join(lines[from:], "\n"), lines[from:], func(i int, kind string, continued bool) { add(from+i, kind, continued) })
			return
		}
	}
}

// chunk holds the added lines of one file (or message) that the scan reads
// at once: at most secretChunk lines, about secretBytes, in one buffer (a
// string per line cost as much as the rules).
type chunk struct {
	buf   bytes.Buffer // each line with its "+", as the models see it in a diff, and a line break
	nums  []int
	lines []string // the chunk's lines, while scan runs
}

// full reports whether the chunk must be scanned before it takes a line.
func (c *chunk) full() bool { return len(c.nums) >= secretChunk || c.buf.Len() > secretBytes }

func (c *chunk) add(text string, n int) {
	if strings.IndexByte(text, '\n') >= 0 { // not from a line reader: one line all the same
		text = strings.ReplaceAll(text, "\n", " ")
	}
	c.buf.WriteByte('+')
	c.buf.WriteString(text)
	c.buf.WriteByte('\n')
	c.nums = append(c.nums, n)
}

// scan reports each secret of the chunk to add, by its index (c.lines
// holds the lines meanwhile), and empties the chunk.
func (c *chunk) scan(add func(i int, kind string, continued bool)) {
	if len(c.nums) > 0 {
		joined := string(c.buf.Bytes()[:c.buf.Len()-1])
		c.lines = strings.Split(joined, "\n")
		scanLines(joined, c.lines, add)
	}
	c.reset()
}

func (c *chunk) reset() { c.buf.Reset(); c.nums, c.lines = c.nums[:0], nil }

// scanSeed seeds the hashes that name the secrets a scan found: this
// process's own, so no hash outlives the run.
var scanSeed = maphash.MakeSeed()

// identity names the secret on lines[i] by the text that holds it (a
// private key by its header and the line after it: every key's header is
// alike), so that the history scan does not report again a secret the
// PR's result holds. No secret is kept, only the hash.
func identity(lines []string, i int, kind string) uint64 {
	if kind != redact.KindPrivateKey || i+1 >= len(lines) {
		return maphash.String(scanSeed, lines[i])
	}
	return maphash.String(scanSeed, lines[i]+"\n"+lines[i+1])
}

// nameID is the identity of a file name that holds a secret.
func nameID(name string) uint64 { return maphash.String(scanSeed, "name\x00"+name) }

// Scan is what the secret scan read of a diff: the findings, and how
// many added lines of each file (by its path in the PR's version) it read,
// so that a file GitHub sent no patch for is known to be unscanned.
type Scan struct {
	Findings []finding.Finding
	Added    map[string]int

	// known are the secrets this scan found, by identity: the history
	// scan reports only the others (docs/architecture.md, The secret
	// scan).
	known map[uint64]bool
	ids   map[string]bool // of Findings
	// History is how many of the PR's own commits the history scan read.
	History int
}

// keep adds f, its ID computed, to the findings unless its ID is there.
func (s *Scan) keep(f finding.Finding) {
	f.ID = f.ComputeID()
	if !s.ids[f.ID] {
		s.ids[f.ID] = true
		s.Findings = append(s.Findings, f)
	}
}

// Unscanned are the files of the PR that add lines the scan did not read:
// GitHub sent them without a textual patch (too large, after a 406).
func (s Scan) Unscanned(files []github.ChangedFile) []string {
	var out []string
	for _, f := range files {
		if f.Additions > 0 && s.Added[f.Path] == 0 {
			out = append(out, f.Path)
		}
	}
	return out
}

// Findings returns one P0 security finding for each secret that the
// PR's diff adds (each secret gh-ocdx hides from the models in an added
// line), at its file and line in the PR's version. It reads the whole diff
// from r, streamed, however much of it the models were shown
// (docs/architecture.md, The secret scan). Models may miss or approve a
// hard-coded token; these findings cannot be, so a PR that adds one never
// converges. The ID is computed as for any finding, so the same secret in
// the next round is the same finding.
func Findings(r io.Reader, now string) ([]finding.Finding, error) {
	s, err := Diff(r, now, nil)
	return s.Findings, err
}

// Diff is Findings with what it read, on top of an earlier
// scan (nil for none) whose findings it does not repeat. It also reads
// the name of each file the diff adds, copies or renames.
func Diff(r io.Reader, now string, earlier *Scan) (Scan, error) {
	res := Scan{Added: map[string]int{}, known: map[uint64]bool{}, ids: map[string]bool{}}
	if earlier != nil {
		res.Findings = earlier.Findings
		for _, f := range earlier.Findings {
			res.ids[f.ID] = true
		}
		for p, n := range earlier.Added {
			res.Added[p] = n
		}
		res.known = earlier.known
	}
	keep := res.keep
	var c chunk
	file := ""
	scan := func() {
		if file != "" {
			c.scan(func(i int, kind string, continued bool) {
				if continued {
					return
				}
				res.known[identity(c.lines, i, kind)] = true
				n := c.nums[i]
				keep(finding.Finding{Priority: "P0", Category: "security", File: file, Line: &n,
					Title:       "Hard-coded " + kind + " added",
					Description: fmt.Sprintf("Line %d of %s adds a %s (shown to the models as %s). A secret in the code is readable by everyone who can read the repository and stays in its history.", n, file, kind, redact.Marker(kind)),
					Suggestion:  "Move the value out of the code to configuration or an environment variable that the code reads, and revoke the exposed secret.",
					Source:      &finding.Source{Type: "agent", Name: Scanner, Timestamp: now}})
			})
		}
		c.reset()
	}
	err := diff.Walk(r, diff.Visitor{
		File: func(f *diff.File) error {
			scan()
			file = f.NewPath // "" for a deleted file: nothing added
			if file != "" && (f.IsNew || f.IsRename || f.IsCopy) {
				for _, kind := range nameSecrets(file) {
					res.known[nameID(file)] = true
					keep(nameFinding(kind, file, "", now))
				}
			}
			return nil
		},
		Line: func(_ *diff.File, l diff.Line) error {
			if l.Kind != diff.Add {
				return nil
			}
			if c.full() {
				scan()
			}
			res.Added[file]++
			c.add(l.Text, l.New)
			return nil
		},
	})
	scan()
	if err != nil {
		return res, fmt.Errorf("reading the diff for the secret scan: %w", err)
	}
	return res, nil
}

// nameSecrets are the kinds of secret a file's name holds.
func nameSecrets(name string) []string {
	var kinds []string
	for _, h := range redact.Find("+" + name) {
		if !slices.Contains(kinds, h.Kind) {
			kinds = append(kinds, h.Kind)
		}
	}
	return kinds
}

// nameFinding is the finding of a secret in the name of a file the PR
// adds or renames to: in commit (its full ID) when the history scan found
// it there, else in the PR's result. The name is masked: the finding is
// posted.
func nameFinding(kind, name, commit, now string) finding.Finding {
	shown := redact.Mask(name)
	f := finding.Finding{Priority: "P0", Category: "security", File: shown,
		Title:       "Hard-coded " + kind + " in an added file's name",
		Description: fmt.Sprintf("The change adds the file %s, whose name holds a %s (shown here as %s). A file's name is readable by everyone who can read the repository, and renaming the file leaves the old name in the branch's history.", shown, kind, redact.Marker(kind)),
		Suggestion:  fmt.Sprintf("%s Then give the file another name and take the old one out of the branch's history (git rebase -i, then a force push) or squash-merge. %s", revokeAdvice, rewriteAdvice),
		Source:      &finding.Source{Type: "agent", Name: Scanner, Timestamp: now}}
	if commit != "" {
		short := text.ShortOID(commit)
		f.Title = fmt.Sprintf("Hard-coded %s in the name of a file added in commit %s", kind, short)
		f.Description = fmt.Sprintf("Commit %s adds (or renames a file to) %s, whose name holds a %s (shown here as %s). The branch's history keeps the name: a merge commit or a rebase merge puts it in the base branch's history, readable by everyone who can read the repository.", short, shown, kind, redact.Marker(kind))
		f.Suggestion = fmt.Sprintf("%s Then take the name out of the branch's history (git rebase -i to edit commit %s, then a force push) or squash-merge. %s", revokeAdvice, short, rewriteAdvice)
	}
	return f
}

// NeedsRewrite reports whether f is a secret no commit on top of the PR
// can take away: one the scan found in the PR's history, a commit's
// message or a file's name (the scan's findings without a line). The fix
// agent is not given it; it blocks until the branch is rewritten, or an
// admin dismisses it.
func NeedsRewrite(f finding.Finding) bool { return Own(f) && f.Line == nil }

// Own reports whether gh-ocdx computed f itself (a secret it masked), not a
// model.
func Own(f finding.Finding) bool { return f.Source != nil && f.Source.Name == Scanner }

// RewriteNote says what to do about the findings of fs that NeedsRewrite;
// "" when there is none.
func RewriteNote(fs []finding.Finding) string {
	var ids []string
	for _, f := range fs {
		if NeedsRewrite(f) && !slices.Contains(ids, f.ID) {
			ids = append(ids, f.ID)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	return fmt.Sprintf("%s in the branch's history, a commit's message or a file's name (%s), which no fix commit can take out: revoke it, then rewrite the branch or squash-merge; an admin dismisses it once done",
		text.Plural(len(ids), "secret"), strings.Join(ids, ", "))
}
