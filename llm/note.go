package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// WIP is the working note's content: what was done, files
// touched, the last verification and the model's own notes. It is what a
// resumed run needs, so it is plain data the state package can store.
type WIP struct {
	Done             []string `json:"done,omitempty"`
	DoneOmitted      int      `json:"doneOmitted,omitempty"`
	Files            []string `json:"filesModified,omitempty"`
	LastVerification string   `json:"lastVerification,omitempty"`
	Notes            []string `json:"notes,omitempty"`
}

// Note is the working note of one agent run. The loop records each tool
// call in it; tools and the caller add files, verification results and the
// model's notes. It is sent with every request and kept within a byte cap,
// dropping the oldest entries first, so it never grows the context.
type Note struct {
	mu  sync.Mutex
	w   WIP
	cap int
}

// DefaultNoteCap bounds the rendered note.
const DefaultNoteCap = 4 << 10

const (
	maxNoteEntry = 400  // one step or note
	maxVerify    = 1000 // the last verification summary
)

// NewNote returns a note starting from w (the zero WIP for a fresh run).
// capBytes <= 0 takes DefaultNoteCap.
func NewNote(w WIP, capBytes int) *Note {
	if capBytes <= 0 {
		capBytes = DefaultNoteCap
	}
	n := &Note{cap: capBytes, w: WIP{
		Done: slices.Clone(w.Done), DoneOmitted: w.DoneOmitted, Files: slices.Clone(w.Files),
		LastVerification: w.LastVerification, Notes: slices.Clone(w.Notes),
	}}
	n.mu.Lock()
	n.trim()
	n.mu.Unlock()
	return n
}

// Did records a step.
func (n *Note) Did(step string) {
	n.update(func(w *WIP) { w.Done = append(w.Done, clip(step, maxNoteEntry)) })
}

// Touched records files the agent changed.
func (n *Note) Touched(paths ...string) {
	n.update(func(w *WIP) {
		for _, p := range paths {
			if !slices.Contains(w.Files, p) {
				w.Files = append(w.Files, p)
			}
		}
	})
}

// Verified records the outcome of the last verification run.
func (n *Note) Verified(summary string) {
	n.update(func(w *WIP) { w.LastVerification = clip(summary, maxVerify) })
}

// Add records a note of the model's own (the `note` tool).
func (n *Note) Add(text string) {
	n.update(func(w *WIP) { w.Notes = append(w.Notes, clip(text, maxNoteEntry)) })
}

// NoteTool is the agents' `note` tool: the model keeps a decision
// or its next step in the working note, which outlives the tool results
// that drop out of the context.
func NoteTool(n *Note) Tool {
	return Tool{
		Name:        "note",
		Description: "Record a decision or your next step in the working note. The note is shown on every turn, while older tool results are dropped.",
		Schema:      json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"the decision or next step, one or two sentences"}},"required":["text"]}`),
		Parallel:    true,
		Run: func(_ context.Context, args json.RawMessage) (string, error) {
			var a struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(args, &a); err != nil || strings.TrimSpace(a.Text) == "" {
				return "", errors.New(`note needs {"text": "..."}`)
			}
			n.Add(strings.TrimSpace(a.Text))
			return "noted", nil
		},
	}
}

// WIP returns a copy of the note's content.
func (n *Note) WIP() WIP {
	n.mu.Lock()
	defer n.mu.Unlock()
	return WIP{Done: slices.Clone(n.w.Done), DoneOmitted: n.w.DoneOmitted, Files: slices.Clone(n.w.Files),
		LastVerification: n.w.LastVerification, Notes: slices.Clone(n.w.Notes)}
}

// String renders the note as sent to the model.
func (n *Note) String() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return render(n.w)
}

func (n *Note) update(f func(*WIP)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	f(&n.w)
	n.trim()
}

// trim drops the oldest steps, then the oldest notes, then files, until
// the rendered note fits the cap.
func (n *Note) trim() {
	for len(render(n.w)) > n.cap {
		switch {
		case len(n.w.Done) > 0:
			n.w.Done = n.w.Done[1:]
			n.w.DoneOmitted++
		case len(n.w.Notes) > 1:
			n.w.Notes = n.w.Notes[1:]
		case len(n.w.Files) > 0:
			n.w.Files = n.w.Files[1:]
		default:
			n.w.Notes = nil
			n.w.LastVerification = clip(n.w.LastVerification, n.cap/4)
			return
		}
	}
}

func render(w WIP) string {
	if len(w.Done) == 0 && w.DoneOmitted == 0 && len(w.Files) == 0 && w.LastVerification == "" && len(w.Notes) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Working note\n")
	b.WriteString("Kept by gh-ocdx across turns; older tool calls and results are no longer shown, this note is what remains of them.\n")
	if len(w.Done) > 0 || w.DoneOmitted > 0 {
		b.WriteString("\nSteps so far (oldest first):\n")
		if w.DoneOmitted > 0 {
			fmt.Fprintf(&b, "- (%d earlier steps)\n", w.DoneOmitted)
		}
		for _, s := range w.Done {
			b.WriteString("- " + s + "\n")
		}
	}
	if len(w.Files) > 0 {
		b.WriteString("\nFiles modified: " + strings.Join(w.Files, ", ") + "\n")
	}
	if w.LastVerification != "" {
		b.WriteString("\nLast verification: " + w.LastVerification + "\n")
	}
	if len(w.Notes) > 0 {
		b.WriteString("\nYour notes:\n")
		for _, s := range w.Notes {
			b.WriteString("- " + s + "\n")
		}
	}
	return b.String()
}

// clip cuts s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "…[cut]"
	if n <= len(mark) {
		return cutRunes(s, n)
	}
	return cutRunes(s, n-len(mark)) + mark
}

func cutRunes(s string, n int) string {
	for n > 0 && n < len(s) && !utf8RuneStart(s[n]) {
		n--
	}
	if n > len(s) {
		n = len(s)
	}
	return s[:n]
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
