package setup

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/config"
)

// config init's next steps say where analyzers go, with an entry to copy,
// before the check that ends them.
func TestNextStepsMentionAnalyzers(t *testing.T) {
	got := NextSteps(func(string) string { return "" }, config.Location{Preferred: "/c.json"}, "", []string{"make test"}, "from its Makefile")
	a, check := strings.Index(got, `add "analyzers"`), strings.Index(got, "Check it: gh ocdx config validate")
	if a < 0 || check < a || !strings.Contains(got, config.AnalyzerExample) || !strings.Contains(got, config.RepoFile+" can set them too") {
		t.Errorf("next steps:\n%s", got)
	}
}
