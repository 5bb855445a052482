package e2e

import (
	"bufio"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/ocdx/gh-ocdx/internal/testkit"
	"gopkg.in/yaml.v3"
)

// runner is a simulated GitHub Actions runner for one job of a workflow
// copied from the README: it gives each step the variables and files a
// runner gives (GITHUB_EVENT_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY,
// RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP, GITHUB_WORKSPACE), evaluates the
// ${{ }} expressions of the steps and of action.yml, runs run: steps with
// bash as the runner does, actions/checkout as a clone of the repository,
// and this repository's action as action.yml maps its inputs onto
// action/run.sh. GitHub is the fake, as the host ghes.test, which an
// HTTPS proxy connects to it (gh drops a port from a remote's URL, so the
// clone's remote must name a host without one); git clones, fetches and
// pushes over its smart HTTP. The model providers' base URLs point at the
// fake models, as OPENAI_BASE_URL would at another server.
//
// A runner of GitHub Enterprise Server (ghes) gives the steps what such a
// runner gives: the server in GITHUB_SERVER_URL, nothing more. Otherwise
// the runner stands for github.com, where gh needs no GH_HOST and takes
// the token from GH_TOKEN: it sets GH_HOST, and gives a step's GH_TOKEN as
// GH_ENTERPRISE_TOKEN too, where gh reads the token of another host.
type runner struct {
	t         *testing.T
	gh        *testkit.GitHub
	env       *testkit.Env // the runner's environment, without a step's
	workspace string
	url       string         // the repository's clone URL on the fake's host
	ctx       map[string]any // the expression contexts: github, secrets, steps, vars
	ghes      bool
	steps     map[string]any // steps.<id>.outputs
	// Log is every step's output, for a failure's message.
	Log strings.Builder
	// Action is what the step that used the action got: its result, its
	// outputs and the step's summary.
	Action struct {
		Ran     bool
		Result  testkit.Result
		Outputs map[string]any
		Summary string
	}
}

// hostProxy is an HTTPS proxy that connects host (host:443) to the
// address to and refuses any other; it returns its URL.
func hostProxy(t *testing.T, host, to string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				if req.Method != http.MethodConnect || req.Host != host {
					fmt.Fprintf(c, "HTTP/1.1 403 Forbidden\r\n\r\n")
					return
				}
				up, err := net.Dial("tcp", to)
				if err != nil {
					fmt.Fprintf(c, "HTTP/1.1 502 Bad Gateway\r\n\r\n")
					return
				}
				defer up.Close()
				fmt.Fprintf(c, "HTTP/1.1 200 Connection established\r\n\r\n")
				go io.Copy(up, c)
				io.Copy(c, up)
			}()
		}
	}()
	return "http://" + l.Addr().String()
}

// runnerArch is RUNNER_ARCH for this machine, as the runner names it.
var runnerArch = map[string]string{"amd64": "X64", "arm64": "ARM64", "386": "X86", "arm": "ARM"}[runtime.GOARCH]

