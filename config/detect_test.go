package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestDetectVerifyProposesTheRepositorysOwnCommands(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files map[string]string
		want  []string
		from  string
	}{
		{"go", map[string]string{"go.mod": "module x\n"}, []string{"go vet ./...", "go test ./..."}, "go.mod"},
		{"npm scripts, npm's placeholder test left out", map[string]string{"package.json": `{"scripts": {"build": "tsc", "lint": "eslint .", "test": "echo \"Error: no test specified\" && exit 1"}}`},
			[]string{"npm run lint", "npm run build"}, "package.json scripts lint, build (npm)"},
		{"pnpm by its lockfile", map[string]string{"package.json": `{"scripts": {"test": "vitest run"}}`, "pnpm-lock.yaml": ""}, []string{"pnpm run test"}, "package.json scripts test (pnpm)"},
		{"yarn by its lockfile", map[string]string{"package.json": `{"scripts": {"lint": "eslint ."}}`, "yarn.lock": ""}, []string{"yarn run lint"}, "package.json scripts lint (yarn)"},
		{"a Makefile is the repository's entry point", map[string]string{"go.mod": "module x\n", "Makefile": "VERSION := 1\n.PHONY: lint test\nlint:\n\tgolangci-lint run\ntest: lint\n\tgo test ./...\ncheck build: test\n"},
			[]string{"make lint", "make test", "make check", "make build"}, "Makefile targets lint, test, check, build"},
		{"a Makefile without those targets", map[string]string{"go.mod": "module x\n", "Makefile": "release:\n\t./release.sh\n"}, []string{"go vet ./...", "go test ./..."}, "go.mod"},
		{"cargo", map[string]string{"Cargo.toml": "[package]\n"}, []string{"cargo clippy", "cargo test"}, "Cargo.toml"},
		{"python with uv", map[string]string{"pyproject.toml": "[tool.ruff]\n[tool.pytest.ini_options]\n", "uv.lock": ""}, []string{"uv run ruff check .", "uv run pytest"}, "pyproject.toml (ruff, pytest)"},
		{"nothing known", map[string]string{"README.md": "hello"}, nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, text := range tt.files {
				if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			d := DetectVerify(root)
			if !slices.Equal(d.Commands, tt.want) || strings.Join(d.From, "; ") != tt.from {
				t.Errorf("got %q from %q, want %q from %q", d.Commands, d.From, tt.want, tt.from)
			}
			if strings.Contains(strings.Join(d.Commands, " "), "dx ") {
				t.Error("proposed dx")
			}
		})
	}
}

func TestInitFileIsValidWithOrWithoutCommands(t *testing.T) {
	for _, cmds := range [][]string{nil, {"make lint && echo <ok>", "npm run test"}} {
		text := InitFile(cmds)
		c, _, err := loadString(t, text, creds)
		if err != nil {
			t.Fatalf("%v:\n%s", err, text)
		}
		if !slices.Equal(c.Verify, cmds) || strings.Contains(text, "dx ") {
			t.Errorf("verify %q, want %q:\n%s", c.Verify, cmds, text)
		}
	}
	if !strings.Contains(InitFile([]string{"make lint && echo <ok>"}), `"verify": ["make lint && echo <ok>"],`) {
		t.Errorf("written as:\n%s", InitFile([]string{"make lint && echo <ok>"}))
	}
}

// The configuration written for a local ollama is valid as it stands, with
// the listed model in every role, whatever its name holds.
func TestLocalFileIsValidWithOrWithoutCommands(t *testing.T) {
	for _, cmds := range [][]string{nil, {"make test"}} {
		for _, model := range []string{"llama3", "qwen2.5-coder:7b", `odd"name`} {
			text := LocalFile(model, cmds)
			c, _, err := loadString(t, text, nil)
			if err != nil {
				t.Fatalf("%v:\n%s", err, text)
			}
			want := "ollama/" + model
			if len(c.Reviewers) != 1 || c.Reviewers[0].String() != want || c.CommentsAnalyzer.String() != want || c.PRFix.String() != want || !slices.Equal(c.Verify, cmds) {
				t.Errorf("%q, %q: read as %+v:\n%s", model, cmds, c, text)
			}
		}
	}
}
