package cmd

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// fakePrompter answers as scripted and records each question: Confirm with
// ok, Select with the next of picks (then pick), Input and Edit with the
// next of inputs and edits; err, when set, is every answer's.
type fakePrompter struct {
	ok     bool
	pick   int
	picks  []int
	inputs []string
	edits  []string
	err    error
	asked  []string
}

func (f *fakePrompter) Confirm(msg string, _ bool) (bool, error) {
	f.asked = append(f.asked, msg)
	return f.ok, f.err
}

func (f *fakePrompter) Select(msg string, _ []string) (int, error) {
	f.asked = append(f.asked, msg)
	if len(f.picks) > 0 {
		i := f.picks[0]
		f.picks = f.picks[1:]
		return i, f.err
	}
	return f.pick, f.err
}

func (f *fakePrompter) Input(msg string) (string, error) {
	f.asked = append(f.asked, msg)
	return next(&f.inputs, f.err)
}

func (f *fakePrompter) Edit(msg, _, _ string) (string, error) {
	f.asked = append(f.asked, msg)
	return next(&f.edits, f.err)
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

// A question wider than the terminal is wrapped: its first lines printed,
// its last drawn by survey (which redraws by counting lines, and garbles a
// line the terminal had to wrap itself).
func TestLongQuestionsAreWrapped(t *testing.T) {
	var out bytes.Buffer
	p := &surveyPrompter{ios: &IOStreams{Out: &out, width: 44}}
	msg := "An earlier fix of PR #7 stopped at: verified, not pushed (2 commits on feature/a-rather-long-branch). What now?"
	got := p.fit(msg)
	if len([]rune(got)) > 40 || !strings.HasSuffix(got, "What now?") {
		t.Errorf("question %q", got)
	}
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if len([]rune(l)) > 40 {
			t.Errorf("printed line of %d columns: %q", len([]rune(l)), l)
		}
	}
	if strings.Join(strings.Fields(out.String()+" "+got), " ") != msg {
		t.Errorf("words lost: %q + %q", out.String(), got)
	}
	out.Reset()
	if short := p.fit("Use them?"); short != "Use them?" || out.Len() != 0 {
		t.Errorf("a short question changed: %q, printed %q", short, out.String())
	}
}
