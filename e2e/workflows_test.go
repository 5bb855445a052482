package e2e

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/testkit"
	"gopkg.in/yaml.v3"
)

// The workflows people copy from the README, and the repository's own, are
// held to the shapes SECURITY.md promises (docs/architecture.md, The GitHub
// Action): a comment event admits only owners, members and collaborators,
// runs each comment in a concurrency group no other comment shares, and
// never puts a fork's head in a workspace holding a write token and the
// model keys.

type workflowFile struct {
	Name        string
	On          map[string]any
	Concurrency any
	Permissions any // a map of scope to level, or read-all/write-all
	Jobs        map[string]workflowJob
}

type workflowJob struct {
	If          string
	Concurrency any
	Permissions any // the job's own, instead of the workflow's
	Steps       []workflowStep
}

// grants reports whether permissions (a workflow's or a job's) give the
// GITHUB_TOKEN write on scope.
func grants(permissions any, scope string) bool {
	switch p := permissions.(type) {
	case string:
		return p == "write-all"
	case map[string]any:
		return p[scope] == "write"
	}
	return false
}

// jobGrants is grants for a job: its own permissions, else its workflow's.
func jobGrants(w workflowFile, job workflowJob, scope string) bool {
	if job.Permissions != nil {
		return grants(job.Permissions, scope)
	}
	return grants(w.Permissions, scope)
}

type workflowStep struct {
	ID, If, Uses, Run string
	With, Env         map[string]string
}

// workflows are the README's YAML blocks that are workflows (they have
// jobs) and .github/workflows/*.yml, by where they come from; every YAML
// block of the README must parse.
func workflows(t *testing.T) map[string]workflowFile {
	t.Helper()
	root := testkit.ModuleRoot()
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]workflowFile{}
	blocks := regexp.MustCompile("(?ms)^( *)```yaml\n(.*?)^ *```").FindAllStringSubmatch(string(readme), -1)
	for i, b := range blocks {
		src := regexp.MustCompile("(?m)^"+b[1]).ReplaceAllString(b[2], "")
		var fields map[string]any
		if err := yaml.Unmarshal([]byte(src), new(yaml.Node)); err != nil {
			t.Errorf("the README's YAML block %d does not parse: %v\n%s", i+1, err, src)
			continue
		}
		if yaml.Unmarshal([]byte(src), &fields) != nil || fields["jobs"] == nil {
			continue // a fragment (steps, a condition), not a workflow
		}
		var w workflowFile
		if err := yaml.Unmarshal([]byte(src), &w); err != nil {
			t.Errorf("the README's workflow %d is not one: %v\n%s", i+1, err, src)
			continue
		}
		out["README.md: "+w.Name] = w
	}
	files, _ := filepath.Glob(filepath.Join(root, ".github", "workflows", "*.yml"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var w workflowFile
		if err := yaml.Unmarshal(b, &w); err != nil {
			t.Errorf("%s does not parse: %v", f, err)
			continue
		}
		out[filepath.Base(f)] = w
	}
	return out
}

// commentWorkflows are the workflows a comment starts: they run with the
// base repository's write token and secrets whoever wrote the comment.
func commentWorkflows(t *testing.T) map[string]workflowFile {
	t.Helper()
	out := map[string]workflowFile{}
	for name, w := range workflows(t) {
		for _, ev := range []string{"issue_comment", "pull_request_review_comment", "discussion_comment"} {
			if _, ok := w.On[ev]; ok {
				out[name] = w
			}
		}
	}
	if _, ok := out["README.md: ocdx-commands"]; !ok {
		t.Fatalf("the README's commands workflow (name: ocdx-commands) is not among the workflows a comment starts: %v", slices.Sorted(maps.Keys(out)))
	}
	return out
}

// conjuncts splits a GitHub expression at its top-level &&; ok is false
// when it has a top-level ||, which would let a branch past every gate.
func conjuncts(expr string) (parts []string, ok bool) {
	expr = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(expr), "${{"), "}}"))
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(expr); i++ {
		switch c := expr[i]; {
		case c == '\'':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			depth--
		case depth == 0 && strings.HasPrefix(expr[i:], "||"):
			return nil, false
		case depth == 0 && strings.HasPrefix(expr[i:], "&&"):
			parts = append(parts, strings.TrimSpace(expr[start:i]))
			start = i + 2
			i++
		}
	}
	return append(parts, strings.TrimSpace(expr[start:])), true
}

