package review

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncateDiff(t *testing.T) {
	small := "diff --git a/x b/x\n+ok\n"
	if got, cut := TruncateDiff([]byte(small), true); got != small || cut {
		t.Errorf("a small complete diff must pass unchanged, got %q cut=%v", got, cut)
	}
	if got, cut := TruncateDiff([]byte(small), false); !cut || !strings.HasSuffix(got, DiffTruncatedNotice) || !strings.HasPrefix(got, small) {
		t.Errorf("an incomplete source must carry the notice: %q", got)
	}

	line := "+ ünïcödé line of the diff that goes on\n"
	big := strings.Repeat(line, 3*DiffLimit/len(line))
	got, cut := TruncateDiff([]byte(big), true)
	if !cut || !strings.HasSuffix(got, "\n"+DiffTruncatedNotice) {
		t.Fatalf("a big diff must end with the notice on its own line")
	}
	body := strings.TrimSuffix(got, DiffTruncatedNotice)
	if len(body) > DiffLimit || !utf8.ValidString(body) || !strings.HasSuffix(body, line) {
		t.Errorf("kept %d bytes, valid UTF-8 %v, ends on a whole line %v", len(body), utf8.ValidString(body), strings.HasSuffix(body, line))
	}

	oneLine := strings.Repeat("é", DiffLimit) // no line break to cut at
	got, _ = TruncateDiff([]byte(oneLine), true)
	if body := strings.TrimSuffix(got, "\n"+DiffTruncatedNotice); !utf8.ValidString(body) || len(body) > DiffLimit {
		t.Errorf("a cut inside a long line must stay valid UTF-8 within the limit")
	}
}
