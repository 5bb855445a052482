package secretscan

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/git"
	"github.com/ocdx/gh-ocdx/internal/testkit"
)

// historyRepo is a repository with a base commit on main and a branch
// whose commits are made by the test.
type historyRepo struct {
	t    *testing.T
	dir  string
	base string
}

func newHistoryRepo(t *testing.T) *historyRepo {
	t.Helper()
	dir := testkit.InitRepo(t)
	testkit.WriteFiles(t, dir, map[string]string{"app.go": "package app\n"})
	testkit.Git(t, dir, "add", "-A")
	testkit.Git(t, dir, "commit", "--quiet", "-m", "base")
	testkit.Git(t, dir, "checkout", "--quiet", "-b", "feature")
	return &historyRepo{t: t, dir: dir, base: testkit.Git(t, dir, "rev-parse", "HEAD")}
}

// commit writes files (an empty content removes the file) and commits them
// with msg; it returns the commit.
func (h *historyRepo) commit(msg string, files map[string]string) string {
	h.t.Helper()
	for p, c := range files {
		if c == "" {
			testkit.Git(h.t, h.dir, "rm", "--quiet", "--", p)
			delete(files, p)
		}
	}
	testkit.WriteFiles(h.t, h.dir, files)
	testkit.Git(h.t, h.dir, "add", "-A")
	testkit.Git(h.t, h.dir, "commit", "--quiet", "--allow-empty", "-m", msg)
	return testkit.Git(h.t, h.dir, "rev-parse", "HEAD")
}

// scan scans the branch as review-loop does: the PR's diff, then its
// history; it returns what the scan found.
func (h *historyRepo) scan() Scan {
	h.t.Helper()
	ctx := context.Background()
	g, err := git.Open(ctx, h.dir)
	if err != nil {
		h.t.Fatal(err)
	}
	head := testkit.Git(h.t, h.dir, "rev-parse", "HEAD")
	d, ok := g.PRDiff(ctx, h.base, head, nil)
	if !ok {
		h.t.Fatal("no diff")
	}
	s, read, herr, err := WithHistory(ctx, g, h.base, head, "now", func() (Scan, error) {
		return Diff(strings.NewReader(string(d)), "now", nil)
	})
	if !read || herr != nil || err != nil {
		h.t.Fatalf("history read %v: %v, %v", read, herr, err)
	}
	return s
}

const (
	tokA = "ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1"
	tokB = "ghp_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2"
	tokC = "ghp_ccccccccccccccccccccccccccccccccccc3"
	tokD = "ghp_ddddddddddddddddddddddddddddddddddd4"
	tokE = "ghp_eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee5"
)

