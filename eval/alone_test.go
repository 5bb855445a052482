package eval

import (
	"testing"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/localchange"
	"github.com/ocdx/gh-ocdx/roles"
)

// A call alone is named by what it asks: the same model, change and
// policy give the same fingerprint; another model, diff, title, policy or
// set of findings sent to the verifier gives another.
func TestAloneFingerprintNamesWhatIsAsked(t *testing.T) {
	d := []byte("diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n")
	ch := AloneChange{Change: localchange.Change{Branch: "pull-request-1", Base: "b", MergeBase: "b", Head: "h", Diff: d}, Title: "Add y"}
	pol := &config.Policy{Instructions: "wrap errors"}
	r := roles.Role{Name: "reviewer", Model: "ollama/a"}
	fp := func(r roles.Role, ch AloneChange, p *config.Policy) string {
		a, err := NewReviewerAlone(r, ch, p, nil, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		return a.Fingerprint()
	}
	base := fp(r, ch, pol)
	if fp(r, ch, &config.Policy{Instructions: "wrap errors"}) != base {
		t.Error("the same call has another fingerprint")
	}
	other := ch
	other.Title = "Add z"
	diff := ch
	diff.Diff = []byte(string(d) + "+z\n")
	for name, f := range map[string]string{
		"model":  fp(roles.Role{Name: "reviewer", Model: "ollama/b"}, ch, pol),
		"title":  fp(r, other, pol),
		"diff":   fp(r, diff, pol),
		"policy": fp(r, ch, &config.Policy{Instructions: "log errors"}),
	} {
		if f == base {
			t.Errorf("another %s keeps the fingerprint", name)
		}
	}
	line := 1
	f1 := finding.Finding{Priority: "P2", Category: "quality", File: "a.go", Line: &line, Title: "y", Description: "y"}
	f1.ID = f1.ComputeID()
	p0 := f1
	p0.Priority = "P0"
	v := roles.Role{Name: "verifier", Model: "ollama/v"}
	if a, _ := NewVerifierAlone(v, ch, []finding.Finding{p0}, nil, 0, nil); a != nil {
		t.Error("a P0 alone was sent to the verifier: it never judges one")
	}
	a1, _ := NewVerifierAlone(v, ch, []finding.Finding{f1}, nil, 0, nil)
	f2 := f1
	f2.Title, f2.ID = "z", ""
	f2.ID = f2.ComputeID()
	a2, _ := NewVerifierAlone(v, ch, []finding.Finding{f1, f2}, nil, 0, nil)
	if a1 == nil || a2 == nil || a1.Fingerprint() == a2.Fingerprint() {
		t.Error("the verifier's calls on other findings share a fingerprint")
	}
}