var reAssociationGate = regexp.MustCompile(`^contains\(fromJSON\('(\[[^']*\])'\), github\.event\.comment\.author_association\)$`)

// A comment starts a job only when its author is the repository's owner,
// a member or a collaborator: a required condition of the job's if:, so no
// other branch of it admits anyone else.
func TestCommandsWorkflowAdmitsOnlyOwnersMembersAndCollaborators(t *testing.T) {
	t.Parallel()
	for name, w := range commentWorkflows(t) {
		for id, job := range w.Jobs {
			parts, ok := conjuncts(job.If)
			if !ok {
				t.Errorf("%s, job %s: its if: has a top-level ||, so the gate can be passed by: %s", name, id, job.If)
				continue
			}
			gated := false
			for _, p := range parts {
				m := reAssociationGate.FindStringSubmatch(p)
				if m == nil {
					continue
				}
				var who []string
				if err := json.Unmarshal([]byte(m[1]), &who); err != nil {
					t.Errorf("%s, job %s: %v", name, id, err)
				}
				slices.Sort(who)
				gated = slices.Equal(who, []string{"COLLABORATOR", "MEMBER", "OWNER"})
			}
			if !gated {
				t.Errorf("%s, job %s: its if: does not require an OWNER, MEMBER or COLLABORATOR author_association: %s", name, id, job.If)
			}
		}
	}
}

// concurrencyGroup is the group of a concurrency: value (a string or a
// map with group), and whether it cancels the run in progress.
func concurrencyGroup(c any) (group string, cancels bool) {
	switch c := c.(type) {
	case string:
		return c, false
	case map[string]any:
		g, _ := c["group"].(string)
		cancel, _ := c["cancel-in-progress"].(bool)
		return g, cancel
	}
	return "", false
}

// GitHub keeps one pending run per concurrency group and cancels the
// older: each comment's run is in a group keyed by that comment alone, so
// another person's comment cannot cancel it.
func TestCommandsWorkflowRunsEachCommentInAGroupOfItsOwn(t *testing.T) {
	t.Parallel()
	reExpr := regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)
	for name, w := range commentWorkflows(t) {
		if w.Concurrency != nil {
			t.Errorf("%s: a workflow-level concurrency group is shared by every comment it matches: %v", name, w.Concurrency)
		}
		for id, job := range w.Jobs {
			group, cancels := concurrencyGroup(job.Concurrency)
			var keys []string
			for _, m := range reExpr.FindAllStringSubmatch(group, -1) {
				keys = append(keys, m[1])
			}
			if !slices.Equal(keys, []string{"github.event.comment.id"}) {
				t.Errorf("%s, job %s: the concurrency group %q is not one per comment (keyed by github.event.comment.id only)", name, id, group)
			}
			if cancels {
				t.Errorf("%s, job %s: cancel-in-progress lets a run cancel another", name, id)
			}
		}
	}
}

var (
	reForkStep = regexp.MustCompile(`--json isCrossRepository\b[\s\S]*fork=`)
	// reHeadCheckout is a step that puts a PR's head in the workspace.
	reHeadCheckout = regexp.MustCompile(`gh pr checkout|refs/pull/|pull/\$|head_ref|head\.sha|head\.ref|git (fetch|checkout|switch)`)
)

// A fork's head never enters a workspace that holds the job's write token
// and the model keys: one step asks gh whether the PR is a fork before any
// checkout, and every step that keeps a credential or checks out the PR's
// head runs only when that step said 'false' (so a step that failed to
// tell counts as a fork).
func TestCommandsWorkflowNeverChecksOutAForksHeadWithCredentials(t *testing.T) {
	t.Parallel()
	for name, w := range commentWorkflows(t) {
		for id, job := range w.Jobs {
			guard, seen := "", false
			for i, s := range job.Steps {
				where := func() string { return name + ", job " + id + ", step " + strings.TrimSpace(s.ID+" "+s.Uses+" "+s.Run) }
				if guard == "" && reForkStep.MatchString(s.Run) && s.ID != "" {
					if seen {
						t.Errorf("%s: the fork is asked about after a checkout", where())
					}
					guard = "steps." + s.ID + ".outputs.fork == 'false'"
					continue
				}
				checkout := strings.HasPrefix(s.Uses, "actions/checkout@")
				head := reHeadCheckout.MatchString(s.Run) || checkout && reHeadCheckout.MatchString(s.With["ref"])
				seen = seen || checkout || head
				guarded := guard != "" && strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(s.If), "${{"), "}}")) == guard
				if head && !guarded {
					t.Errorf("%s (step %d): checks out the PR's head without the fork guard (if: %s)", where(), i+1, guard)
				}
				if checkout && !guarded {
					p := s.With["persist-credentials"]
					if p != "false" && (guard == "" || p != "${{ "+guard+" }}") {
						t.Errorf("%s (step %d): keeps the job's credential in the workspace of a fork's PR (persist-credentials: %q)", where(), i+1, p)
					}
				}
			}
			if guard == "" {
				t.Errorf("%s, job %s: no step asks whether the PR is a fork (gh pr view --json isCrossRepository, writing fork= to $GITHUB_OUTPUT)", name, id)
			}
		}
	}
}

