package cmd

import (
	"errors"
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
