package posts

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
)

// A tag's value comes from outside (a comment's id, a finding's ID as a
// ledger named it): whatever it holds, the tag stays one hidden comment,
// which nothing in the value closes.
func TestTagsStayOneHiddenComment(t *testing.T) {
	for _, tag := range []func(string) string{AnswerTag, ConcededTag, CommandTag, FixedTag, DescriptionTag} {
		for _, v := range []string{"8101", "QUAL-0badf00d", "x --> <b>shown</b> <!-- y", "a->b", "--->"} {
			got := tag(v)
			body := strings.TrimSuffix(strings.TrimPrefix(got, "<!-- "), " -->")
			if !strings.HasPrefix(got, "<!-- ocdx:") || strings.Contains(body, "--") || strings.Contains(body, ">") {
				t.Errorf("tag of %q: %q", v, got)
			}
		}
	}
	if AnswerTag("8101") != "<!-- ocdx:answered=8101 -->" || safe("a--b>c") != "a%2D%2Db%3Ec" {
		t.Errorf("the tags gh-ocdx has written so far changed: %q %q", AnswerTag("8101"), safe("a--b>c"))
	}
}

// Other versions of gh-ocdx read these tags back from GitHub: each is
// pinned byte for byte as gh-ocdx has written it, and read back as written.
func TestTagsAreTheWireFormat(t *testing.T) {
	line := 12
	f := finding.Finding{ID: "QUAL-0badf00d", Category: "quality", Title: "Leaks a <file> & more", File: "a.go", Line: &line, Priority: "P1", Agreement: "2/3"}
	for got, want := range map[string]string{
		Marker: "<!-- pr-review-loop-marker -->",
		RunTag("20261124T101112-a1b2c3", 2, "review"): "<!-- ocdx:run=20261124T101112-a1b2c3 round=2 kind=review -->",
		AnswerTag("8101"):            "<!-- ocdx:answered=8101 -->",
		ConcededTag("QUAL-0badf00d"): "<!-- ocdx:conceded=QUAL-0badf00d -->",
		CommandTag("42"):             "<!-- ocdx:command=42 -->",
		FixedTag("QUAL-0badf00d"):    "<!-- ocdx:fixed=QUAL-0badf00d -->",
		ThreadTag(f):                 "<!-- ocdx:finding=QUAL-0badf00d category=quality title=Leaks+a+%3Cfile%3E+%26+more priority=P1 agreement=2/3 -->",
		UpdateTag(f):                 "<!-- ocdx:finding-update=QUAL-0badf00d priority=P1 agreement=2/3 -->",
		ThreadTag(finding.Finding{ID: "QUAL-0badf00d", Category: "quality", Title: "Old"}): "<!-- ocdx:finding=QUAL-0badf00d category=quality title=Old -->",
		Refusal{URL: "https://github.com/o/r/pull/7#issuecomment-42"}.Tag():                "<!-- ocdx:refused https://github.com/o/r/pull/7#issuecomment-42 -->",
		Refusal{By: "eve", IDs: []string{"SEC-b0bf205b", "QUAL-0badf00d"}}.Tag():           "<!-- ocdx:refused eve SEC-b0bf205b QUAL-0badf00d -->",
		CommandLine(CmdDismiss, []string{"QUAL-0badf00d", "SEC-b0bf205b"}, "a test key"):   "/ocdx dismiss QUAL-0badf00d SEC-b0bf205b a test key",
		DescriptionTag("0123456789abcdef0123456789abcdef01234567"):                         "<!-- ocdx:description=0123456789abcdef0123456789abcdef01234567 -->",
		BodyStart: "<!-- ocdx:description:start -->",
		BodyEnd:   "<!-- ocdx:description:end -->",
	} {
		if got != want {
			t.Errorf("%s, want %s", got, want)
		}
	}
	tagged, ok := readThreadTag("text\n" + ThreadTag(f) + "\nmore")
	if !ok || tagged != (threadTagged{ID: f.ID, Category: f.Category, Title: f.Title, Priority: "P1", Agreement: "2/3"}) {
		t.Errorf("the thread tag read back: %+v, %v", tagged, ok)
	}
	if p, a, ok := readUpdateTag(UpdateTag(f)); !ok || p != "P1" || a != "2/3" {
		t.Errorf("the update tag read back: %s %s %v", p, a, ok)
	}
}

// A refused command's tag as versions before the one escaping rule wrote
// it (only "--" escaped) still answers the command.
func TestARefusedTagOfAnEarlierVersionStillAnswers(t *testing.T) {
	const url = "https://x/pull/7#c--1>2"
	legacy := Marker + "\n<!-- ocdx:refused https://x/pull/7#c%2D%2D1>2 -->\n@eve: no."
	if (Refusal{URL: url}).Tag() == "<!-- ocdx:refused https://x/pull/7#c%2D%2D1>2 -->" {
		t.Fatal("the key does not tell the two escapings apart")
	}
	pr := &github.PullRequest{Viewer: "ocdx-bot", Comments: []github.Comment{{Author: "ocdx-bot", Body: legacy}}}
	if !CommandAnswered(pr, pr.Comments, "", url) {
		t.Error("an answer an earlier version wrote is not recognised")
	}
}

// A thread tag's title and category come from a model, a refused tag's
// URL and IDs from a comment: whatever they hold, the tag stays one hidden
// comment, and a thread tag reads back what it was given.
func TestTagsOfOutsideTextStayOneHiddenComment(t *testing.T) {
	for _, v := range []string{"x --> <b>shown</b> <!-- y", "a->b", "--->", "--!>", "50% & more"} {
		f := finding.Finding{ID: "QUAL-0badf00d", Category: v, Title: v, Priority: "P2"}
		for _, tag := range []string{ThreadTag(f), UpdateTag(f), Refusal{URL: v}.Tag(), Refusal{By: v, IDs: []string{v}}.Tag()} {
			body := strings.TrimSuffix(strings.TrimPrefix(tag, "<!-- ocdx:"), " -->")
			if !strings.HasPrefix(tag, "<!-- ocdx:") || strings.Contains(body, ">") || strings.Contains(body, "--!") {
				t.Errorf("tag of %q: %q", v, tag)
			}
		}
		if got, ok := readThreadTag(ThreadTag(f)); !ok || got.Title != v || got.Category != v {
			t.Errorf("the thread tag of %q read back: %+v", v, got)
		}
	}
}

// A PR's body without gh-ocdx's description is the author's text, byte
// for byte; an unclosed start marker is the author's too.
func TestAuthorBody(t *testing.T) {
	for body, want := range map[string]string{
		"a\r\nb": "a\r\nb",
		"a\n\n" + BodyStart + "\ndesc\n" + BodyEnd + "\nz": "a\n\n\nz",
		"a " + BodyStart + " b":                            "a " + BodyStart + " b",
		BodyEnd + " a " + BodyStart + "\nx\n" + BodyEnd:    BodyEnd + " a ",
	} {
		if got := AuthorBody(body); got != want {
			t.Errorf("AuthorBody(%q) = %q, want %q", body, got, want)
		}
	}
}