// newRunner is a runner for event (its name and payload) in repo, with
// secrets; ghes: a runner of GitHub Enterprise Server.
func newRunner(t *testing.T, gh *testkit.GitHub, ghes bool, event string, payload map[string]any, secrets map[string]string) *runner {
	t.Helper()
	env := testkit.NewEnv(t)
	// The runner's environment has no identity for git, no gh-ocdx
	// configuration and an empty state: what the workflow's steps give.
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "OCDX_CONFIG", "OCDX_STATE_DIR", "GH_REPO"} {
		env.Set(k, "")
	}
	dir := t.TempDir()
	workspace := filepath.Join(dir, "work", "widgets", "widgets")
	temp := filepath.Join(dir, "runner-temp")
	for _, d := range []string{workspace, temp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	eventPath := filepath.Join(dir, "event.json")
	b, _ := json.Marshal(payload)
	if err := os.WriteFile(eventPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	server := "https://" + testkit.GHESHost
	proxy := hostProxy(t, testkit.GHESHost+":443", gh.Host())
	pr, _ := payload["pull_request"].(map[string]any)
	headRef, baseRef := "", ""
	if pr != nil {
		headRef = pr["head"].(map[string]any)["ref"].(string)
		baseRef = pr["base"].(map[string]any)["ref"].(string)
	}
	for k, v := range map[string]string{
		"CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": eventPath,
		"GITHUB_REPOSITORY": repo, "GITHUB_REPOSITORY_OWNER": strings.Split(repo, "/")[0], "GITHUB_WORKSPACE": workspace,
		"GITHUB_SERVER_URL": server, "GITHUB_API_URL": server + "/api/v3", "GITHUB_GRAPHQL_URL": server + "/api/graphql",
		"GITHUB_HEAD_REF": headRef, "GITHUB_BASE_REF": baseRef, "GITHUB_RUN_ID": "4711", "GITHUB_JOB": "job",
		"RUNNER_OS": "Linux", "RUNNER_ARCH": runnerArch, "RUNNER_TEMP": temp,
		// The fakes' addresses: the network this runner is on.
		"GH_HOST": testkit.GHESHost, "HTTPS_PROXY": proxy, "https_proxy": proxy,
		"SSL_CERT_FILE": gh.CertFile, "GIT_SSL_CAINFO": gh.CertFile, "GIT_TERMINAL_PROMPT": "0",
	} {
		env.Set(k, v)
	}
	if runtime.GOOS != "linux" {
		env.Set("RUNNER_OS", map[string]string{"darwin": "macOS", "windows": "Windows"}[runtime.GOOS])
	}
	if ghes {
		env.Set("GH_HOST", "")
	}
	env.Dir = workspace
	r := &runner{t: t, gh: gh, env: env, workspace: workspace, url: server + "/" + repo + ".git", steps: map[string]any{}, ghes: ghes}
	sec := map[string]any{"GITHUB_TOKEN": gh.Token}
	for k, v := range secrets {
		sec[k] = v
	}
	r.ctx = map[string]any{
		"github": map[string]any{"event": payload, "event_name": event, "repository": repo, "repository_owner": strings.Split(repo, "/")[0],
			"token": gh.Token, "head_ref": headRef, "base_ref": baseRef, "server_url": server, "workspace": workspace},
		"secrets": sec, "steps": r.steps, "vars": map[string]any{}, "runner": map[string]any{"os": env.Vars["RUNNER_OS"], "temp": temp},
	}
	return r
}

// job runs the job's steps in order, as the runner does: a step whose if:
// is false is skipped, and the first step that fails ends the job. It
// returns the index of the step that failed, or -1.
func (r *runner) job(job workflowJob) int {
	t := r.t
	t.Helper()
	if job.If != "" && !truthy(r.eval(job.If)) {
		t.Fatalf("the job does not run for this event: if: %s", job.If)
	}
	for i, s := range job.Steps {
		if s.If != "" && !truthy(r.eval(s.If)) {
			fmt.Fprintf(&r.Log, "--- step %d skipped (if: %s)\n", i+1, s.If)
			continue
		}
		env := map[string]string{}
		for k, v := range s.Env {
			env[k] = r.expand(v)
		}
		if tok := env["GH_TOKEN"]; tok != "" && !r.ghes {
			env["GH_ENTERPRISE_TOKEN"] = tok // gh's variable for a host that is not github.com
		}
		with := map[string]string{}
		for k, v := range s.With {
			with[k] = r.expand(v)
		}
		var code int
		switch {
		case s.Run != "":
			code = r.run(i, s, env)
		case strings.HasPrefix(s.Uses, "actions/checkout@"):
			code = r.checkout(i, with)
		case strings.HasPrefix(s.Uses, "actions/setup-go@"):
			if _, err := exec.LookPath("go"); err != nil {
				t.Fatal("go is not on PATH")
			}
			// setup-go restores the build cache of earlier runs (its input
			// cache is on by default): here the one this machine's go
			// builds the tests with, so that the verify commands' go vet
			// and go test do not build afresh what the last run built.
			r.env.Set("GOCACHE", goBuildCache(t))
		default:
			a := &r.Action
			a.Ran = true
			a.Result, a.Outputs, a.Summary = r.action(i, s, with, env)
			code = a.Result.Code
		}
		if code != 0 {
			fmt.Fprintf(&r.Log, "--- step %d failed: exit %d\n", i+1, code)
			return i
		}
	}
	return -1
}

// goBuildCache is the build cache go uses in this process's environment:
// GOCACHE, else go-build in the user's cache directory.
func goBuildCache(t *testing.T) string {
	if c := os.Getenv("GOCACHE"); c != "" {
		return c
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "go-build")
}

// stepEnv is the runner's environment with the step's variables and a
// fresh GITHUB_OUTPUT and GITHUB_STEP_SUMMARY.
func (r *runner) stepEnv(i int, env map[string]string) (e *testkit.Env, output, summary string) {
	e = &testkit.Env{Root: r.env.Root, Dir: r.workspace, Vars: map[string]string{}}
	for k, v := range r.env.Vars {
		e.Vars[k] = v
	}
	for k, v := range env {
		e.Set(k, v)
	}
	dir := filepath.Join(r.env.Vars["RUNNER_TEMP"], "_runner_file_commands", strconv.Itoa(i+1))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		r.t.Fatal(err)
	}
	output, summary = filepath.Join(dir, "output"), filepath.Join(dir, "step_summary")
	for _, f := range []string{output, summary} {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			r.t.Fatal(err)
		}
	}
	e.Set("GITHUB_OUTPUT", output)
	e.Set("GITHUB_STEP_SUMMARY", summary)
	return e, output, summary
}

