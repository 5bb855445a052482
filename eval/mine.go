// Package eval answers, on a repository's own history, which reviewer mix
// would have caught the bugs its team later fixed (docs/architecture.md,
// Eval). This file mines the cases: commits that fix something, the lines
// they changed traced back with blame to the commits that wrote them, and
// the merged pull requests that brought those commits in. It reads git
// only, and gives git full commit IDs only.
package eval

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ocdx/gh-ocdx/diff"
)

// Git runs git in the repository's checkout (git.Repo).
type Git interface {
	Run(ctx context.Context, args ...string) (string, error)
}

// Options bound the mining.
type Options struct {
	// Ref is the branch whose history is mined (its first-parent line is
	// where pull requests were merged).
	Ref string
	// Since, when set, leaves out fixes committed before it.
	Since time.Time
	// MaxAge bounds how long before its fix a buggy line may have been
	// written: older lines are too far from the review that missed them.
	MaxAge time.Duration
	// MaxFiles marks a commit touching more files as mass reformatting:
	// its lines are not traced through (their author did not write them).
	MaxFiles int
}

// DefaultMaxAge and DefaultMaxFiles are the bounds when Options leaves
// them zero.
const (
	DefaultMaxAge   = 2 * 365 * 24 * time.Hour
	DefaultMaxFiles = 50
)

// Line is a line a fix changed, where it is at the head of the pull
// request that wrote it (the version its reviewers read): the oracle a
// case's findings are scored against. It is never in a prompt.
type Line struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Fix  string `json:"fix"` // the fixing commit
	By   string `json:"by"`  // the introducing commit
}

// Case is a merged pull request to review as it was: its diff from Base to
// Head, nothing after. Buggy are the lines later fixes changed (none for a
// clean case).
type Case struct {
	PR     int       `json:"pr"`
	Base   string    `json:"base"`
	Head   string    `json:"head"`
	Merge  string    `json:"merge"` // the commit that brought it into Ref
	Merged time.Time `json:"merged"`
	Title  string    `json:"title"`
	Lines  int       `json:"changedLines"`
	Buggy  []Line    `json:"buggy,omitempty"`
}

// Mined is what Mine found and what it left out, with why.
type Mined struct {
	Fixes   int            `json:"fixCommits"`
	Bugs    []Case         `json:"bugs"`
	Clean   []Case         `json:"clean"`
	Dropped map[string]int `json:"dropped"` // why a traced line or a fix counts for no case
}

func (m *Mined) drop(why string) { m.Dropped[why]++ }

// commit is one commit of the log.
type commit struct {
	ID, Subject, Body string
	Parents           []string
	Time              time.Time
}