// A pull_request workflow that hands a step secrets runs only for PRs
// from the repository itself: a fork's PR gets no secrets there, and the
// job would only fail.
func TestPullRequestWorkflowsSkipForksWhereTheyUseSecrets(t *testing.T) {
	t.Parallel()
	all := workflows(t)
	for name, w := range all {
		if _, ok := w.On["pull_request"]; !ok {
			continue
		}
		for id, job := range w.Jobs {
			secrets := false
			for _, s := range job.Steps {
				for _, v := range s.Env {
					secrets = secrets || strings.Contains(v, "secrets.")
				}
			}
			if !secrets {
				continue
			}
			parts, ok := conjuncts(job.If)
			if !ok || !slices.Contains(parts, "github.event.pull_request.head.repo.full_name == github.repository") {
				t.Errorf("%s, job %s: uses secrets without requiring a PR from the repository itself: if: %s", name, id, job.If)
			}
		}
	}
	if _, ok := all["README.md: review-loop"]; !ok {
		t.Error("the README's review-loop workflow was not found")
	}
}

// The action publishes the gh-ocdx check run unless told not to
// (docs/architecture.md, The check run): a pull_request job that uses it
// gives its token checks: write, or turns the check run off.
func TestPullRequestWorkflowsLetTheActionWriteItsCheckRun(t *testing.T) {
	t.Parallel()
	found := 0
	for name, w := range workflows(t) {
		if _, ok := w.On["pull_request"]; !ok {
			continue
		}
		for id, job := range w.Jobs {
			for _, s := range job.Steps {
				if !strings.HasPrefix(s.Uses, "ocdx/gh-ocdx@") || s.With["check-run"] == "false" {
					continue
				}
				found++
				if !jobGrants(w, job, "checks") {
					t.Errorf("%s, job %s: the action publishes the gh-ocdx check run, but the token is not given checks: write", name, id)
				}
			}
		}
	}
	if found == 0 {
		t.Error("no pull_request workflow uses the action")
	}
}

// Every configuration file the README's workflows name is one the README
// creates, in a shell block a newcomer copies, and it is a configuration
// gh-ocdx accepts: the Action as copied does not stop on a file nobody
// told them to write.
func TestREADMEWorkflowsNameAConfigurationItCreates(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(testkit.ModuleRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	written := map[string]string{}
	for _, m := range regexp.MustCompile(`(?s)cat > (\S+) <<'EOF'\n(.*?)\nEOF\n`).FindAllStringSubmatch(string(readme), -1) {
		written[m[1]] = m[2]
	}
	named := 0
	for where, wf := range workflows(t) {
		for name, job := range wf.Jobs {
			for _, st := range job.Steps {
				path := st.With["config"]
				if path == "" {
					continue
				}
				named++
				body, ok := written[path]
				if !ok {
					t.Errorf("%s, job %s: config %s is a file the README never creates", where, name, path)
					continue
				}
				env := testkit.NewEnv(t)
				env.Set("OPENAI_API_KEY", "sk-test")
				env.Set("ANTHROPIC_API_KEY", "sk-ant-test")
				env.WriteConfig(t, body)
				if res := env.Run(t, "config", "show"); res.Code != 0 {
					t.Errorf("the README's %s is not a valid configuration:\n%s", path, res.Stderr)
				}
			}
		}
	}
	if named == 0 {
		t.Fatal("no workflow of the README names a config: the pattern must have missed them")
	}
}