// The runner's bash: a run: step without shell: runs as bash -e <file>,
// one with shell: bash as bash --noprofile --norc -eo pipefail <file>.
var (
	defaultShell = []string{"-e"}
	bashShell    = []string{"--noprofile", "--norc", "-eo", "pipefail"}
)

// script runs text as a run: step's script in shell (bash's options). It
// returns the result, the step's outputs and its summary.
func (r *runner) script(i int, shell []string, text string, env map[string]string) (testkit.Result, map[string]any, string) {
	e, output, summary := r.stepEnv(i, env)
	file := filepath.Join(r.env.Vars["RUNNER_TEMP"], fmt.Sprintf("step-%d.sh", i+1))
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		r.t.Fatal(err)
	}
	res := e.RunWith(r.t, nil, "bash", append(slices.Clone(shell), file)...)
	fmt.Fprintf(&r.Log, "--- step %d: %s\n%s%s", i+1, strings.TrimSpace(text), res.Stdout, res.Stderr)
	outputs := map[string]any{}
	b, _ := os.ReadFile(output)
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			outputs[k] = v
		}
	}
	s, _ := os.ReadFile(summary)
	return res, outputs, string(s)
}

func (r *runner) run(i int, s workflowStep, env map[string]string) int {
	// The runner pastes expressions into the script's text (the README's
	// scripts keep them out, in env:).
	res, outputs, _ := r.script(i, defaultShell, r.expand(s.Run), env)
	if s.ID != "" {
		r.steps[s.ID] = map[string]any{"outputs": outputs}
	}
	return res.Code
}

// checkout is actions/checkout: a clone of the repository in the
// workspace with the token (with: token, else the job's), on ref when
// given, else on the event's commit: the PR's merge commit, detached, on
// pull_request (here its head, detached), the default branch on a
// comment. fetch-depth: 0 is the whole history, which a clone has. Unless
// persist-credentials is false, the token stays in the clone's
// configuration as the header git sends, as actions/checkout leaves it.
func (r *runner) checkout(i int, with map[string]string) int {
	t := r.t
	t.Helper()
	if with["fetch-depth"] != "0" {
		t.Errorf("actions/checkout without fetch-depth: 0 fetches one commit, and review-loop needs the history: %v", with)
	}
	e, _, _ := r.stepEnv(i, nil)
	e.Dir = filepath.Dir(r.workspace)
	if err := os.Remove(r.workspace); err != nil {
		t.Fatal(err)
	}
	token := cmp.Or(with["token"], r.gh.Token)
	header := "AUTHORIZATION: basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+token))
	key := "http." + strings.TrimSuffix(r.url, repo+".git") + ".extraheader"
	res := e.RunWith(t, nil, "git", "-c", key+"="+header, "clone", "--quiet", r.url, r.workspace)
	fmt.Fprintf(&r.Log, "--- actions/checkout %v\n%s%s", with, res.Stdout, res.Stderr)
	if res.Code != 0 {
		return res.Code
	}
	e.Dir = r.workspace
	if with["persist-credentials"] != "false" {
		testkit.Git(t, r.workspace, "config", "--local", key, header)
	}
	switch ref := with["ref"]; {
	case ref != "":
		res = e.RunWith(t, nil, "git", "checkout", "--quiet", ref)
	case r.ctx["github"].(map[string]any)["event_name"] == "pull_request":
		res = e.RunWith(t, nil, "git", "checkout", "--quiet", "--detach", "origin/"+r.env.Vars["GITHUB_HEAD_REF"])
	}
	fmt.Fprintf(&r.Log, "%s%s", res.Stdout, res.Stderr)
	return res.Code
}

