package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ReadCases reads a list of cases as `gh ocdx eval history --list --json`
// prints it, perhaps edited (cases dropped or added), and checks each
// against the repository g runs in: its base and head are commits here,
// its lines name a file and a line. A case without a merge time takes its
// merge commit's (or head's). name is the file, for the errors.
func ReadCases(ctx context.Context, g Git, r io.Reader, name string) (*Mined, error) {
	var m Mined
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %v: give the JSON that gh ocdx eval history --list --json prints (an object with \"bugs\" and \"clean\")", name, err)
	}
	if len(m.Bugs)+len(m.Clean) == 0 {
		return nil, fmt.Errorf("%s lists no case: give at least one in \"bugs\" or \"clean\"", name)
	}
	seen := map[int]bool{}
	for _, list := range []struct {
		cases []Case
		bug   bool
	}{{m.Bugs, true}, {m.Clean, false}} {
		for i := range list.cases {
			c := &list.cases[i]
			if err := checkCase(ctx, g, c, list.bug, seen); err != nil {
				return nil, fmt.Errorf("%s: pull request #%d: %w", name, c.PR, err)
			}
		}
	}
	return &m, nil
}

func checkCase(ctx context.Context, g Git, c *Case, bug bool, seen map[int]bool) error {
	switch {
	case c.PR <= 0:
		return fmt.Errorf("\"pr\" must be the pull request's number, above zero")
	case seen[c.PR]:
		return fmt.Errorf("listed twice: keep one")
	case !reFullID.MatchString(c.Base) || !reFullID.MatchString(c.Head):
		return fmt.Errorf("\"base\" and \"head\" must be full commit IDs (40 hexadecimal digits)")
	case bug && len(c.Buggy) == 0:
		return fmt.Errorf("a bug case lists no \"buggy\" line: move it to \"clean\" or name the lines")
	case !bug && len(c.Buggy) > 0:
		return fmt.Errorf("a clean case lists \"buggy\" lines: move it to \"bugs\"")
	}
	seen[c.PR] = true
	for _, l := range c.Buggy {
		if l.File == "" || l.Line <= 0 {
			return fmt.Errorf("a \"buggy\" line needs a \"file\" and a \"line\" above zero")
		}
	}
	for _, id := range []string{c.Base, c.Head} {
		if _, err := g.Run(ctx, "cat-file", "-e", id+"^{commit}"); err != nil {
			return fmt.Errorf("%s is no commit of this repository: run in a checkout that has it (git fetch)", id)
		}
	}
	if c.Merged.IsZero() {
		at := c.Merge
		if !reFullID.MatchString(at) {
			at = c.Head
		}
		out, err := g.Run(ctx, "show", "-s", "--format=%ct", at)
		if err != nil {
			return err
		}
		sec, _ := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
		c.Merged = time.Unix(sec, 0).UTC()
	}
	return nil
}

// Keep keeps the cases merged after after (zero: all), at most limit bug
// cases and limit clean ones, the most recently merged, in their order.
func (m *Mined) Keep(after time.Time, limit int) {
	m.Bugs, m.Clean = newest(m.Bugs, after, limit), newest(m.Clean, after, limit)
}

func newest(cs []Case, after time.Time, limit int) []Case {
	cs = slices.DeleteFunc(slices.Clone(cs), func(c Case) bool { return !after.IsZero() && !c.Merged.After(after) })
	if len(cs) <= limit {
		return cs
	}
	byTime := slices.Clone(cs)
	slices.SortStableFunc(byTime, func(a, b Case) int { return b.Merged.Compare(a.Merged) })
	keep := map[int]bool{}
	for _, c := range byTime[:limit] {
		keep[c.PR] = true
	}
	return slices.DeleteFunc(cs, func(c Case) bool { return !keep[c.PR] })
}
