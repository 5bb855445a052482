package testkit

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"time"
)

// FixModel is an OpenAI-compatible server (reach it as ollama/<any name>
// through OLLAMA_HOST=URL()) playing the pr-fix role: it must answer with the sha that
// git_commit returned, which no scripted answer can know in advance. Each
// fix writes a file, commits it, and reports every issue to fix as fixed.
// Tests hold Mu while they change Block, OnRequest, Faults or Edit.
type FixModel struct {
	srv *httptest.Server

	Mu        sync.Mutex
	requests  int
	sent      [][]FixAsked  // what each fix was asked to fix, at its first edit
	prompts   []string      // the user messages of each request, joined
	Block     chan struct{} // non-nil: requests wait until it is closed
	OnRequest func()        // called on every request
	Faults    []Step        // failures answered first, one per request
	// Edit, when set, is the file a fix of a round writes and its
	// content; by default fix-round-N.go with a line naming the round.
	Edit func(round int) (path, content string)
}

// NewFixModel starts the server; it stops when the test ends.
func NewFixModel(tb T) *FixModel {
	f := &FixModel{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	tb.Cleanup(f.srv.Close)
	return f
}

// Prompts are the user messages of every request, each request's joined.
func (f *FixModel) Prompts() []string {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	return append([]string(nil), f.prompts...)
}

// URL is the server root, the value for OLLAMA_HOST.
func (f *FixModel) URL() string { return f.srv.URL }

// fixPayload is the part of the fix payload the fake reads (package review
// has the real shape; the test kit imports none of the project's packages).
type fixPayload struct {
	PRNumber    int `json:"prNumber"`
	Round       int `json:"round"`
	IssuesToFix []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	} `json:"issuesToFix"`
}

var (
	reFixSha     = regexp.MustCompile(`\b[0-9a-f]{40}\b`)
	reFixPayload = regexp.MustCompile("(?s)### Fix Payload\\s*```json\\s*(\\{.*?\\})\\s*```")
	reFixRound   = regexp.MustCompile(`round (\d+)`)
)

func (f *FixModel) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.Mu.Lock()
	f.requests++
	n, block, hook := f.requests, f.Block, f.OnRequest
	var fault Step
	if len(f.Faults) > 0 {
		fault, f.Faults = f.Faults[0], f.Faults[1:]
	}
	f.Mu.Unlock()
	if hook != nil {
		hook()
	}
	if ServeFault(w, "openai", fault) {
		return
	}
	if block != nil {
		select {
		case <-block:
		case <-r.Context().Done():
			return
		}
	}
	text := func(c any) string {
		switch v := c.(type) {
		case string:
			return v
		case []any:
			var b strings.Builder
			for _, p := range v {
				if m, ok := p.(map[string]any); ok {
					fmt.Fprint(&b, m["text"])
				}
			}
			return b.String()
		}
		return ""
	}
	var payload fixPayload
	round := "1"
	var user []string
	for _, m := range req.Messages {
		s := text(m.Content)
		if m.Role == "user" {
			user = append(user, s)
		}
		if mm := reFixPayload.FindStringSubmatch(s); mm != nil {
			_ = json.Unmarshal([]byte(mm[1]), &payload)
		}
		if mm := reFixRound.FindStringSubmatch(s); mm != nil && m.Role == "user" && round == "1" {
			round = mm[1]
		}
	}
	f.Mu.Lock()
	f.prompts = append(f.prompts, strings.Join(user, "\n"))
	f.Mu.Unlock()
	// The sha git_commit returned, in the results after the model's last turn
	// (the working note may follow them as a user message).
	sha := ""
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != "assistant"; i-- {
		if s := reFixSha.FindString(text(req.Messages[i].Content)); req.Messages[i].Role == "tool" && s != "" {
			sha = s
		}
	}
	msg := map[string]any{"role": "assistant"}
	finish := "stop"
	if sha != "" {
		var fixed []map[string]string
		for _, is := range payload.IssuesToFix {
			fixed = append(fixed, map[string]string{"findingId": is.ID, "commitSha": sha, "description": "fixed " + is.Title})
		}
		env, _ := json.Marshal(map[string]any{"agent": "pr-fix", "prNumber": payload.PRNumber,
			"summary": map[string]int{"fixed": len(fixed), "rejected": 0, "deferred": 0}, "fixedIssues": fixed,
			"rejectedIssues": []any{}, "commits": []map[string]string{{"sha": sha, "message": "fix: review findings"}}})
		msg["content"] = "BEGIN_JSON\n" + string(env) + "\nEND_JSON"
	} else {
		var ids []FixAsked
		for _, is := range payload.IssuesToFix {
			ids = append(ids, FixAsked{ID: is.ID, Title: is.Title})
		}
		f.Mu.Lock()
		f.sent = append(f.sent, ids)
		f.Mu.Unlock()
		file, content := fmt.Sprintf("fix-round-%d.go", payload.Round), fmt.Sprintf("fixed in round %d (call %d)\n", payload.Round, n)
		f.Mu.Lock()
		edit := f.Edit
		f.Mu.Unlock()
		if edit != nil {
			file, content = edit(payload.Round)
		}
		args, _ := json.Marshal(struct {
			Path    string `json:"path"`
			Content string `json:"content"`
		}{file, content})
		msg["content"] = nil
		msg["tool_calls"] = []map[string]any{
			{"id": "c1", "type": "function", "function": map[string]any{"name": "write_file", "arguments": string(args)}},
			{"id": "c2", "type": "function", "function": map[string]any{"name": "git_commit",
				"arguments": fmt.Sprintf(`{"message":"fix: review findings of round %d","paths":[%q]}`, payload.Round, file)}},
		}
		finish = "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "fix", "object": "chat.completion", "created": time.Now().Unix(), "model": "fixer",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
	})
}

// Count is the number of requests received.
func (f *FixModel) Count() int {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	return f.requests
}

// FixAsked is a finding a fix was asked to fix.
type FixAsked struct{ ID, Title string }

// Sent lists, for each fix the model made (an edit and a commit), the
// findings it was asked to fix, oldest first.
func (f *FixModel) Sent() [][]FixAsked {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	return append([][]FixAsked(nil), f.sent...)
}
