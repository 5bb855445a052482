package testkit

import (
	"fmt"
	"strconv"
	"strings"
)

// Threads returns the review threads of a PR: the test's and those the
// reviews the tool posted opened, with replies and resolutions.
func (g *GitHub) Threads(repo string, number int) []Thread {
	g.mu.Lock()
	defer g.mu.Unlock()
	pr := g.prs[fmt.Sprintf("%s#%d", repo, number)]
	if pr == nil {
		return nil
	}
	out := make([]Thread, len(pr.Threads))
	for i, th := range pr.Threads {
		out[i] = th
		out[i].Comments = append([]ThreadComment(nil), th.Comments...)
	}
	return out
}

// AddThreadReply adds a reply by login to the thread with the node id, as a
// person answering on GitHub would.
func (g *GitHub) AddThreadReply(threadID, login, association, body string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if th := g.thread(threadID); th != nil {
		g.nextID++
		first := th.Comments[0]
		th.Comments = append(th.Comments, ThreadComment{ID: fmt.Sprintf("PRRC_%d", g.nextID), Body: body, Login: login, Association: association, Path: first.Path, Line: first.Line})
	}
}

// ResolveThread resolves the thread with the node id as login, as a
// person clicking "Resolve conversation" on GitHub would.
func (g *GitHub) ResolveThread(threadID, login string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if th := g.thread(threadID); th != nil {
		th.Resolved, th.ResolvedBy = true, login
	}
}

// SetDiff replaces a PR's diff (and its files), as GitHub shows it after a
// push.
func (g *GitHub) SetDiff(repo string, number int, diff string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if pr := g.prs[fmt.Sprintf("%s#%d", repo, number)]; pr != nil {
		pr.Diff, pr.Files = diff, ParseDiff(diff)
	}
}

// thread finds a thread by node id; g.mu is held.
func (g *GitHub) thread(id string) *Thread {
	for _, pr := range g.prs {
		for i := range pr.Threads {
			if pr.Threads[i].ID == id {
				return &pr.Threads[i]
			}
		}
	}
	return nil
}

// mutations is the GraphQL Mutation object: the review-thread mutations
// gh-ocdx uses, on the fake's threads.
func (g *GitHub) mutations() map[string]any {
	notFound := func(id any) gqlError {
		return gqlError{Type: "NOT_FOUND", Message: fmt.Sprintf("Could not resolve to a node with the global id of '%v'", id)}
	}
	return map[string]any{
		"createPullRequest": resolver(g.createPullRequest),
		"addPullRequestReviewThreadReply": resolver(func(args map[string]any) any {
			in, _ := args["input"].(map[string]any)
			id, _ := in["pullRequestReviewThreadId"].(string)
			body, _ := in["body"].(string)
			g.mu.Lock()
			defer g.mu.Unlock()
			th := g.thread(id)
			if th == nil {
				return notFound(id)
			}
			g.nextID++
			first := th.Comments[0]
			c := ThreadComment{ID: fmt.Sprintf("PRRC_%d", g.nextID), Body: body, Login: g.Login, Association: "COLLABORATOR", Path: first.Path, Line: first.Line}
			th.Comments = append(th.Comments, c)
			return map[string]any{"comment": map[string]any{"id": c.ID, "body": c.Body}}
		}),
		"resolveReviewThread": resolver(func(args map[string]any) any {
			in, _ := args["input"].(map[string]any)
			id, _ := in["threadId"].(string)
			g.mu.Lock()
			defer g.mu.Unlock()
			th := g.thread(id)
			if th == nil {
				return notFound(id)
			}
			th.Resolved, th.ResolvedBy = true, g.Login
			return map[string]any{"thread": map[string]any{"id": th.ID, "isResolved": true}}
		}),
	}
}

// sideLines are the lines of one side of one file a diff shows, each with
// its hunk. This is GitHub's rule for review comments, written apart from
// gh-ocdx's own parser on purpose: the fake must not share its bugs.
type sideLines map[string]map[int]int // "RIGHT path" or "LEFT path" → line → hunk

func diffLines(diff string) sideLines {
	out := sideLines{}
	oldPath, newPath, hunk, o, n, in := "", "", 0, 0, 0, false
	add := func(side, path string, line int) {
		k := side + " " + path
		if out[k] == nil {
			out[k] = map[int]int{}
		}
		out[k][line] = hunk
	}
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			in = false
		case !in && strings.HasPrefix(l, "--- "):
			oldPath = strings.TrimPrefix(strings.TrimPrefix(l, "--- "), "a/")
		case !in && strings.HasPrefix(l, "+++ "):
			newPath = strings.TrimPrefix(strings.TrimPrefix(l, "+++ "), "b/")
			if newPath == "/dev/null" {
				newPath = oldPath
			}
		case strings.HasPrefix(l, "@@"):
			f := strings.Fields(l) // @@ -a,b +c,d @@
			o, _ = strconv.Atoi(strings.SplitN(strings.TrimPrefix(f[1], "-"), ",", 2)[0])
			n, _ = strconv.Atoi(strings.SplitN(strings.TrimPrefix(f[2], "+"), ",", 2)[0])
			hunk++
			in = true
		case !in:
		case strings.HasPrefix(l, "+"):
			add("RIGHT", newPath, n)
			n++
		case strings.HasPrefix(l, "-"):
			add("LEFT", newPath, o)
			o++
		case strings.HasPrefix(l, " "):
			add("RIGHT", newPath, n)
			add("LEFT", newPath, o)
			n++
			o++
		}
	}
	return out
}

// has reports whether GitHub would accept a comment on start..line (start
// 0: line alone) of path on side: every line shown, all in one hunk.
func (s sideLines) has(path string, start, line int, side string) bool {
	if side == "" {
		side = "RIGHT"
	}
	m := s[side+" "+path]
	h, ok := m[line]
	if !ok {
		return false
	}
	if start == 0 {
		start = line
	}
	for i := start; i <= line; i++ {
		if hi, ok := m[i]; !ok || hi != h || start > line {
			return false
		}
	}
	return true
}

// AddThread opens a review thread on PR number of repo, as a person
// commenting on a line would.
func (g *GitHub) AddThread(repo string, number int, th Thread) {
	g.mu.Lock()
	defer g.mu.Unlock()
	pr := g.prs[fmt.Sprintf("%s#%d", repo, number)]
	if pr == nil {
		return
	}
	if th.ID == "" {
		g.nextID++
		th.ID = fmt.Sprintf("PRRT_%d", g.nextID)
	}
	for i := range th.Comments {
		if th.Comments[i].ID == "" {
			g.nextID++
			th.Comments[i].ID = fmt.Sprintf("PRRC_%d", g.nextID)
		}
	}
	pr.Threads = append(pr.Threads, th)
}