// wantTitles checks the findings' files and titles, in any order.
func wantTitles(t *testing.T, fs []finding.Finding, want []string) {
	t.Helper()
	var got []string
	for _, f := range fs {
		got = append(got, f.File+": "+f.Title)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Each place only the PR's history holds a secret is found, once, at its
// commit: a line added then removed, a line changed since, a file's name
// (masked), a commit's message (whatever lines it holds that look like a
// diff or a commit); a secret the PR's result still holds is reported
// there only. No finding holds a secret, and the IDs are the same on
// every scan.
func TestHistoryScanFindsWhatOnlyTheHistoryHolds(t *testing.T) {
	h := newHistoryRepo(t)
	added := h.commit("add keys", map[string]string{"app.go": "package app\n\nvar a = \"" + tokA + "\"\nvar kept = \"" + tokB + "\"\n"})
	h.commit("remove a", map[string]string{"app.go": "package app\n\nvar kept = \"" + tokB + "\"\n"})
	named := h.commit("keys", map[string]string{"keys/" + tokC + ".json": "{}\n"})
	h.commit("move keys", map[string]string{"keys/" + tokC + ".json": "", "keys/k.json": "{}\n"})
	msg := h.commit("use "+tokD+"\n\ncommit "+strings.Repeat("0", 40)+"\ndiff --git a/x b/x\n+++ b/x\n@@ -0,0 +1 @@\n+"+tokE+"\n", nil)

	s := h.scan()

	want := []string{
		"app.go: Hard-coded github-token added", // the kept one, in the PR's result
		"app.go: Hard-coded github-token in commit " + added[:7] + " (history only)",
		"keys/[SECRET:github-token].json: Hard-coded github-token in the name of a file added in commit " + named[:7],
		": Hard-coded github-token in the message of commit " + msg[:7],
	}
	wantTitles(t, s.Findings, want)
	b, _ := json.Marshal(s.Findings)
	for _, tok := range []string{tokA, tokB, tokC, tokD, tokE, "ghp_a", "ghp_c"} {
		if strings.Contains(string(b), tok) {
			t.Errorf("a finding holds %s: %s", tok, b)
		}
	}
	for _, f := range s.Findings {
		if f.Priority != "P0" || !strings.HasPrefix(f.ID, "SEC-") || f.ID != f.ComputeID() {
			t.Errorf("%+v", f)
		}
		if NeedsRewrite(f) != (f.Line == nil) || (f.Line == nil) == strings.HasSuffix(f.Title, " added") {
			t.Errorf("%s: needs a rewrite %v", f.Title, NeedsRewrite(f))
		}
	}
	if s.History != 5 {
		t.Errorf("%d commits read, want 5", s.History)
	}
	var ids, again []string
	for _, f := range s.Findings {
		ids = append(ids, f.ID)
	}
	for _, f := range h.scan().Findings {
		again = append(again, f.ID)
	}
	if !slices.Equal(ids, again) {
		t.Errorf("IDs %v, then %v", ids, again)
	}
}

// The PR cannot hide its history from the scan: its own .gitattributes
// marking every file binary (-diff) changes nothing, nor does a commit
// whose message claims an encoding that would garble it. A merge of the
// base branch brings in no finding of the base's commits, and a file
// binary by its content (a NUL) is not read as text.
func TestHistoryScanReadsWhatThePRTriesToHide(t *testing.T) {
	h := newHistoryRepo(t)
	hidden := h.commit("attributes", map[string]string{".gitattributes": "* -diff\n", "cfg.go": "package app\nvar k = \"" + tokA + "\"\n"})
	h.commit("clean", map[string]string{"cfg.go": "package app\n"})
	h.commit("blob", map[string]string{"img.bin": "\x00\x01" + tokB + "\n"})
	h.commit("blob gone", map[string]string{"img.bin": ""})
	// The base branch moves on with a token of its own, merged into the PR.
	testkit.Git(t, h.dir, "checkout", "--quiet", "main")
	testkit.WriteFiles(t, h.dir, map[string]string{"base.go": "package app\nvar b = \"" + tokC + "\"\n"})
	testkit.Git(t, h.dir, "add", "-A")
	testkit.Git(t, h.dir, "commit", "--quiet", "-m", "base "+tokC)
	testkit.WriteFiles(t, h.dir, map[string]string{"base.go": "package app\n"})
	testkit.Git(t, h.dir, "commit", "--quiet", "-am", "base clean")
	h.base = testkit.Git(t, h.dir, "rev-parse", "HEAD")
	testkit.Git(t, h.dir, "checkout", "--quiet", "feature")
	testkit.Git(t, h.dir, "merge", "--quiet", "--no-edit", "main")
	// A message in IBM037 by its header: git would re-encode it to noise.
	tree := testkit.Git(t, h.dir, "rev-parse", "HEAD^{tree}")
	raw := fmt.Sprintf("tree %s\nparent %s\nauthor a <a@b> 1 +0000\ncommitter a <a@b> 1 +0000\nencoding IBM037\n\nkey %s\n", tree, testkit.Git(t, h.dir, "rev-parse", "HEAD"), tokD)
	obj := filepath.Join(t.TempDir(), "commit")
	if err := os.WriteFile(obj, []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	odd := testkit.Git(t, h.dir, "hash-object", "-t", "commit", "-w", obj)
	testkit.Git(t, h.dir, "reset", "--quiet", "--hard", odd)

	s := h.scan()

	want := []string{
		"cfg.go: Hard-coded github-token in commit " + hidden[:7] + " (history only)",
		": Hard-coded github-token in the message of commit " + odd[:7],
	}
	wantTitles(t, s.Findings, want)
}

// A different private key in the history is found even when the PR's
// result holds a key too: every key's header line is alike.
func TestHistoryScanTellsPrivateKeysApart(t *testing.T) {
	h := newHistoryRepo(t)
	key := func(body string) string {
		return "-----BEGIN RSA PRIVATE KEY-----\n" + body + "\n-----END RSA PRIVATE KEY-----\n"
	}
	first := h.commit("key one", map[string]string{"id_rsa": key("MIIEowIBAAKCAQEAoneoneoneoneone")})
	h.commit("key two", map[string]string{"id_rsa": key("MIIEowIBAAKCAQEAtwotwotwotwotwo")})

	s := h.scan()

	want := []string{"id_rsa: Hard-coded private-key added", "id_rsa: Hard-coded private-key in commit " + first[:7] + " (history only)"}
	wantTitles(t, s.Findings, want)
}

// The history costs two git processes whatever it holds: the patches,
// whose commit lines name every commit, merges included, and the objects
// of those commits, for their messages. A merge's message is read; its
// patch, what the merge brought from the base, is not.
func TestHistoryIsReadInTwoProcesses(t *testing.T) {
	h := newHistoryRepo(t)
	h.commit("one", map[string]string{"a.go": "package app\n"})
	testkit.Git(t, h.dir, "checkout", "--quiet", "main")
	h.commit("base "+tokB, map[string]string{"base.go": "package app\nvar b = \"" + tokC + "\"\n"})
	testkit.Git(t, h.dir, "checkout", "--quiet", "feature")
	testkit.Git(t, h.dir, "merge", "--quiet", "--no-ff", "-m", "merge main "+tokA, "main")
	merge := testkit.Git(t, h.dir, "rev-parse", "HEAD")
	head := h.commit("two", map[string]string{"b.go": "package app\n"})
	ctx := context.Background()
	g, err := git.Open(ctx, h.dir)
	if err != nil || !g.HasCommits(ctx, h.base, head) {
		t.Fatal("the repository has the commits", err)
	}
	trace := filepath.Join(t.TempDir(), "trace")
	t.Setenv("GIT_TRACE", trace)

	hs, ok, err := ScanHistory(ctx, g, h.base, head, "now")

	t.Setenv("GIT_TRACE", "")
	if !ok || err != nil {
		t.Fatalf("read %v: %v", ok, err)
	}
	// The base's commit came in with the merge: it is the PR's history too.
	wantTitles(t, hs.Findings, []string{
		": Hard-coded github-token in the message of commit " + merge[:7],
		": Hard-coded github-token in the message of commit " + testkit.Git(t, h.dir, "rev-parse", "main")[:7],
		"base.go: Hard-coded github-token in commit " + testkit.Git(t, h.dir, "rev-parse", "main")[:7] + " (history only)",
	})
	if hs.Commits != 3 {
		t.Errorf("%d commits read, want 3: one, base and two (the merge has no patch)", hs.Commits)
	}
	raw, _ := os.ReadFile(trace)
	if n := strings.Count(string(raw), "trace: built-in: git "); n != 2 {
		t.Errorf("%d git processes, want 2:\n%s", n, raw)
	}
}