// action runs this repository's action (uses: ocdx/gh-ocdx@ref) as the
// runner runs a composite action: its inputs are with: over action.yml's
// defaults, its step's env: is evaluated with them and the action's ref
// and repository, on top of the calling step's env:, and its run: line is
// a bash script in GITHUB_ACTION_PATH. It returns the result, the
// action's outputs and the step's summary.
func (r *runner) action(i int, s workflowStep, with, env map[string]string) (testkit.Result, map[string]any, string) {
	t := r.t
	t.Helper()
	actionRepo, ref, ok := strings.Cut(s.Uses, "@")
	if !ok || actionRepo != "ocdx/gh-ocdx" {
		t.Fatalf("step %d uses %q, which the simulated runner does not have", i+1, s.Uses)
	}
	b, err := os.ReadFile(filepath.Join(testkit.ModuleRoot(), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]struct {
			Default  string
			Required bool
		}
		Outputs map[string]struct{ Value string }
		Runs    struct {
			Using string
			Steps []struct {
				ID, Shell, Run string
				Env            map[string]string
			}
		}
	}
	if err := yaml.Unmarshal(b, &action); err != nil {
		t.Fatal(err)
	}
	inputs := map[string]any{}
	for name, in := range action.Inputs {
		inputs[name] = in.Default
	}
	for name, v := range with {
		if _, ok := action.Inputs[name]; !ok {
			t.Errorf("step %d gives the action an input it does not have: %s (the runner warns, and the action never sees it)", i+1, name)
		}
		inputs[name] = v
	}
	gctx := map[string]any{}
	for k, v := range r.ctx["github"].(map[string]any) {
		gctx[k] = v
	}
	gctx["action_ref"], gctx["action_repository"] = ref, actionRepo
	ctx := map[string]any{"github": gctx, "inputs": inputs, "steps": map[string]any{}, "secrets": r.ctx["secrets"], "runner": r.ctx["runner"]}
	inner := ctx["steps"].(map[string]any)
	var res testkit.Result
	var summary string
	for _, st := range action.Runs.Steps {
		stepEnv := map[string]string{"GITHUB_ACTION_PATH": testkit.ModuleRoot(), "GITHUB_ACTION_REF": ref, "GITHUB_ACTION_REPOSITORY": actionRepo}
		for k, v := range env {
			stepEnv[k] = v
		}
		for k, v := range st.Env {
			stepEnv[k] = r.expandIn(v, ctx)
		}
		if st.Shell != "bash" {
			t.Fatalf("the action's step runs with shell %q", st.Shell)
		}
		var outputs map[string]any
		res, outputs, summary = r.script(i, bashShell, st.Run, stepEnv)
		if st.ID != "" {
			inner[st.ID] = map[string]any{"outputs": outputs}
		}
		if res.Code != 0 {
			break
		}
	}
	outputs := map[string]any{}
	for name, o := range action.Outputs {
		outputs[name] = r.expandIn(o.Value, ctx)
	}
	if s.ID != "" {
		r.steps[s.ID] = map[string]any{"outputs": outputs}
	}
	return res, outputs, summary
}

var reExpr = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

func (r *runner) expand(s string) string { return r.expandIn(s, r.ctx) }

// expandIn replaces each ${{ expression }} in s with its value in ctx, as
// a string.
func (r *runner) expandIn(s string, ctx map[string]any) string {
	return reExpr.ReplaceAllStringFunc(s, func(m string) string {
		return str(r.evalIn(reExpr.FindStringSubmatch(m)[1], ctx))
	})
}

// eval is an if: condition's value: with or without ${{ }}.
func (r *runner) eval(cond string) any {
	cond = strings.TrimSpace(cond)
	if m := reExpr.FindStringSubmatch(cond); m != nil && m[0] == cond {
		cond = m[1]
	}
	return r.evalIn(cond, r.ctx)
}

// evalIn is an expression's value in ctx; one the simulated runner cannot
// read fails the test.
func (r *runner) evalIn(expr string, ctx map[string]any) any {
	r.t.Helper()
	v, err := evalExpr(expr, ctx)
	if err != nil {
		r.t.Fatalf("expression %q: %v", expr, err)
	}
	return v
}

// str is a value as GitHub writes it into a string.
func str(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// truthy is GitHub's: false, 0, "" and null are false.
func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case string:
		return v != ""
	case float64:
		return v != 0
	}
	return true
}

