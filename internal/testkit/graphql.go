package testkit

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator"
)

var (
	schemaOnce sync.Once
	schema     *ast.Schema
	schemaErr  error
)

// Schema is GitHub's public GraphQL schema (testdata/github, from
// @octokit/graphql-schema, MIT).
func Schema() (*ast.Schema, error) {
	schemaOnce.Do(func() {
		path := filepath.Join(ModuleRoot(), "testdata", "github", "schema.graphql")
		b, err := os.ReadFile(path)
		if err != nil {
			schemaErr = err
			return
		}
		schema, schemaErr = gqlparser.LoadSchema(&ast.Source{Name: "github", Input: string(b)})
	})
	return schema, schemaErr
}

// validDocs holds the documents ValidateQuery accepted, by their text.
// gh-ocdx sends the same few documents thousands of times in a test run,
// and parsing and validating one each time was a tenth of the fake
// GitHub's CPU. Nothing writes to a validated document (the executor and
// VariableValues only read it), so the goroutines of the fakes share it.
var validDocs sync.Map // query text → *ast.QueryDocument

// ValidateQuery checks a GraphQL document and its variables against GitHub's
// schema, as GitHub would before running it. The document is checked once
// per text, the variables on every call.
func ValidateQuery(query string, vars map[string]any) (*ast.QueryDocument, *ast.OperationDefinition, error) {
	s, err := Schema()
	if err != nil {
		return nil, nil, err
	}
	var doc *ast.QueryDocument
	if d, ok := validDocs.Load(query); ok {
		doc = d.(*ast.QueryDocument)
	} else {
		d, errs := gqlparser.LoadQueryWithRules(s, query, nil) // nil: the default rules
		if len(errs) > 0 {
			return nil, nil, errs
		}
		if len(d.Operations) != 1 {
			return nil, nil, fmt.Errorf("want exactly one operation, got %d", len(d.Operations))
		}
		v, _ := validDocs.LoadOrStore(query, d)
		doc = v.(*ast.QueryDocument)
	}
	op := doc.Operations[0]
	if _, err := validator.VariableValues(s, op, vars); err != nil {
		return nil, nil, err
	}
	return doc, op, nil
}

// resolver computes a field from its arguments.
type resolver func(args map[string]any) any

// conn is a connection: the executor pages it by first/last/after.
type conn []any

// gqlError makes a field null and adds an error, as GitHub does for a
// missing object.
type gqlError struct{ Type, Message string }

// execute runs a validated operation over plain data: maps are objects, conn
// values are connections, resolver values take the field's arguments.
func execute(op *ast.OperationDefinition, root map[string]any, vars map[string]any) (map[string]any, []map[string]any) {
	e := &executor{vars: vars}
	data := e.selection(op.SelectionSet, root, nil)
	return data, e.errs
}

type executor struct {
	vars map[string]any
	errs []map[string]any
}

func (e *executor) selection(set ast.SelectionSet, obj map[string]any, path []any) map[string]any {
	out := map[string]any{}
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if !e.included(s.Directives) {
				continue
			}
			key := s.Alias
			if key == "" {
				key = s.Name
			}
			v := obj[s.Name]
			if r, ok := v.(resolver); ok {
				v = r(s.ArgumentMap(e.vars))
			}
			if c, ok := v.(conn); ok {
				v = page(c, s.ArgumentMap(e.vars))
			}
			if ge, ok := v.(gqlError); ok {
				e.errs = append(e.errs, map[string]any{"type": ge.Type, "message": ge.Message, "path": append(append([]any{}, path...), key)})
				v = nil
			}
			out[key] = e.value(s.SelectionSet, v, append(path, key))
		case *ast.InlineFragment:
			if e.included(s.Directives) {
				for k, v := range e.selection(s.SelectionSet, obj, path) {
					out[k] = v
				}
			}
		case *ast.FragmentSpread:
			if e.included(s.Directives) {
				for k, v := range e.selection(s.Definition.SelectionSet, obj, path) {
					out[k] = v
				}
			}
		}
	}
	return out
}

func (e *executor) value(set ast.SelectionSet, v any, path []any) any {
	switch x := v.(type) {
	case map[string]any:
		if set == nil {
			return x
		}
		return e.selection(set, x, path)
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = e.value(set, item, append(path, i))
		}
		return out
	default:
		return x
	}
}

func (e *executor) included(dirs ast.DirectiveList) bool {
	if d := dirs.ForName("include"); d != nil {
		if b, _ := d.ArgumentMap(e.vars)["if"].(bool); !b {
			return false
		}
	}
	if d := dirs.ForName("skip"); d != nil {
		if b, _ := d.ArgumentMap(e.vars)["if"].(bool); b {
			return false
		}
	}
	return true
}

// page applies first/last/after to a connection; cursors are positions.
func page(c conn, args map[string]any) map[string]any {
	return pageOf(len(c), args, func(i int) any { return c[i] })
}

// pageOf is the page args ask of a connection of n nodes, node(i) making
// the i-th: only the page's nodes are made.
func pageOf(n int, args map[string]any, node func(i int) any) map[string]any {
	start := 0
	if s, ok := args["after"].(string); ok && s != "" {
		start, _ = strconv.Atoi(s)
	}
	end := n
	if f, ok := asInt(args["first"]); ok && start+f < end {
		end = start + f
	}
	if l, ok := asInt(args["last"]); ok && end-l > start {
		start = end - l
	}
	start = max(0, min(start, end))
	nodes := make([]any, 0, end-start)
	for i := start; i < end; i++ {
		nodes = append(nodes, node(i))
	}
	return map[string]any{
		"nodes":      nodes,
		"totalCount": n,
		"pageInfo": map[string]any{
			"hasNextPage":     end < n,
			"hasPreviousPage": start > 0,
			"endCursor":       strconv.Itoa(end),
			"startCursor":     strconv.Itoa(start),
		},
	}
}

func asInt(v any) (int, bool) {
	switch n := v.(type) {
	case int64:
		return int(n), true
	case int:
		return n, true
	case float64:
		return int(n), true
	}
	return 0, false
}
