package eval

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// merged are the pull requests merged into a branch, as its first-parent
// history shows them: a merge commit "Merge pull request #N", or a squash
// or rebase merge whose subject ends "(#N)".
type merged struct {
	all []Case
	// of remembers each commit's pull request: a fix's lines are mostly
	// a few commits', and each answer costs git processes.
	known map[string]*Case
}

func pullRequests(ctx context.Context, g Git, ref string) (*merged, error) {
	cs, err := log(ctx, g, "--first-parent", ref)
	if err != nil {
		return nil, err
	}
	m := &merged{}
	for i := len(cs) - 1; i >= 0; i-- {
		c := cs[i]
		var pr Case
		switch {
		case len(c.Parents) == 2 && reMergePR.MatchString(c.Subject):
			n, _ := strconv.Atoi(reMergePR.FindStringSubmatch(c.Subject)[1])
			pr = Case{PR: n, Base: c.Parents[0], Head: c.Parents[1], Merge: c.ID, Merged: c.Time, Title: firstLine(c.Body)}
		case len(c.Parents) == 1 && reSquashPR.MatchString(c.Subject):
			n, _ := strconv.Atoi(reSquashPR.FindStringSubmatch(c.Subject)[1])
			pr = Case{PR: n, Base: c.Parents[0], Head: c.ID, Merge: c.ID, Merged: c.Time, Title: strings.TrimSpace(reSquashPR.ReplaceAllString(c.Subject, ""))}
		default:
			continue
		}
		if pr.Lines, err = changedLines(ctx, g, pr.Base, pr.Head); err != nil {
			return nil, err
		}
		m.all = append(m.all, pr)
	}
	return m, nil
}

// of is the pull request that brought c into the branch: the squash merge
// that is c, or the first merge whose pull request's commits hold c.
func (m *merged) of(ctx context.Context, g Git, c commit) (Case, bool) {
	if pr, ok := m.known[c.ID]; ok {
		return derefCase(pr)
	}
	var found *Case
	for i, pr := range m.all {
		if pr.Merge == c.ID && pr.Head == c.ID {
			found = &m.all[i]
			break
		}
	}
	for i, pr := range m.all {
		if found != nil {
			break
		}
		if pr.Merge != pr.Head && isAncestorOrSelf(ctx, g, c.ID, pr.Head) && !isAncestorOrSelf(ctx, g, c.ID, pr.Base) {
			found = &m.all[i]
		}
	}
	if m.known == nil {
		m.known = map[string]*Case{}
	}
	m.known[c.ID] = found
	return derefCase(found)
}

func derefCase(c *Case) (Case, bool) {
	if c == nil {
		return Case{}, false
	}
	return *c, true
}

// clean are n pull requests of all that no fix traced to, each the nearest
// in size to a bug case not yet matched (the lower number on a tie): the
// noise a reviewer raises on code nobody later fixed.
func clean(all []Case, bugs map[int]*Case, n int) []Case {
	var pool []Case
	for _, pr := range all {
		if bugs[pr.PR] == nil {
			pool = append(pool, pr)
		}
	}
	var want []int
	for _, b := range bugs {
		want = append(want, b.Lines)
	}
	sort.Ints(want)
	var out []Case
	for _, size := range want[:min(n, len(want))] {
		best := -1
		for i, pr := range pool {
			if best < 0 || abs(pr.Lines-size) < abs(pool[best].Lines-size) ||
				abs(pr.Lines-size) == abs(pool[best].Lines-size) && pr.PR < pool[best].PR {
				best = i
			}
		}
		if best < 0 {
			break
		}
		out = append(out, pool[best])
		pool = slices.Delete(pool, best, best+1)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PR < out[j].PR })
	return out
}

// changedLines are the lines added and removed from base to head.
func changedLines(ctx context.Context, g Git, base, head string) (int, error) {
	out, err := g.Run(ctx, "diff", "--no-ext-diff", "--numstat", "--no-renames", base, head)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, ln := range strings.Split(out, "\n") {
		f := strings.Fields(ln)
		if len(f) < 3 {
			continue
		}
		a, _ := strconv.Atoi(f[0]) // "-" for a binary file: 0
		d, _ := strconv.Atoi(f[1])
		n += a + d
	}
	return n, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
