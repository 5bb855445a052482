package posts

import (
	"testing"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
)

// A concession is made to the author of the newest reply gh-ocdx's
// conceding answer names: not to a reply it did not answer, nor to
// whoever wrote after it.
func TestConcessionsNameWhoseReplyWasConceded(t *testing.T) {
	f := finding.Finding{ID: "QUAL-1a2b3c4d", Priority: "P2", Category: "quality", Title: "Leak"}
	own := func(body string) github.ThreadComment {
		return github.ThreadComment{Author: "ocdx-bot", Body: Marker + "\n" + body}
	}
	cs := []github.ThreadComment{
		own(ThreadTag(f)),
		{DatabaseID: "11", Author: "octocat", Body: "it is intended"},
		{DatabaseID: "12", Author: "mona", Body: "yes, the pool is bounded elsewhere"},
		{DatabaseID: "13", Author: "rita", Body: "a reply nobody answered"},
		own(AnswerTag("11") + "\n" + AnswerTag("12") + "\n" + ConcededTag(f.ID) + "\nYou're right."),
		{DatabaseID: "14", Author: "eve", Body: "after the concession"},
	}
	pr := &github.PullRequest{Viewer: "ocdx-bot", Threads: []github.ReviewThread{{ID: "T1", Comments: cs}}}
	if got := Concessions(pr); len(got) != 1 || got[0] != (Concession{ID: f.ID, To: "mona"}) {
		t.Errorf("concessions %+v, want %s to mona", got, f.ID)
	}
	if got := IDs(Concessions(pr)); len(got) != 1 || got[0] != f.ID {
		t.Errorf("disputed %v", got)
	}
}
