// Package tokens counts the tokens of model calls: one type for the
// providers' reports, the budget, the reports and the state file.
package tokens

import "fmt"

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

// Dollars shows an estimated cost: "~$0.0123", "~$1.25".
func Dollars(c float64) string {
	if c >= 1 {
		return fmt.Sprintf("~$%.2f", c)
	}
	return fmt.Sprintf("~$%.4f", c)
}

// Spent is u in tokens, and the cost when the model has a price.
func Spent(u Usage, cost float64) string {
	s := u.String() + " tokens"
	if cost > 0 {
		s += ", " + Dollars(cost)
	}
	return s
}
