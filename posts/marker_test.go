package posts

import "testing"

// A post shown before it is posted reads as a person will read it: the
// marker and the tags, hidden on GitHub, are left out.
func TestVisibleLeavesOutTheHiddenLines(t *testing.T) {
	body := Marker + "\n" + RunTag("r1", 1, "reply") + "\nThe finding stands.\n\n<!-- a hidden note -->\nSee line 3."
	if got, want := Visible(body), "The finding stands.\n\nSee line 3."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
