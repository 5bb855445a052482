package bench

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ocdx/gh-ocdx/review"
)

// fixModel is an OpenAI-compatible server (reached as ollama/fixer through
// OLLAMA_HOST) playing the pr-fix role, as in the e2e tests: it must answer
// with the sha that git_commit returned, which no scripted answer knows in
// advance. Each fix writes a file, commits it, and reports every issue to
// fix as fixed.
type fixModel struct{ srv *httptest.Server }

func newFixModel(tb testing.TB) *fixModel {
	f := &fixModel{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	tb.Cleanup(f.srv.Close)
	return f
}

var (
	reSha     = regexp.MustCompile(`\b[0-9a-f]{40}\b`)
	rePayload = regexp.MustCompile("(?s)### Fix Payload\\s*```json\\s*(\\{.*?\\})\\s*```")
)

func text(c any) string {
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

func (f *fixModel) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	var payload review.FixPayload
	for _, m := range req.Messages {
		if mm := rePayload.FindStringSubmatch(text(m.Content)); mm != nil {
			_ = json.Unmarshal([]byte(mm[1]), &payload)
		}
	}
	last := req.Messages[len(req.Messages)-1]
	msg := map[string]any{"role": "assistant"}
	finish := "stop"
	if sha := reSha.FindString(text(last.Content)); last.Role == "tool" && sha != "" {
		var fixed []map[string]string
		for _, is := range payload.IssuesToFix {
			fixed = append(fixed, map[string]string{"findingId": is.ID, "commitSha": sha, "description": "fixed " + is.Title})
		}
		env, _ := json.Marshal(map[string]any{"agent": "pr-fix", "prNumber": payload.PRNumber,
			"summary": map[string]int{"fixed": len(fixed), "rejected": 0, "deferred": 0}, "fixedIssues": fixed,
			"rejectedIssues": []any{}, "commits": []map[string]string{{"sha": sha, "message": "fix: review findings"}}})
		msg["content"] = "BEGIN_JSON\n" + string(env) + "\nEND_JSON"
	} else {
		file := fmt.Sprintf("fix-round-%d.txt", payload.Round)
		msg["content"] = nil
		msg["tool_calls"] = []map[string]any{
			{"id": "c1", "type": "function", "function": map[string]any{"name": "write_file",
				"arguments": fmt.Sprintf(`{"path":%q,"content":"fixed in round %d\n"}`, file, payload.Round)}},
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
