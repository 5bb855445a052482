package repofs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/redact"
)

// TestEditMatchesSecretMarkers: the fix agent reads files masked, so the
// old_string it copies holds [SECRET:kind] where the file holds the value;
// each marker matches one hidden value of its kind, and a marker kept in
// new_string keeps that value.
func TestEditMatchesSecretMarkers(t *testing.T) {
	const tok = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	const other = "ghp_zyxwvutsrqponmlkjihgfedcba9876543210"
	r, base := setup(t)
	src := "package cfg\n\nvar token = \"" + tok + "\"\nvar backup = \"" + other + "\"\nvar password = \"hunter2hunter2\"\n"
	if err := r.WriteFile("cfg.go", src); err != nil {
		t.Fatal(err)
	}
	read, err := r.ReadFile("cfg.go", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	masked := redact.Mask(read)
	if strings.Contains(masked, tok) || !strings.Contains(masked, `var token = "[SECRET:github-token]"`) {
		t.Fatalf("the model would see:\n%s", masked)
	}

	// Moving the secret out.
	if err := r.Edit("cfg.go", `var token = "[SECRET:github-token]"`, `var token = os.Getenv("GITHUB_TOKEN")`); err != nil {
		t.Fatal(err)
	}
	// Changing a line around a secret keeps the secret.
	if err := r.Edit("cfg.go", `var backup = "[SECRET:github-token]"`, `var backupToken = "[SECRET:github-token]" // old`); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(base, "repo", "cfg.go"))
	want := "package cfg\n\nvar token = os.Getenv(\"GITHUB_TOKEN\")\nvar backupToken = \"" + other + "\" // old\nvar password = \"hunter2hunter2\"\n"
	if string(got) != want {
		t.Errorf("after the edits:\n%s\nwant:\n%s", got, want)
	}

	for _, tc := range []struct{ old, new, err string }{
		{`"[SECRET:aws-access-key]"`, `x`, "has no hidden aws-access-key"},
		{`var password = "[SECRET:password]"`, `var password = "[SECRET:github-token]"`, "the hidden value is unknown to you"},
		{`"[SECRET:github-token]" // new`, `x`, "not found"},
	} {
		if err := r.Edit("cfg.go", tc.old, tc.new); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Edit(%q, %q): %v, want an error with %q", tc.old, tc.new, err, tc.err)
		}
	}
	// A file whose text holds a marker literally is edited literally.
	if err := r.WriteFile("doc.md", "shown as [SECRET:kind] here\n"); err != nil {
		t.Fatal(err)
	}
	if err := r.Edit("doc.md", "[SECRET:kind]", "`[SECRET:kind]`"); err != nil {
		t.Errorf("a literal marker: %v", err)
	}
}
