package prompts

import (
	"strings"
	"testing"
)

// Templates parse lazily; this makes a broken one fail the build's tests.
func TestEveryTemplateParses(t *testing.T) {
	names := []string{}
	for _, tm := range templates().Templates() {
		names = append(names, tm.Name())
	}
	for _, want := range []string{"review_pr.md", "reviewer.md", "comments_analyzer.md", "pr_fix.md", "verifier.md", "reply.md", "ask.md"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Errorf("template %s missing; have %v", want, names)
		}
	}
	if _, err := Render("review_pr.md", map[string]any{}); err == nil || !strings.Contains(err.Error(), "review_pr.md") {
		t.Errorf("a missing field must be an error naming the template, got %v", err)
	}
}
