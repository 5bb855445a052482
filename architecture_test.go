package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// A comment that sends the reader to the architecture document names a
// section it has, after the file's name and a comma, several parted by
// "; ". A reference to a section that was renamed or never written leaves
// the reader with the code alone.
func TestCodeCommentsPointToSectionsThatExist(t *testing.T) {
	doc, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "#") {
			sections[strings.TrimSpace(strings.TrimLeft(line, "#"))] = true
		}
	}
	out, err := exec.Command("git", "ls-files", "*.go").Output()
	if err != nil {
		t.Skipf("git ls-files: %v", err)
	}
	// A comment's lines are joined, so a name may be wrapped.
	continued := regexp.MustCompile(`\n[ \t]*//[ \t]*`)
	ref := regexp.MustCompile(`docs/architecture\.md, ([^)"` + "`" + `\n]+)\)`)
	refs := 0
	for _, file := range strings.Fields(string(out)) {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ref.FindAllStringSubmatch(continued.ReplaceAllString(string(src), " "), -1) {
			for _, name := range strings.Split(m[1], "; ") {
				refs++
				if !sections[strings.TrimSpace(name)] {
					t.Errorf("%s points to docs/architecture.md, %q, a section it does not have", file, name)
				}
			}
		}
	}
	if refs < 50 {
		t.Fatalf("found %d references; the pattern must have missed them", refs)
	}
}

// The footprint's owner is below every verb (docs/architecture.md,
// Packages): posts imports none of the packages that read and write the
// PR through it, and converse, the conversation, does not import the
// review-loop engine.
func TestThePostsPackageIsBelowTheVerbs(t *testing.T) {
	notImported(t, map[string][]string{
		"./posts":    {"loop", "converse", "reviewpr", "fix", "cmd", "change", "state", "llm", "config"},
		"./converse": {"loop", "cmd"},
		// The terminal's helpers and the state's view know no round.
		"./internal/prompter": {"loop", "state", "llm", "github", "config"},
		"./internal/jsonout":  {"loop", "state", "llm", "github", "config"},
		"./internal/progress": {"loop", "state", "github", "config"},
		"./stateview":         {"loop", "cmd"},
	})
}

// A round's rooms sit below its engine (docs/architecture.md, Packages):
// the roles know nothing of the report or the ledger, neither of those
// the engine, and the check run reads a run's result without it; the
// state file keeps stats' record without knowing gh-ocdx's footprint.
func TestTheRoundsRoomsAreBelowTheEngine(t *testing.T) {
	notImported(t, map[string][]string{
		"./roles":    {"loop", "report", "ledger", "cmd"},
		"./report":   {"loop", "ledger", "cmd"},
		"./ledger":   {"loop", "cmd"},
		"./checkrun": {"loop", "cmd"},
		"./state":    {"posts", "fix", "loop"},
	})
}

// notImported fails t for each package of deps that imports, directly or
// not, one of the packages named beside it.
func notImported(t *testing.T, deps map[string][]string) {
	t.Helper()
	for pkg, not := range deps {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Skipf("go list: %v", err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, n := range not {
				if dep == "github.com/ocdx/gh-ocdx/"+n {
					t.Errorf("%s imports %s", pkg, n)
				}
			}
		}
	}
}

// The extension is kept free of the fakes (docs/architecture.md,
// Packages): the binary gh installs imports neither internal/testkit nor
// the demo built on it, nor package testing.
func TestTheBinaryHoldsNoFake(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch dep {
		case "github.com/ocdx/gh-ocdx/internal/testkit", "github.com/ocdx/gh-ocdx/demo", "testing":
			t.Errorf("the binary imports %s", dep)
		}
	}
}
