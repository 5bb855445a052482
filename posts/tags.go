// Package posts owns gh-ocdx's footprint on a PR: the hidden tags its
// posts carry, written and read with one escaping rule
// (docs/architecture.md, Posting).
package posts

import "strings"

// Safe keeps a hidden tag's value from closing the comment: the one
// escaping rule of every tag whose value comes from outside.
func Safe(s string) string { return strings.NewReplacer("--", "%2D%2D", ">", "%3E").Replace(s) }

// AnswerTag marks gh-ocdx's answer to a person's reply in one of its
// threads (gh ocdx reply), by the reply's database id: no run answers a
// reply twice.
func AnswerTag(replyID string) string { return "<!-- ocdx:answered=" + Safe(replyID) + " -->" }

// ConcededTag marks gh-ocdx's answer that conceded the thread's finding:
// from then on the ledger says it is disputed (docs/architecture.md,
// Conversation). It keeps blocking until someone with write permission
// dismisses it; a P0 or SEC- finding is never conceded.
func ConcededTag(id string) string { return "<!-- ocdx:conceded=" + Safe(id) + " -->" }

// CommandTag marks gh-ocdx's answer to the comment with the database id
// (an /ocdx command, or a reply a command run was started for), whichever
// verb answers it: command, or the loop refusing a dismissal or restore.
// No run answers a comment twice.
func CommandTag(commentID string) string { return "<!-- ocdx:command=" + Safe(commentID) + " -->" }

// FixedTag marks gh-ocdx's reply that resolved the thread of a finding
// fixed or resolved: like every post of gh-ocdx's, it says what it is, and
// a thread someone opened again after it gets no second one.
func FixedTag(id string) string { return "<!-- ocdx:fixed=" + Safe(id) + " -->" }

// DescriptionTag marks gh-ocdx's description of a PR (gh ocdx describe),
// by the head it describes: one such comment per PR, edited in place by a
// rerun (docs/architecture.md, Describe).
func DescriptionTag(head string) string { return descriptionPrefix + Safe(head) + " -->" }

const descriptionPrefix = "<!-- ocdx:description="

// IsDescription reports whether body carries a DescriptionTag; whose
// comment it is, the caller judges.
func IsDescription(body string) bool { return strings.Contains(body, descriptionPrefix) }

// The markers around gh-ocdx's description in a PR's body (describe
// --edit-body): what lies outside them is the author's.
const (
	BodyStart = "<!-- ocdx:description:start -->"
	BodyEnd   = "<!-- ocdx:description:end -->"
)