// exprParser evaluates the part of GitHub's expression language the
// README's workflows and action.yml use: contexts, literals, ! && || == !=,
// parentheses, and contains, startsWith, endsWith, fromJSON.
type exprParser struct {
	s   string
	pos int
	ctx map[string]any
	err error
}

func evalExpr(s string, ctx map[string]any) (any, error) {
	p := &exprParser{s: s, ctx: ctx}
	v := p.or()
	p.space()
	if p.err == nil && p.pos < len(p.s) {
		p.err = fmt.Errorf("unexpected %q", p.s[p.pos:])
	}
	return v, p.err
}

func (p *exprParser) space() {
	for p.pos < len(p.s) && unicode.IsSpace(rune(p.s[p.pos])) {
		p.pos++
	}
}

func (p *exprParser) eat(tok string) bool {
	p.space()
	if strings.HasPrefix(p.s[p.pos:], tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

func (p *exprParser) or() any {
	v := p.and()
	for p.eat("||") {
		w := p.and()
		if !truthy(v) {
			v = w
		}
	}
	return v
}

func (p *exprParser) and() any {
	v := p.cmp()
	for p.eat("&&") {
		w := p.cmp()
		if truthy(v) {
			v = w
		}
	}
	return v
}

func (p *exprParser) cmp() any {
	v := p.unary()
	switch {
	case p.eat("=="):
		return equal(v, p.unary())
	case p.eat("!="):
		return !equal(v, p.unary())
	}
	return v
}

// equal compares as GitHub does: strings without regard to case.
func equal(a, b any) bool {
	as, aok := a.(string)
	bs, bok := b.(string)
	if aok && bok {
		return strings.EqualFold(as, bs)
	}
	return str(a) == str(b) && (a == nil) == (b == nil)
}

func (p *exprParser) unary() any {
	if p.eat("!") {
		return !truthy(p.unary())
	}
	return p.primary()
}

func (p *exprParser) primary() any {
	p.space()
	switch {
	case p.eat("("):
		v := p.or()
		if !p.eat(")") {
			p.err = fmt.Errorf("no ) at %d", p.pos)
		}
		return v
	case p.pos < len(p.s) && p.s[p.pos] == '\'':
		end := p.pos + 1
		var b strings.Builder
		for end < len(p.s) {
			if p.s[end] == '\'' {
				if end+1 < len(p.s) && p.s[end+1] == '\'' {
					b.WriteByte('\'')
					end += 2
					continue
				}
				break
			}
			b.WriteByte(p.s[end])
			end++
		}
		p.pos = end + 1
		return b.String()
	}
	start := p.pos
	for p.pos < len(p.s) && (unicode.IsLetter(rune(p.s[p.pos])) || unicode.IsDigit(rune(p.s[p.pos])) || strings.ContainsRune("._-*", rune(p.s[p.pos]))) {
		p.pos++
	}
	word := p.s[start:p.pos]
	if word == "" {
		p.err = fmt.Errorf("nothing to read at %d", p.pos)
		return nil
	}
	switch word {
	case "true":
		return true
	case "false":
		return false
	case "null":
		return nil
	}
	if n, err := strconv.ParseFloat(word, 64); err == nil {
		return n
	}
	if p.eat("(") {
		var args []any
		for !p.eat(")") {
			args = append(args, p.or())
			p.eat(",")
			if p.err != nil {
				return nil
			}
		}
		return p.call(word, args)
	}
	var v any = p.ctx
	for _, part := range strings.Split(word, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[part]
	}
	return v
}

func (p *exprParser) call(name string, args []any) any {
	switch strings.ToLower(name) {
	case "fromjson":
		var v any
		if err := json.Unmarshal([]byte(str(args[0])), &v); err != nil {
			p.err = err
		}
		return v
	case "contains":
		if list, ok := args[0].([]any); ok {
			for _, x := range list {
				if equal(x, args[1]) {
					return true
				}
			}
			return false
		}
		return strings.Contains(strings.ToLower(str(args[0])), strings.ToLower(str(args[1])))
	case "startswith":
		return strings.HasPrefix(strings.ToLower(str(args[0])), strings.ToLower(str(args[1])))
	case "endswith":
		return strings.HasSuffix(strings.ToLower(str(args[0])), strings.ToLower(str(args[1])))
	}
	p.err = fmt.Errorf("no function %s in the simulated runner", name)
	return nil
}
