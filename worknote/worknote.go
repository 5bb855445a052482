// Package worknote is an agent's working note (docs/architecture.md, The
// agents): what it did, the files it touched, its last verification and
// its own notes, sent with every request within a byte cap. A fix's work
// in progress keeps its content (state.WIP) to resume from.
package worknote

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ocdx/gh-ocdx/internal/text"
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

// DefaultCap bounds the rendered note.
const DefaultCap = 4 << 10

const (
	maxNoteEntry = 400  // one step or note
	maxVerify    = 1000 // the last verification summary
)

// New returns a note starting from w (the zero WIP for a fresh run).
// capBytes <= 0 takes DefaultCap.
func New(w WIP, capBytes int) *Note {
	if capBytes <= 0 {
		capBytes = DefaultCap
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
	n.update(func(w *WIP) { w.Done = append(w.Done, text.Cut(step, maxNoteEntry)) })
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
	n.update(func(w *WIP) { w.LastVerification = text.Cut(summary, maxVerify) })
}

// Add records a note of the model's own (the `note` tool).
func (n *Note) Add(note string) {
	n.update(func(w *WIP) { w.Notes = append(w.Notes, text.Cut(note, maxNoteEntry)) })
}

// WIP returns a copy of the note's content.
func (n *Note) WIP() WIP {
	n.mu.Lock()
	defer n.mu.Unlock()
	return WIP{Done: slices.Clone(n.w.Done), DoneOmitted: n.w.DoneOmitted, Files: slices.Clone(n.w.Files),
		LastVerification: n.w.LastVerification, Notes: slices.Clone(n.w.Notes)}
}

// Room is how many bytes the rendered note may still grow before its cap.
func (n *Note) Room() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return max(n.cap-len(render(n.w)), 0)
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
			n.w.LastVerification = text.Cut(n.w.LastVerification, n.cap/4)
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