// reFix finds a fix in a commit message by its words; reRevert a revert,
// whose reverted commit is the one that introduced the problem.
var (
	reFix    = regexp.MustCompile(`(?i)\b(fix(e[sd])?|bug(fix)?|hotfix|regression|crash(es)?|broken)\b`)
	reRevert = regexp.MustCompile(`(?m)^This reverts commit ([0-9a-f]{40})`)
	// A pull request's number as GitHub writes it in a merge commit or a
	// squash-merged subject.
	reMergePR  = regexp.MustCompile(`^Merge pull request #([0-9]+) `)
	reSquashPR = regexp.MustCompile(`\(#([0-9]+)\)\s*$`)
	reFullID   = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// isFix reports whether c's message says it fixes something.
func isFix(c commit) bool {
	return reFix.MatchString(c.Subject) || reRevert.MatchString(c.Body) || strings.HasPrefix(c.Subject, `Revert "`)
}

// log lists the commits reachable from ref, newest first.
func log(ctx context.Context, g Git, args ...string) ([]commit, error) {
	out, err := g.Run(ctx, append([]string{"log", "--format=%H%x00%P%x00%ct%x00%s%x00%b%x1e"}, args...)...)
	if err != nil {
		return nil, err
	}
	var cs []commit
	for _, rec := range strings.Split(out, "\x1e") {
		f := strings.SplitN(strings.TrimLeft(rec, "\n"), "\x00", 5)
		if len(f) < 5 || !reFullID.MatchString(f[0]) {
			continue
		}
		sec, _ := strconv.ParseInt(f[2], 10, 64)
		cs = append(cs, commit{ID: f[0], Parents: strings.Fields(f[1]), Time: time.Unix(sec, 0).UTC(), Subject: f[3], Body: f[4]})
	}
	return cs, nil
}

// Mine finds the cases of the history of o.Ref: for each fix, the lines
// it removed or rewrote (not blank or comment-only, not moved), traced by
// blame to the commit that wrote them, and that commit's pull request; and
// as many clean pull requests, merged in the same span, that no traced fix
// points to, nearest in size to the bug cases. It is deterministic: the
// same history gives the same cases in the same order.
func Mine(ctx context.Context, g Git, o Options) (*Mined, error) {
	o.MaxAge = cmp.Or(o.MaxAge, DefaultMaxAge)
	o.MaxFiles = cmp.Or(o.MaxFiles, DefaultMaxFiles)
	ref, err := fullID(ctx, g, o.Ref)
	if err != nil {
		return nil, err
	}
	prs, err := pullRequests(ctx, g, ref)
	if err != nil {
		return nil, err
	}
	all, err := log(ctx, g, "--no-merges", ref)
	if err != nil {
		return nil, err
	}
	byID := map[string]commit{}
	for _, c := range all {
		byID[c.ID] = c
	}
	m := &Mined{Dropped: map[string]int{}}
	bugs := map[int]*Case{}
	for i := len(all) - 1; i >= 0; i-- { // oldest first: the same order every run
		fix := all[i]
		if !isFix(fix) || !o.Since.IsZero() && fix.Time.Before(o.Since) || len(fix.Parents) != 1 {
			continue
		}
		m.Fixes++
		lines, err := traced(ctx, g, fix, byID)
		if err != nil {
			return nil, err
		}
		if len(lines) == 0 {
			m.drop("a fix that changed no traceable line (only additions, blank or comment lines)")
			continue
		}
		for _, l := range lines {
			in, ok := byID[l.By]
			switch {
			case !ok:
				m.drop("a line written by a merge or outside the branch")
				continue
			case fix.Time.Sub(in.Time) > o.MaxAge:
				m.drop("a line older than the age bound")
				continue
			}
			if n, err := filesOf(ctx, g, in.ID); err != nil {
				return nil, err
			} else if n > o.MaxFiles {
				m.drop("a line last touched by mass reformatting")
				continue
			}
			pr, ok := prs.of(ctx, g, in)
			if !ok {
				m.drop("a line whose commit came in by no pull request")
				continue
			}
			if pr.Merge == fix.ID || isAncestorOrSelf(ctx, g, fix.ID, pr.Merge) {
				m.drop("a line a fix changed within its own pull request")
				continue
			}
			c := bugs[pr.PR]
			if c == nil {
				cc := pr
				c = &cc
				bugs[pr.PR] = c
			}
			if !slices.Contains(c.Buggy, l) {
				c.Buggy = append(c.Buggy, l)
			}
		}
	}
	for _, c := range bugs {
		if err := atHead(ctx, g, c); err != nil {
			return nil, err
		}
		m.Bugs = append(m.Bugs, *c)
	}
	sort.Slice(m.Bugs, func(i, j int) bool { return m.Bugs[i].PR < m.Bugs[j].PR })
	m.Clean = clean(prs.all, bugs, len(m.Bugs))
	return m, nil
}

// traced are the lines fix removed or rewrote, each with the commit that
// wrote it (blame of fix's parent, whitespace ignored, moved and copied
// lines followed to where they were first written).
func traced(ctx context.Context, g Git, fix commit, byID map[string]commit) ([]Line, error) {
	parent := fix.Parents[0]
	// A revert names the commit it takes back.
	if m := reRevert.FindStringSubmatch(fix.Body); m != nil {
		if _, ok := byID[m[1]]; ok {
			return revertLines(ctx, g, fix, m[1])
		}
	}
	d, err := g.Run(ctx, "diff", "--no-ext-diff", "--no-color", "-U0", "-w", "--no-renames", parent, fix.ID)
	if err != nil {
		return nil, err
	}
	files, _ := diff.Parse([]byte(d))
	var out []Line
	for _, f := range files {
		if f.OldPath == "" || f.IsBinary {
			continue
		}
		var want []int
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				if l.Kind == diff.Del && substantive(l.Text) {
					want = append(want, l.Old)
				}
			}
		}
		if len(want) == 0 {
			continue
		}
		// The whole file: blame follows a moved block only when it sees
		// all of it (a range of one line is below its threshold).
		blamed, err := blame(ctx, g, parent, f.OldPath)
		if err != nil {
			return nil, err
		}
		for _, n := range want {
			if b, ok := blamed[n]; ok {
				out = append(out, Line{File: b.file, Line: b.line, Fix: fix.ID, By: b.commit})
			}
		}
	}
	return out, nil
}

