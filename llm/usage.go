package llm

import (
	"fmt"
	"sort"
	"sync"
)

// Usage counts tokens as the providers report them.
type Usage struct {
	Calls  int   `json:"calls"`
	Input  int64 `json:"inputTokens"`                 // all input, cached included
	Cached int64 `json:"cachedInputTokens,omitempty"` // of Input, read from the provider's prompt cache
	Output int64 `json:"outputTokens"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{Calls: u.Calls + v.Calls, Input: u.Input + v.Input, Cached: u.Cached + v.Cached, Output: u.Output + v.Output}
}

// String is how reports and progress lines show usage:
// "12034 in (9000 cached) / 520 out".
func (u Usage) String() string {
	if u.Cached > 0 {
		return fmt.Sprintf("%d in (%d cached) / %d out", u.Input, u.Cached, u.Output)
	}
	return fmt.Sprintf("%d in / %d out", u.Input, u.Output)
}

// Tally sums usage per role, for a round or a run; reviewers running in
// parallel may add to one Tally.
type Tally struct {
	mu     sync.Mutex
	byRole map[string]Usage
}

// Add adds u to role's sum.
func (t *Tally) Add(role string, u Usage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byRole == nil {
		t.byRole = map[string]Usage{}
	}
	t.byRole[role] = t.byRole[role].Add(u)
}

// ByRole returns a copy of the per-role sums.
func (t *Tally) ByRole() map[string]Usage {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string]Usage, len(t.byRole))
	for r, u := range t.byRole {
		out[r] = u
	}
	return out
}

// Roles lists the roles with usage, sorted.
func (t *Tally) Roles() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]string, 0, len(t.byRole))
	for r := range t.byRole {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// Total sums all roles.
func (t *Tally) Total() Usage {
	t.mu.Lock()
	defer t.mu.Unlock()
	var sum Usage
	for _, u := range t.byRole {
		sum = sum.Add(u)
	}
	return sum
}
