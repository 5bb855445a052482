package text

import (
	"bytes"
	"testing"
)

func TestInert(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, ünïcödé, 日本\n\tindented":     "plain text, ünïcödé, 日本\n\tindented",
		"conceal \x1b[8mhidden\x1b[0m":            "conceal ^[[8mhidden^[[0m",
		"title \x1b]0;pwned\x07 end":              "title ^[]0;pwned^G end",
		"erase\x1b[2K\x1b[1A line":                "erase^[[2K^[[1A line",
		"crlf\r\nline":                            "crlf\nline",
		"overwrite\rPOST":                         "overwritePOST",
		"nul\x00 bs\x08 del\x7f":                  "nul^@ bs^H del^?",
		"c1 csi \u009b31m and nel \u0085":         "c1 csi <U+009B>31m and nel <U+0085>",
		"bidi \u202eevil\u202c \u2066iso\u2069":   "bidi <U+202E>evil<U+202C> <U+2066>iso<U+2069>",
		"raw c1 byte \x9b31m, bad utf-8 \xff end": "raw c1 byte \ufffd31m, bad utf-8 \ufffd end",
	} {
		if got := Inert(in); got != want {
			t.Errorf("Inert(%q) = %q, want %q", in, got, want)
		}
	}
	for _, s := range []string{"", "ascii", "naïve — “quotes” 🙂\n"} {
		if Inert(s) != s {
			t.Errorf("clean text changed: %q", s)
		}
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	n, err := Writer{W: &b}.Write([]byte("a\x1b[8mb"))
	if err != nil || n != 6 || b.String() != "a^[[8mb" {
		t.Errorf("Write = %d, %v; wrote %q", n, err, b.String())
	}
}

func TestShorteners(t *testing.T) {
	if got := ShortOID("0123456789abcdef"); got != "0123456" {
		t.Errorf("ShortOID: %q", got)
	}
	if got := ShortOID("abc"); got != "abc" {
		t.Errorf("ShortOID of a short id: %q", got)
	}
	if got := FirstLine("summary\nbody\n"); got != "summary" {
		t.Errorf("FirstLine: %q", got)
	}
	if got := OneLine(" a\n\tb  c \n"); got != "a b c" {
		t.Errorf("OneLine: %q", got)
	}
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{{"short", 10, "short"}, {"abcdef", 3, "abc…"}, {"aé", 2, "a…"}, {"日本", 4, "日…"}} {
		if got := Clip(tc.in, tc.n); got != tc.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
	for _, tc := range []struct {
		f    func(string, int) string
		name string
		in   string
		n    int
		want string
	}{
		{Head, "Head", "日本", 4, "日"}, {Head, "Head", "ab", 5, "ab"}, {Head, "Head", "ab", 0, ""},
		{Cut, "Cut", "short", 10, "short"}, {Cut, "Cut", "abcdefghijklmnop", 12, "abcd…[cut]"}, {Cut, "Cut", "abcdefghij", 5, "abcde"},
		{Excerpt, "Excerpt", "  one two  ", 20, "one two"}, {Excerpt, "Excerpt", " 日本語 ", 2, "日本…"},
	} {
		if got := tc.f(tc.in, tc.n); got != tc.want {
			t.Errorf("%s(%q, %d) = %q, want %q", tc.name, tc.in, tc.n, got, tc.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"review", "review", 0}, {"reveiw", "review", 2},
		{"reviewerModel", "reviewerModels", 1}, {"kitten", "sitting", 3}, {"fix", "state", 5},
	} {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Distance(tt.b, tt.a); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 38400: "38,400", 1234567: "1,234,567", -5000: "-5,000"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestPlural(t *testing.T) {
	for got, want := range map[string]string{
		Plural(0, "finding"):          "0 findings",
		Plural(1, "finding"):          "1 finding",
		Plural(2, "finding"):          "2 findings",
		Plural(1, "reply", "replies"): "1 reply",
		Plural(3, "reply", "replies"): "3 replies",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

// A mistyped model name is answered with the nearest listed one, and only
// a near one.
func TestClosest(t *testing.T) {
	names := []string{"gpt-4.1", "gpt-4.1-mini", "o3", "claude-sonnet-4-5"}
	for typed, want := range map[string]string{
		"gpt4.1":           "gpt-4.1",
		"GPT-4.1-mni":      "gpt-4.1-mini",
		"claude-sonet-4-5": "claude-sonnet-4-5",
		"gpt-4.1":          "",
		"llama3":           "",
		"o4":               "o3",
	} {
		if got := Closest(typed, names); got != want {
			t.Errorf("Closest(%q) = %q, want %q", typed, got, want)
		}
	}
}

func TestWrap(t *testing.T) {
	got := WrapUsage("gh ocdx review-loop [<number> | <url> | <branch>] [--yes] [--dry-run]", 30, "Usage: ", "  ")
	want := "Usage: gh ocdx review-loop\n  [<number> | <url> | <branch>]\n  [--yes] [--dry-run]"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := Wrap("one (two three)", 8, "", ""); got != "one (two\nthree)" {
		t.Errorf("got %q", got)
	}
}
