package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Detected are the verify commands a repository's own files suggest, and
// what suggested them ("go.mod", "Makefile targets lint, test").
type Detected struct {
	Commands []string
	From     []string
}

// DetectVerify reads the files at the root of the work tree at root that
// name a repository's usual checks, for `config init` to propose
// (docs/architecture.md, Configuration). A Makefile with lint, test,
// check or build targets is the repository's own entry point and is used
// alone; otherwise each ecosystem found adds its commands: go.mod,
// package.json's scripts (run with the package manager its lockfile names),
// Cargo.toml, pyproject.toml's tools. Nothing is run.
func DetectVerify(root string) Detected {
	if d := makeTargets(root); len(d.Commands) > 0 {
		return d
	}
	var d Detected
	for _, detect := range []func(string) Detected{goModule, nodeScripts, cargoCrate, pythonTools} {
		x := detect(root)
		d.Commands = append(d.Commands, x.Commands...)
		d.From = append(d.From, x.From...)
	}
	return d
}

// readRoot reads a file at root; "" when it is absent or unreadable.
func readRoot(root, name string) string {
	data, err := ReadFile(filepath.Join(root, name))
	if err != nil {
		return ""
	}
	return string(data)
}

func atRoot(root, name string) bool {
	_, err := os.Lstat(filepath.Join(root, name))
	return err == nil
}

// reTarget is a rule's line in a Makefile: targets, then one colon (not :=).
var reTarget = regexp.MustCompile(`(?m)^([A-Za-z0-9_./ -]+?)\s*::?(?:[^=]|$)`)

func makeTargets(root string) Detected {
	for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
		text := readRoot(root, name)
		if text == "" {
			continue
		}
		targets := map[string]bool{}
		for _, m := range reTarget.FindAllStringSubmatch(text, -1) {
			for _, t := range strings.Fields(m[1]) {
				targets[t] = true
			}
		}
		var d Detected
		var found []string
		for _, t := range []string{"lint", "test", "check", "build"} {
			if targets[t] {
				d.Commands = append(d.Commands, "make "+t)
				found = append(found, t)
			}
		}
		if len(found) > 0 {
			d.From = []string{fmt.Sprintf("%s targets %s", name, strings.Join(found, ", "))}
		}
		return d
	}
	return Detected{}
}

func goModule(root string) Detected {
	if !atRoot(root, "go.mod") {
		return Detected{}
	}
	return Detected{Commands: []string{"go vet ./...", "go test ./..."}, From: []string{"go.mod"}}
}

// npmNoTest is the test script `npm init` writes, which only fails.
const npmNoTest = "no test specified"

func nodeScripts(root string) Detected {
	text := readRoot(root, "package.json")
	if text == "" {
		return Detected{}
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal([]byte(text), &pkg) != nil {
		return Detected{}
	}
	pm := "npm"
	for _, l := range []struct{ file, pm string }{{"pnpm-lock.yaml", "pnpm"}, {"yarn.lock", "yarn"}, {"bun.lockb", "bun"}, {"bun.lock", "bun"}} {
		if atRoot(root, l.file) {
			pm = l.pm
			break
		}
	}
	var d Detected
	var found []string
	for _, s := range []string{"lint", "test", "build"} {
		script, ok := pkg.Scripts[s]
		if !ok || strings.TrimSpace(script) == "" || strings.Contains(script, npmNoTest) {
			continue
		}
		d.Commands = append(d.Commands, pm+" run "+s)
		found = append(found, s)
	}
	if len(found) > 0 {
		d.From = []string{fmt.Sprintf("package.json scripts %s (%s)", strings.Join(found, ", "), pm)}
	}
	return d
}

func cargoCrate(root string) Detected {
	if !atRoot(root, "Cargo.toml") {
		return Detected{}
	}
	return Detected{Commands: []string{"cargo clippy", "cargo test"}, From: []string{"Cargo.toml"}}
}

func pythonTools(root string) Detected {
	text := readRoot(root, "pyproject.toml")
	if text == "" {
		return Detected{}
	}
	run := ""
	switch {
	case atRoot(root, "uv.lock"):
		run = "uv run "
	case atRoot(root, "poetry.lock"):
		run = "poetry run "
	}
	var d Detected
	var found []string
	if strings.Contains(text, "[tool.ruff") {
		d.Commands, found = append(d.Commands, run+"ruff check ."), append(found, "ruff")
	}
	if strings.Contains(text, "[tool.mypy") {
		d.Commands, found = append(d.Commands, run+"mypy ."), append(found, "mypy")
	}
	if strings.Contains(text, "[tool.pytest") || strings.Contains(text, "pytest") && (atRoot(root, "tests") || atRoot(root, "test")) {
		d.Commands, found = append(d.Commands, run+"pytest"), append(found, "pytest")
	}
	if len(found) > 0 {
		d.From = []string{fmt.Sprintf("pyproject.toml (%s)", strings.Join(found, ", "))}
	}
	return d
}

// InitFile is the configuration `config init` writes: Example with verify
// set to commands, or without the key when there are none.
func InitFile(commands []string) string { return withVerify(Example, commands) }

// LocalFile is the configuration `config init` writes when a local ollama
// answers: its model (a name it listed) in every role, so that a first
// review needs no API key, and verify as in InitFile.
func LocalFile(model string, commands []string) string {
	name, _ := json.Marshal("ollama/" + model)
	return withVerify(`{
  "reviewerModels": [`+string(name)+`],
  "commentsAnalyzerModel": `+string(name)+`,
  "prFixModel": `+string(name)+`,
  "verify": ["go vet ./...", "go test ./..."],
  "outputTokens": {"prFixModel": 16384}
}
`, commands)
}

// withVerify sets the verify line of an example configuration to commands,
// or removes it when there are none.
func withVerify(example string, commands []string) string {
	const line = `  "verify": ["go vet ./...", "go test ./..."],` + "\n"
	if len(commands) == 0 {
		return strings.Replace(example, line, "", 1)
	}
	return strings.Replace(example, line, `  "verify": `+VerifyJSON(commands)+",\n", 1)
}

// VerifyJSON writes commands as a configuration's "verify" value:
// ["make lint", "make test"].
func VerifyJSON(commands []string) string {
	quoted := make([]string, len(commands))
	for i, c := range commands {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // "make lint && make test" as written
		_ = enc.Encode(c)
		quoted[i] = strings.TrimSpace(b.String())
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}
