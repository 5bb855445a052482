package eval

import (
	"fmt"
	"testing"
	"time"
)

// --limit keeps the most recently merged cases, in their order; --after
// leaves out those merged before it first.
func TestKeepNewestCases(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2025, 1, d, 0, 0, 0, 0, time.UTC) }
	cs := []Case{{PR: 1, Merged: day(5)}, {PR: 2, Merged: day(1)}, {PR: 3, Merged: day(9)}, {PR: 4, Merged: day(3)}}
	pick := func(got []Case) (prs []int) {
		for _, c := range got {
			prs = append(prs, c.PR)
		}
		return prs
	}
	m := &Mined{Bugs: cs, Clean: cs[:1]}
	m.Keep(time.Time{}, 2)
	if got := pick(m.Bugs); fmt.Sprint(got) != "[1 3]" || len(m.Clean) != 1 {
		t.Errorf("--limit 2: %v, want [1 3]", got)
	}
	m = &Mined{Bugs: cs, Clean: cs}
	m.Keep(day(2), 10)
	if got := pick(m.Bugs); fmt.Sprint(got) != "[1 3 4]" || len(m.Clean) != 3 {
		t.Errorf("--after: %v, want [1 3 4]", got)
	}
	if len(cs) != 4 || cs[1].PR != 2 {
		t.Errorf("the list given was changed: %v", pick(cs))
	}
}
