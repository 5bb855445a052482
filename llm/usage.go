package llm

import "github.com/ocdx/gh-ocdx/internal/tokens"

// Usage counts tokens as the providers report them (tokens.Usage: the one
// type the state file stores too).
type Usage = tokens.Usage
