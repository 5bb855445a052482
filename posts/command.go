package posts

import (
	"slices"
	"strings"
)

// The /ocdx commands people write in a PR's comments (docs/architecture.md,
// Commands): one grammar, read by ParseCommand and written by CommandLine.
// Only their verb, IDs and a dismissal's reason are read: nothing else a
// comment says runs.
const (
	CmdReview  = "review"
	CmdFix     = "fix"
	CmdAsk     = "ask"
	CmdDismiss = "dismiss"
	CmdRestore = "restore"
)

// Verbs are the commands gh-ocdx knows.
var Verbs = []string{CmdReview, CmdFix, CmdAsk, CmdDismiss, CmdRestore}

// Command is an /ocdx command read from a comment.
type Command struct {
	Verb     string   // one of Verbs, or what the comment named
	Question string   // ask: the rest of the comment
	IDs      []string // dismiss, restore: the finding IDs on its first line
	// AsWritten says the first line starts "/ocdx <verb>" as CommandLine
	// writes it (one space, the verb in lower case): a dismissal or restore
	// counts only so written, on every version of gh-ocdx.
	AsWritten bool
	// Reason is what a dismissal's first line says besides its verb and
	// IDs: one line, capped (LedgerReason); "" when it gives none.
	Reason string
}

// Known reports whether c's verb is one gh-ocdx knows.
func (c Command) Known() bool { return slices.Contains(Verbs, c.Verb) }

// ParseCommand reads a comment that starts with "/ocdx".
func ParseCommand(body string) (Command, bool) {
	s := strings.TrimSpace(body)
	rest, ok := strings.CutPrefix(s, "/ocdx")
	if !ok || rest != "" && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '\n' && rest[0] != '\r' {
		return Command{}, false
	}
	first, more, _ := strings.Cut(rest, "\n")
	fields := strings.Fields(first)
	if len(fields) == 0 {
		return Command{Verb: ""}, true
	}
	c := Command{Verb: strings.ToLower(fields[0])}
	switch c.Verb {
	case CmdAsk:
		q := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(first), fields[0]))
		c.Question = strings.TrimSpace(q + "\n" + more)
	case CmdDismiss, CmdRestore:
		var words []string
		for _, f := range fields[1:] {
			switch {
			case !ValidLedgerID(f):
				words = append(words, f)
			case !slices.Contains(c.IDs, f):
				c.IDs = append(c.IDs, f)
			}
		}
		line, _, _ := strings.Cut(s, "\n")
		after, exact := strings.CutPrefix(strings.TrimSpace(line), "/ocdx "+c.Verb)
		c.AsWritten = exact && (after == "" || after[0] == ' ' || after[0] == '\t')
		if c.AsWritten && c.Verb == CmdDismiss {
			c.Reason = LedgerReason(strings.Join(words, " "))
		}
	}
	return c, true
}

// findingCommand is the IDs of a /ocdx verb command on findings that body
// holds as written (Command.AsWritten), and its reason.
func findingCommand(body, verb string) (ids []string, reason string, ok bool) {
	c, ok := ParseCommand(body)
	if !ok || c.Verb != verb || !c.AsWritten {
		return nil, "", false
	}
	return c.IDs, c.Reason, true
}

// CommandLine is the first line of a /ocdx command on findings (dismiss,
// restore) as gh ocdx dismiss and gh ocdx restore post it: the verb, the
// IDs and a dismissal's reason.
func CommandLine(verb string, ids []string, reason string) string {
	line := "/ocdx " + verb + " " + strings.Join(ids, " ")
	if reason != "" {
		line += " " + reason
	}
	return line
}