// atHead moves each of c's lines written by a commit before its head to
// where the line is at the head, the version the reviewers read: a later
// commit of the same pull request may have moved it (blame of the head,
// the line found by the commit and line that wrote it).
func atHead(ctx context.Context, g Git, c *Case) error {
	byFile := map[string]map[[3]string]int{} // file -> (commit, file and line there) -> line at the head
	for i, l := range c.Buggy {
		if l.By == c.Head {
			continue
		}
		where, ok := byFile[l.File]
		if !ok {
			blamed, err := blame(ctx, g, c.Head, l.File)
			if err != nil {
				// Not at the head under that name (renamed in the pull
				// request): the line stays as its commit wrote it.
				byFile[l.File] = nil
				continue
			}
			where = map[[3]string]int{}
			for final, b := range blamed {
				where[[3]string{b.commit, b.file, strconv.Itoa(b.line)}] = final
			}
			byFile[l.File] = where
		}
		if n, ok := where[[3]string{l.By, l.File, strconv.Itoa(l.Line)}]; ok {
			c.Buggy[i].Line = n
		}
	}
	return nil
}

// revertLines are the lines the reverted commit added, as it wrote them.
func revertLines(ctx context.Context, g Git, fix commit, reverted string) ([]Line, error) {
	d, err := g.Run(ctx, "show", "--no-ext-diff", "--no-color", "-U0", "-w", "--no-renames", "--format=", reverted)
	if err != nil {
		return nil, err
	}
	files, _ := diff.Parse([]byte(d))
	var out []Line
	for _, f := range files {
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				if l.Kind == diff.Add && substantive(l.Text) {
					out = append(out, Line{File: f.NewPath, Line: l.New, Fix: fix.ID, By: reverted})
				}
			}
		}
	}
	return out, nil
}

type blamed struct {
	commit, file string
	line         int
}

// blame runs git blame on path at rev and reads its porcelain: for each
// line of the file, the commit that wrote it and the file and line it had
// there (whitespace ignored, moved and copied lines followed).
func blame(ctx context.Context, g Git, rev, path string) (map[int]blamed, error) {
	out, err := g.Run(ctx, "blame", "--porcelain", "-w", "-M", "-C", rev, "--", path)
	if err != nil {
		return nil, err
	}
	res := map[int]blamed{}
	files := map[string]string{} // a commit's file name, said once per commit
	var last []int               // the lines of the last header whose file is not said yet
	for _, ln := range strings.Split(out, "\n") {
		fs := strings.Fields(ln)
		switch {
		case len(fs) >= 3 && reFullID.MatchString(fs[0]):
			orig, _ := strconv.Atoi(fs[1])
			final, _ := strconv.Atoi(fs[2])
			res[final] = blamed{commit: fs[0], line: orig, file: files[fs[0]]}
			last = append(last[:0], final)
		case strings.HasPrefix(ln, "filename ") && len(last) > 0:
			b := res[last[0]]
			files[b.commit] = strings.TrimPrefix(ln, "filename ")
			b.file = files[b.commit]
			res[last[0]] = b
		}
	}
	return res, nil
}

// substantive reports whether a line says something: not blank, not a
// comment alone, not a lone brace.
func substantive(s string) bool {
	t := strings.TrimSpace(s)
	switch {
	case t == "", t == "{", t == "}", t == ")", t == "(", t == "};", t == "});":
		return false
	case strings.HasPrefix(t, "//"), strings.HasPrefix(t, "#"), strings.HasPrefix(t, "/*"), strings.HasPrefix(t, "*"), strings.HasPrefix(t, "--"):
		return false
	}
	return true
}

// filesOf is how many files commit id changed.
func filesOf(ctx context.Context, g Git, id string) (int, error) {
	out, err := g.Run(ctx, "show", "--no-ext-diff", "--format=", "--name-only", "--no-renames", id)
	if err != nil {
		return 0, err
	}
	return len(strings.Fields(out)), nil
}

func fullID(ctx context.Context, g Git, ref string) (string, error) {
	if ref == "" {
		ref = "HEAD"
	}
	id, err := g.Run(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err != nil || !reFullID.MatchString(strings.TrimSpace(id)) {
		return "", fmt.Errorf("%q names no commit in this repository: name the branch whose history to mine", ref)
	}
	return strings.TrimSpace(id), nil
}

func isAncestorOrSelf(ctx context.Context, g Git, a, b string) bool {
	if a == b {
		return true
	}
	_, err := g.Run(ctx, "merge-base", "--is-ancestor", a, b)
	return err == nil
}
