package testkit

// LoopPR is a pull request ready for review-loop: its head branch in a bare
// remote, a clone on it as the working directory, the fake GitHub, the fake
// reviewer models and the fix model (ollama/<any name>).
type LoopPR struct {
	GitHub *GitHub
	Models *FakeModel
	Fix    *FixModel
	Env    *Env
	Repo   *Repo
	PR     PR
}

// NewLoopPR sets up PR number of repo ("owner/name") on branch
// feature/cache, which adds a small cache to cache.go; edit changes the PR
// before it is added to the fake GitHub; when it gives the PR a diff of its
// own, the clone cannot read it (Repo.MoveBase). The configuration is the
// caller's.
func NewLoopPR(tb T, repo string, number int, edit func(*PR)) *LoopPR {
	tb.Helper()
	r := NewRepo(tb, "main", "feature/cache", map[string]string{"README.md": "# widgets\n", "cache.go": "package cache\n"},
		map[string]string{"cache.go": "package cache\n\nvar Size = 10\n\nfunc Get(k string) string { return k }\n"})
	l := &LoopPR{GitHub: NewGitHub(tb), Models: NewFakeModel(tb), Fix: NewFixModel(tb), Env: NewEnv(tb), Repo: r,
		PR: PR{Number: number, Title: "Add a cache", Body: "Adds a cache.", Author: "mona",
			HeadRef: r.Head, BaseRef: r.Base, Remote: r.Remote, Diff: r.Diff(tb)}}
	if edit != nil {
		edit(&l.PR)
	}
	if l.PR.Diff != r.Diff(tb) {
		// A diff of the test's own, which the clone's commits do not
		// make: only the fake GitHub can give it.
		r.MoveBase(tb)
	}
	l.GitHub.AddPR(repo, l.PR)
	l.GitHub.Configure(l.Env, repo)
	l.Models.Configure(l.Env)
	l.Env.Set("OLLAMA_HOST", l.Fix.URL())
	l.Env.Dir = r.Clone
	return l
}
