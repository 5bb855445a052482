package reviewpr

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/ocdx/gh-ocdx/llm"
)

// gatedTools fetch content beyond the task message, so they answer only
// what the person allowed at Orient. list_files is not among them: it
// gives names only (no content), and knowing where things are is what lets
// the model word a precise request.
var gatedTools = map[string]bool{"read_file": true, "search": true, "pr_diff": true, "issue_view": true}

// orientGate holds the person's answer to the latest request_context. A
// later answer replaces an earlier one: a refusal closes what an earlier
// confirmation opened.
type orientGate struct {
	mu    sync.Mutex
	asked bool
	reply OrientReply
}

func (g *orientGate) set(r OrientReply) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.asked, g.reply = true, r
}

// wrap makes a fetch tool check the gate before it runs; other tools are
// returned as they are.
func (g *orientGate) wrap(t llm.Tool) llm.Tool {
	if !gatedTools[t.Name] {
		return t
	}
	run := t.Run
	t.Run = func(ctx context.Context, raw json.RawMessage) (string, error) {
		if err := g.check(t.Name, raw); err != nil {
			return "", err
		}
		return run(ctx, raw)
	}
	return t
}

// check tells whether the latest answer allows this call: a confirmation
// allows every fetch, a narrowed request only the paths (and the files under
// the directories) and issue numbers its text names.
func (g *orientGate) check(tool string, raw json.RawMessage) error {
	g.mu.Lock()
	asked, reply := g.asked, g.reply
	g.mu.Unlock()
	switch {
	case !asked:
		return fmt.Errorf("%s fetches context, which needs the person's go-ahead: call request_context first, saying what you want to fetch and why", tool)
	case reply.Action == Fetch:
		return nil
	case reply.Action == Refuse:
		return fmt.Errorf("the person refused your latest context request (their reason: %q): do not fetch it; review with what you have, or propose something else with request_context", reply.Text)
	}
	var a struct {
		Path   string `json:"path"`
		Number int    `json:"number"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return fmt.Errorf("the arguments of %s are not valid: %v", tool, err)
	}
	what, ok := "", false
	switch tool {
	case "issue_view":
		what, ok = fmt.Sprintf("issue #%d", a.Number), namesNumber(reply.Text, a.Number)
	case "search":
		if a.Path == "" {
			return fmt.Errorf("the person narrowed your latest context request to %q: search only within a path it names (pass path), or ask again with request_context", reply.Text)
		}
		fallthrough
	default:
		what, ok = a.Path, namesPath(reply.Text, a.Path)
	}
	if !ok {
		return fmt.Errorf("the person narrowed your latest context request to %q, which does not name %s: fetch only what it names, or ask again with request_context", reply.Text, what)
	}
	return nil
}

// nameToken is a word of a narrowed request that can name a path or an
// issue number.
var nameToken = regexp.MustCompile(`[\w./-]+`)

// namesPath tells whether text names p, or a directory holding p.
func namesPath(text, p string) bool {
	p = path.Clean(strings.TrimSpace(p))
	if p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
		return false
	}
	for _, tok := range nameToken.FindAllString(text, -1) {
		tok = strings.TrimRight(tok, "./") // a sentence's full stop, a directory's slash
		if tok == "" {
			continue
		}
		tok = path.Clean(tok)
		if tok == p || strings.HasPrefix(p, tok+"/") {
			return true
		}
	}
	return false
}

// namesNumber tells whether text names issue n ("#12" or "12").
func namesNumber(text string, n int) bool {
	if n <= 0 {
		return false
	}
	want := strconv.Itoa(n)
	for _, tok := range nameToken.FindAllString(text, -1) {
		if strings.TrimRight(tok, ".") == want {
			return true
		}
	}
	return false
}
