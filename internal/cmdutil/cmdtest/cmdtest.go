// Package cmdtest has what the verbs' tests share: Deps over buffers and a
// Prompter that answers as scripted.
package cmdtest

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/charmbracelet/log"

	"github.com/ocdx/gh-ocdx/internal/cmdutil"
)

// Deps are a verb's dependencies over buffers (stdout, stderr), with an
// empty environment and no terminal.
func Deps() (*cmdutil.Deps, *bytes.Buffer, *bytes.Buffer) { return DepsEnv(nil) }

// DepsEnv are Deps with vars as the environment.
func DepsEnv(vars map[string]string) (*cmdutil.Deps, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return &cmdutil.Deps{IO: &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Getenv: func(k string) string { return vars[k] }, Log: log.New(&errOut), Version: "test"}, &out, &errOut
}

// WantUsageError checks that err is a usage error carrying the verb's
// usage and saying want.
func WantUsageError(t *testing.T, err error, want string) {
	t.Helper()
	var ue *cmdutil.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), want) || ue.Usage == "" {
		t.Fatalf("want a usage error with usage, containing %q; got %v", want, err)
	}
}

// Prompter answers as scripted and records each question: Confirm with
// OK, Select with the next of Picks (then Pick), Input and Edit with the
// next of Inputs and Edits; Err, when set, is every answer's.
type Prompter struct {
	OK     bool
	Pick   int
	Picks  []int
	Inputs []string
	Edits  []string
	Err    error
	Asked  []string
}

func (f *Prompter) Confirm(msg string, _ bool) (bool, error) {
	f.Asked = append(f.Asked, msg)
	return f.OK, f.Err
}

func (f *Prompter) Select(msg string, _ []string) (int, error) {
	f.Asked = append(f.Asked, msg)
	if len(f.Picks) > 0 {
		i := f.Picks[0]
		f.Picks = f.Picks[1:]
		return i, f.Err
	}
	return f.Pick, f.Err
}

func (f *Prompter) Input(msg string) (string, error) {
	f.Asked = append(f.Asked, msg)
	return next(&f.Inputs, f.Err)
}

func (f *Prompter) Edit(msg, _, _ string) (string, error) {
	f.Asked = append(f.Asked, msg)
	return next(&f.Edits, f.Err)
}

func next(q *[]string, err error) (string, error) {
	if err != nil {
		return "", err
	}
	if len(*q) == 0 {
		return "", errors.New("unexpected question")
	}
	s := (*q)[0]
	*q = (*q)[1:]
	return s, nil
}
