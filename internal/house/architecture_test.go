package house

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
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
		// A policy file's one shape is github's, which config reads: the
		// GitHub client compiles without the configuration and the model
		// clients under it.
		"./github": {"config", "llm"},
	})
}

// notImported fails t for each package of deps that imports, directly or
// not, one of the packages named beside it.
func notImported(t *testing.T, deps map[string][]string) {
	t.Helper()
	for pkg, not := range deps {
		for _, dep := range depsOf(t, pkg) {
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
	for _, dep := range depsOf(t, ".") {
		switch dep {
		case "github.com/ocdx/gh-ocdx/internal/testkit", "github.com/ocdx/gh-ocdx/demo", "testing":
			t.Errorf("the binary imports %s", dep)
		}
	}
}

// depsOf is what the package in directory dir ("./posts", "." for the
// binary) imports, directly or not, as go list says. One go list reads
// every package of the module, once for all the tests.
func depsOf(t *testing.T, dir string) []string {
	t.Helper()
	modDeps.once.Do(func() {
		out, err := exec.Command("go", "list", "-f", "{{.Dir}}\t{{join .Deps \" \"}}", "./...").Output()
		if modDeps.err = err; err != nil {
			return
		}
		modDeps.of = map[string][]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			d, deps, _ := strings.Cut(line, "\t")
			modDeps.of[d] = strings.Fields(deps)
		}
	})
	if modDeps.err != nil {
		t.Skipf("go list: %v", modDeps.err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	deps, ok := modDeps.of[abs]
	if !ok {
		t.Fatalf("go list did not list %s", dir)
	}
	return deps
}

var modDeps struct {
	once sync.Once
	of   map[string][]string // by the package's directory
	err  error
}

// The house's size rules (docs/architecture.md, Packages): a package
// holds at most maxPackageLines lines of production code (cmd, the
// dispatch and the verbs that run a review or a fix, maxCmdLines), a package
// (cmd too) exports at most maxExported names, and no production function
// is longer than maxFuncLines. The test kit is a fake, not a room of the
// house. A package that outgrows a rule is split by idea, not exempted.
const (
	maxPackageLines = 2500
	maxCmdLines     = 4500
	maxExported     = 50
	maxFuncLines    = 100
)

func TestHouseKeepsItsSizes(t *testing.T) {
	pkgs, err := production(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 20 || pkgs["cmd"] == nil || pkgs["cmd"].lines == 0 || len(pkgs["github"].exported) == 0 {
		t.Fatalf("read %d packages; the walk must have missed them", len(pkgs))
	}
	dirs := make([]string, 0, len(pkgs))
	for dir := range pkgs {
		dirs = append(dirs, dir)
	}
	slices.Sort(dirs)
	for _, dir := range dirs {
		p := pkgs[dir]
		if dir == "internal/testkit" {
			continue
		}
		limit := maxPackageLines
		if dir == "cmd" {
			limit = maxCmdLines
		}
		if p.lines > limit {
			t.Errorf("%s: %d production lines, %d over %d", dir, p.lines, p.lines-limit, limit)
		}
		if n := len(p.exported); n > maxExported {
			t.Errorf("%s: exports %d names, %d over %d", dir, n, n-maxExported, maxExported)
		}
		for _, f := range p.funcs {
			if f.lines > maxFuncLines {
				t.Errorf("%s: %s is %d lines, %d over %d", f.at, f.name, f.lines, f.lines-maxFuncLines, maxFuncLines)
			}
		}
	}
}

// pkgSize is what TestHouseKeepsItsSizes measures of a package's
// production (non-test) files.
type pkgSize struct {
	lines    int
	exported map[string]bool // top-level funcs, types, vars and consts; not methods or fields
	funcs    []funcSize
}

type funcSize struct {
	at, name string // file:line, and Name or Recv.Name
	lines    int
}

// production measures the non-test Go files under root by directory
// (slash-separated, "." for root), skipping what the go tool skips:
// testdata and directories starting with "." or "_". Files of every
// build constraint count: a platform's file is code to keep too.
func production(root string) (map[string]*pkgSize, error) {
	pkgs := map[string]*pkgSize{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		p := pkgs[dir]
		if p == nil {
			p = &pkgSize{exported: map[string]bool{}}
			pkgs[dir] = p
		}
		p.lines += fset.File(f.Pos()).LineCount()
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				name := decl.Name.Name
				if decl.Recv == nil {
					if ast.IsExported(name) {
						p.exported[name] = true
					}
				} else {
					name = recvName(decl.Recv.List[0].Type) + "." + name
				}
				start := fset.Position(decl.Pos())
				p.funcs = append(p.funcs, funcSize{
					at:    fmt.Sprintf("%s:%d", filepath.ToSlash(path), start.Line),
					name:  name,
					lines: fset.Position(decl.End()).Line - start.Line + 1,
				})
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						if spec.Name.IsExported() {
							p.exported[spec.Name.Name] = true
						}
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							if n.IsExported() {
								p.exported[n.Name] = true
							}
						}
					}
				}
			}
		}
		return nil
	})
	return pkgs, err
}

// recvName is a method's receiver type without its pointer or type
// parameters: "loop" for (l *loop), "Set" for (s Set[T]).
func recvName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return "?"
		}
	}
}
