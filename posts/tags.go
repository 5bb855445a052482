// Package posts owns gh-ocdx's footprint on a PR (docs/architecture.md,
// The footprint): the marker and the hidden tags its posts carry, written
// and read with one escaping rule; which posts are its own; the /ocdx
// grammar; the one permission rule; and the ledger. Other versions of
// gh-ocdx read all of it back from GitHub: what it writes does not change.
package posts

import (
	"cmp"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/finding"
)

// safe keeps a hidden tag's value from closing the comment: the one
// escaping rule of every tag whose value comes from outside.
func safe(s string) string { return strings.NewReplacer("--", "%2D%2D", ">", "%3E").Replace(s) }

// AnswerTag marks gh-ocdx's answer to a person's reply in one of its
// threads (gh ocdx reply), by the reply's key (github.ThreadComment.Key):
// no run answers a reply twice.
func AnswerTag(replyID string) string { return "<!-- ocdx:answered=" + safe(replyID) + " -->" }

// ConcededTag marks gh-ocdx's answer that conceded the thread's finding:
// from then on the ledger says it is disputed (docs/architecture.md,
// Conversation). It keeps blocking until someone with write permission
// dismisses it; a P0 or SEC- finding is never conceded.
func ConcededTag(id string) string { return "<!-- ocdx:conceded=" + safe(id) + " -->" }

// CommandTag marks gh-ocdx's answer to the comment with the database id
// (an /ocdx command, or a reply a command run was started for), whichever
// verb answers it: command, or the loop refusing a dismissal or restore.
// No run answers a comment twice.
func CommandTag(commentID string) string { return "<!-- ocdx:command=" + safe(commentID) + " -->" }

// FixedTag marks gh-ocdx's reply that resolved the thread of a finding
// fixed or resolved: like every post of gh-ocdx's, it says what it is, and
// a thread someone opened again after it gets no second one.
func FixedTag(id string) string { return "<!-- ocdx:fixed=" + safe(id) + " -->" }

// ThreadTag names the finding of a thread gh-ocdx opened, with the
// priority and agreement the comment says, so that a later round replies
// when they change. The category and title are query-escaped: they come
// from a model and must not close the HTML comment.
func ThreadTag(f finding.Finding) string {
	return fmt.Sprintf("<!-- ocdx:finding=%s category=%s title=%s%s -->", f.ID, url.QueryEscape(f.Category), url.QueryEscape(f.Title), said(f))
}

// UpdateTag marks gh-ocdx's reply that a finding's priority or agreement
// changed: the thread's newest one says what the thread last said.
func UpdateTag(f finding.Finding) string {
	return fmt.Sprintf("<!-- ocdx:finding-update=%s%s -->", f.ID, said(f))
}

func said(f finding.Finding) string {
	if !slices.Contains(finding.Priorities, f.Priority) {
		return ""
	}
	return fmt.Sprintf(" priority=%s agreement=%s", f.Priority, cmp.Or(f.Agreement, "-"))
}

// Tags of threads opened before they said priority and agreement have neither.
var (
	reThreadTag = regexp.MustCompile(`<!-- ocdx:finding=([A-Z]+-[0-9a-f]{8}) category=(\S*) title=(\S*)(?: priority=(P[0-3]) agreement=([0-9]+/[0-9]+|-))? -->`)
	reUpdateTag = regexp.MustCompile(`<!-- ocdx:finding-update=[A-Z]+-[0-9a-f]{8} priority=(P[0-3]) agreement=([0-9]+/[0-9]+|-) -->`)
)

// threadTagged is what a ThreadTag says: its finding's ID, category and title,
// and the priority and agreement ("" in the tags of threads opened before
// they said them). A category or title that does not unescape is "".
type threadTagged struct {
	ID, Category, Title, Priority, Agreement string
}

// readThreadTag reads the ThreadTag in body.
func readThreadTag(body string) (threadTagged, bool) {
	m := reThreadTag.FindStringSubmatch(body)
	if m == nil {
		return threadTagged{}, false
	}
	cat, _ := url.QueryUnescape(m[2])
	title, _ := url.QueryUnescape(m[3])
	return threadTagged{ID: m[1], Category: cat, Title: title, Priority: m[4], Agreement: m[5]}, true
}

// readUpdateTag reads the priority and agreement of the UpdateTag in body.
func readUpdateTag(body string) (priority, agreement string, ok bool) {
	u := reUpdateTag.FindStringSubmatch(body)
	if u == nil {
		return "", "", false
	}
	return u[1], u[2], true
}

// answerPrefix starts every AnswerTag, whatever reply it answers.
const answerPrefix = "<!-- ocdx:answered="

// Tag marks gh-ocdx's answer to the refused command r by the
// command's URL (by who and the IDs when GitHub gave none), as earlier
// versions' loops wrote and read it: an answer carries it beside
// CommandTag, so that those versions do not answer the command again.
func (r Refusal) Tag() string { return refusedTag(r, safe) }

// legacyRefusedTag is Refusal.Tag as versions before the one escaping rule
// wrote it: only "--" escaped. It differs only for a key holding ">".
func legacyRefusedTag(r Refusal) string {
	return refusedTag(r, func(s string) string { return strings.ReplaceAll(s, "--", "%2D%2D") })
}

func refusedTag(r Refusal, escape func(string) string) string {
	key := cmp.Or(r.URL, r.By+" "+strings.Join(r.IDs, " "))
	return "<!-- ocdx:refused " + escape(key) + " -->"
}

// DescriptionTag marks gh-ocdx's description of a PR (gh ocdx describe),
// by the head it describes: one such comment per PR, edited in place by a
// rerun (docs/architecture.md, Describe).
func DescriptionTag(head string) string { return descriptionPrefix + safe(head) + " -->" }

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

// DescriptionBlock is where gh-ocdx's description sits in a PR's body:
// from the last BodyStart to the BodyEnd after it (describe writes its
// block last, and its text holds no marker, being inert); ok is false
// when there is none.
func DescriptionBlock(body string) (start, end int, ok bool) {
	i := strings.LastIndex(body, BodyStart)
	if i < 0 {
		return 0, 0, false
	}
	j := strings.Index(body[i:], BodyEnd)
	if j < 0 {
		return 0, 0, false
	}
	return i, i + j + len(BodyEnd), true
}

// AuthorBody is a PR's body without gh-ocdx's description: what a model
// reads as the author's words, never gh-ocdx's own.
func AuthorBody(body string) string {
	if i, j, ok := DescriptionBlock(body); ok {
		return body[:i] + body[j:]
	}
	return body
}
