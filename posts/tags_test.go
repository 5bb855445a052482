package posts

import (
	"strings"
	"testing"
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
	if AnswerTag("8101") != "<!-- ocdx:answered=8101 -->" || Safe("a--b>c") != "a%2D%2Db%3Ec" {
		t.Errorf("the tags gh-ocdx has written so far changed: %q %q", AnswerTag("8101"), Safe("a--b>c"))
	}
}
