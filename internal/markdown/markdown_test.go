package markdown

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/ocdx/gh-ocdx/internal/text"
)

// loopReport is what loop.RenderSummary writes for a dry run that would
// post a report (with its hidden marker and <details>) and an inline comment.
const loopReport = "# review-loop: PR #31 — not converged\n\n" +
	"https://github.com/octo/widgets/pull/31\n\n" +
	"**Outcome:** 1 P1 finding left after 3 rounds\n" +
	"**Run:** 20261125T101500-abc123 (resumed)\n" +
	"**Tokens:** 44010 of the budget of 45000 spent (44000 in / 10 out) — token budget reached\n\n" +
	"## Round 1 — head 0123abc\n\n" +
	"- Consensus: changes (P0 0, P1 1, P2 0, P3 2)\n" +
	"- Roles: security ok, correctness ok, style failed\n" +
	"- Repository policy: the PR changes `.ocdx/policy.md` and `AGENTS.md`; the change takes effect after merge\n" +
	"- Fix: 1 fixed (SEC-1a2b3c4d), 0 rejected, 1 commit(s), verified true, pushed true → 89abcde\n\n" +
	"## Remaining P0/P1/P2\n\n" +
	"- P1 `COR-0badc0de` Cache key ignores the tenant \\| id (cache.go)\n\n" +
	"## Would post (dry run)\n\n" +
	"<!-- ocdx:marker run=1 -->\n" +
	"### gh-ocdx review — round 1\n\n" +
	"| priority | finding | file |\n|---|---|---:|\n" +
	"| P1 | Cache key ignores the tenant | `cache.go` |\n" +
	"| P3 | Typo in a comment \\| twice | `a\\|b.go` |\n\n" +
	"<details><summary>Role reports</summary>\n\n" +
	"**security** (openai/gpt-rev): nothing found &mdash; the change is local.\n\n" +
	"</details>\n\n" +
	"## Would comment inline (dry run)\n\n" +
	"### cache.go:12-14 (RIGHT)\n\n" +
	"The key must include the tenant:\n\n```go\nkey := tenant + \":\" + id\n```\n"

// proposal is a review review-pr would post (e2e's reviewBody), with the
// lists, quotes and links models write.
const proposal = "**Verdict:** changes needed.\n\n**Understanding:** keeps the return URL.\n\n" +
	"> the redirect goes to /home\n\n" +
	"1. Validate the URL ([OWASP](https://owasp.org/redirects)).\n" +
	"2. Keep *relative* paths only:\n" +
	"   - `/a` is fine\n" +
	"   - `//evil.example` is not\n\n" +
	"---\n\n**Questions:** why /home?\n"

// stateShow is what state show writes for one PR.
const stateShow = "# octo/widgets#31\n\nNo run is working on it.\n\n## Stuck findings (1)\n\n" +
	"- SEC-1a2b3c4d (since run 20261125T101500-abc123, round 2)\n\n" +
	"## Runs (1)\n\n### Run 20261125T101500-abc123: review-loop, ended\n\n" +
	"Started 2026-11-25 10:15, ended 2026-11-25 10:19: converged.\nRecorded on this machine (local).\n"

var reSGR = regexp.MustCompile("\x1b\\[[0-9;]*m")

// lines returns the rendered lines without the document's margin.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		out = append(out, strings.TrimPrefix(l, margin))
	}
	return out
}

func has(t *testing.T, out string, want ...string) {
	t.Helper()
	ls := lines(out)
	for _, w := range want {
		found := false
		for _, l := range ls {
			if l == w {
				found = true
			}
		}
		if !found {
			t.Errorf("no line %q in:\n%s", w, out)
		}
	}
}

func TestRenderLoopReport(t *testing.T) {
	out := Render(text.Inert(loopReport), 100, Plain)
	if strings.Contains(out, "\x1b") {
		t.Errorf("Plain wrote an escape sequence:\n%q", out)
	}
	has(t, out,
		"# review-loop: PR #31 — not converged",
		"**Outcome:** 1 P1 finding left after 3 rounds",
		"**Run:** 20261125T101500-abc123 (resumed)",
		"## Round 1 — head 0123abc",
		"• Consensus: changes (P0 0, P1 1, P2 0, P3 2)",
		"• P1 COR-0badc0de Cache key ignores the tenant | id (cache.go)",
		"Role reports",
		"**security** (openai/gpt-rev): nothing found — the change is local.",
		"  key := tenant + \":\" + id",
		// The table's columns are aligned, the last to the right, and an
		// escaped pipe is a pipe, in text and in code.
		" priority | finding                      |     file",
		"----------|------------------------------|----------",
		" P1       | Cache key ignores the tenant | cache.go",
		" P3       | Typo in a comment | twice    |   a|b.go",
	)
	for _, hidden := range []string{"<details>", "<summary>", "</details>", "ocdx:marker", "<!--", "```", "&mdash;"} {
		if strings.Contains(out, hidden) {
			t.Errorf("%q is shown:\n%s", hidden, out)
		}
	}
	// Each line of a paragraph stays a line, as gh keeps them.
	if strings.Contains(out, "(resumed) **Tokens:**") {
		t.Errorf("the report's lines are joined:\n%s", out)
	}
}

func TestRenderProposalAndStateShow(t *testing.T) {
	out := Render(text.Inert(proposal), 80, Plain)
	has(t, out,
		"**Verdict:** changes needed.",
		"| the redirect goes to /home",
		"1. Validate the URL (OWASP https://owasp.org/redirects).",
		"2. Keep *relative* paths only:",
		"   • /a is fine",
		"   • //evil.example is not",
		"--------",
	)
	out = Render(text.Inert(stateShow), 80, Plain)
	has(t, out,
		"# octo/widgets#31",
		"• SEC-1a2b3c4d (since run 20261125T101500-abc123, round 2)",
		"### Run 20261125T101500-abc123: review-loop, ended",
		"Started 2026-11-25 10:15, ended 2026-11-25 10:19: converged.",
		"Recorded on this machine (local).",
	)
}

// With colour, headings are bold and coloured, strong text bold, code on
// its own background; the light theme has its own heading colour; the
// text itself is unchanged.
func TestRenderColour(t *testing.T) {
	dark := Render(text.Inert(loopReport+"\n(see https://example.com/a_(b)).\n"), 100, Dark)
	for _, want := range []string{
		"\x1b[38;5;228;48;5;63;1m review-loop: PR #31 — not converged \x1b[0m",
		"\x1b[38;5;39;1m## Round 1 — head 0123abc\x1b[0m",
		"\x1b[1mOutcome:\x1b[0m 1 P1 finding",
		"\x1b[38;5;203;48;5;236m COR-0badc0de \x1b[0m",
		"│",
		// A bare URL is styled as a link, without the punctuation after it.
		"\n  \x1b[38;5;30;4mhttps://github.com/octo/widgets/pull/31\x1b[0m\n",
		"(see \x1b[38;5;30;4mhttps://example.com/a_(b)\x1b[0m).",
	} {
		if !strings.Contains(dark, want) {
			t.Errorf("dark: no %q in:\n%q", want, dark)
		}
	}
	light := Render(text.Inert(loopReport), 100, Light)
	if !strings.Contains(light, "\x1b[38;5;27;1m## Round 1") || strings.Contains(light, "38;5;39;") {
		t.Errorf("light: headings in the dark theme's colour:\n%q", light)
	}
	plain := reSGR.ReplaceAllString(dark, "")
	for _, want := range []string{"• Consensus: changes (P0 0, P1 1, P2 0, P3 2)", "Role reports", "─┼─"} {
		if !strings.Contains(plain, want) {
			t.Errorf("dark: no %q in:\n%s", want, plain)
		}
	}
}

// Text from outside carries escape sequences, raw or as character
// references: after text.Inert and the renderer, the output holds only the
// renderer's own styles, and the sequences are shown as text.
func TestRenderHostileInputIsInert(t *testing.T) {
	src := "# Title\x1b[8mHIDDEN\x1b[0m\n\n" +
		"See \x1b]8;;https://evil.example\x1b\\the docs\x1b]8;;\x1b\\ now.\n\n" +
		"- item \x1b[2K\x1b[1AERASED\r\n" +
		"- [link \x1b]0;title\x07](https://x.example/\x1b[31m)\n\n" +
		"Encoded: &#27;[8mENC&#x1b;[0m &#x9b;31m &#x202e;RTL &#7;\n\n" +
		"| a | b\x1b[5m |\n|---|---|\n| `\x1b[1m` | &#x1b;]8;;u&#x1b;\\ |\n\n" +
		"```\ncode \x1b[31mred\n```\n\n" +
		"<details><summary>\x1b[8mS</summary>\n\n</details>\n"
	for _, theme := range []Theme{Plain, Dark, Light} {
		out := Render(text.Inert(src), 80, theme)
		rest := reSGR.ReplaceAllString(out, "")
		if strings.ContainsAny(rest, "\x1b\x07\r\u009b\u202e") {
			t.Errorf("theme %d: a control character from the input reached the output:\n%q", theme, out)
		}
		for _, shown := range []string{
			"^[[8mHIDDEN^[[0m", "^[]8;;https://evil.example^[\\the", "^[[2K^[[1AERASED",
			"^[]0;title^G", "^[[8mENC^[[0m", "<U+009B>31m", "<U+202E>RTL", "^G", "^[[1m", "^[]8;;u^[\\", "code ^[[31mred", "^[[8mS",
		} {
			if !strings.Contains(rest, shown) {
				t.Errorf("theme %d: %q is not shown as text:\n%s", theme, shown, rest)
			}
		}
		if theme == Plain && strings.Contains(out, "\x1b") {
			t.Errorf("Plain wrote an escape sequence:\n%q", out)
		}
	}
}

// Paragraphs and list items are wrapped to the width, a list item's lines
// aligned under its text; a word longer than the width is left whole.
func TestRenderWrapsToTheWidth(t *testing.T) {
	long := strings.Repeat("lorem ipsum dolor ", 12)
	url := "https://example.com/" + strings.Repeat("x", 60)
	src := long + "\n\n- " + long + "\n  - " + long + "\n\n" + url + "\n"
	for _, theme := range []Theme{Plain, Dark} {
		out := Render(src, 40, theme)
		var words []string
		for _, l := range strings.Split(reSGR.ReplaceAllString(out, ""), "\n") {
			if w := runewidth.StringWidth(l); w > 40 && !strings.Contains(l, url) {
				t.Errorf("theme %d: line of %d columns: %q", theme, w, l)
			}
			words = append(words, strings.Fields(l)...)
		}
		if got := strings.Join(words, " "); !strings.Contains(got, strings.TrimSpace(long)) || !strings.Contains(got, url) {
			t.Errorf("theme %d: words lost or reordered:\n%s", theme, out)
		}
		plain := lines(reSGR.ReplaceAllString(out, ""))
		var item, nested int
		for _, l := range plain {
			switch {
			case strings.HasPrefix(l, "• lorem"):
				item++
			case strings.HasPrefix(l, "  • lorem"):
				nested++
			}
		}
		if item != 1 || nested != 1 {
			t.Errorf("theme %d: %d items, %d nested, want 1 and 1:\n%s", theme, item, nested, out)
		}
		// Under the paragraph, the item and the nested item, every line
		// starts at its block's text.
		reAligned := regexp.MustCompile(`^($|[a-z]|• [a-z]|  [a-z]|  • [a-z]|    [a-z]|https://)`)
		for _, l := range plain {
			if !reAligned.MatchString(l) || strings.HasPrefix(l, "   ") && !strings.HasPrefix(l, "    ") {
				t.Errorf("theme %d: a line is not aligned with its block: %q", theme, l)
			}
		}
	}
}

// Inputs that are not well-formed Markdown render without a panic.
func TestRenderOddInput(t *testing.T) {
	for _, src := range []string{
		"", "\n\n", "|", "|\n|", "| a |\n|---|\n", "|a|b|\n|-|\n|c|", "- \n-", "1.", "> ", "```", "<details>",
		"<!-- unclosed", "&", "&#;", "&#x110000;", "[a](", "`", "**", "# ", "\t- x\n\t\t- y", "a\\", "<a href='<'>x</a>",
	} {
		for _, theme := range []Theme{Plain, Dark} {
			_ = Render(src, 1, theme)
			_ = Render(src, 80, theme)
		}
	}
}

// Hostile input of a few hundred kilobytes renders in linear time: runs
// of emphasis, brackets, links without an end, tags without an end. Each
// of these took from 4 s to 35 s before the parser bounded its look-ahead.
func TestRenderHostileInputTakesLinearTime(t *testing.T) {
	if testing.Short() {
		t.Skip("renders 2 MB")
	}
	for name, src := range map[string]string{
		"emphasis":   strings.Repeat("**a* ", 30000),
		"brackets":   strings.Repeat("[", 100000),
		"open links": strings.Repeat("[a](", 40000),
		"tags":       strings.Repeat("<a ", 60000) + ">",
		"underscore": strings.Repeat("_a ", 60000),
		"ticks":      strings.Repeat("`` ` ", 40000),
		"quotes":     strings.Repeat(">", 20000),
		"table":      "|a|\n|-|\n" + strings.Repeat("|x|\n", 40000),
	} {
		start := time.Now()
		Render(src, 80, Dark)
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s, %d KB: %s", name, len(src)>>10, d)
		}
	}
}

func BenchmarkRenderLoopReport(b *testing.B) {
	src := text.Inert(loopReport)
	b.ReportAllocs()
	for b.Loop() {
		Render(src, 100, Dark)
	}
}

// BenchmarkRenderManyURLs renders 400 KB of bare URLs, hostile input a PR
// can hold: the time grows with the text, not its square.
//
//	go test -run '^$' -bench ManyURLs ./internal/markdown
func BenchmarkRenderManyURLs(b *testing.B) {
	src := strings.Repeat("https://example.com/a ", 20000)
	for b.Loop() {
		Render(src, 100, Dark)
	}
}

// BenchmarkRenderDeepNesting renders 40,000 nested quotes and as many
// nested list items: past maxNesting levels they are text, so the time
// does not grow with the square of the depth.
func BenchmarkRenderDeepNesting(b *testing.B) {
	quotes, items := strings.Repeat(">", 40000)+" x", strings.Repeat("- ", 40000)+"x"
	for b.Loop() {
		Render(quotes, 100, Dark)
		Render(items, 100, Dark)
	}
}

// Past maxNesting levels, a quote's text is still shown.
func TestDeepNestingKeepsItsText(t *testing.T) {
	out := Render(strings.Repeat(">", 100)+" the words", 100, Plain)
	if !strings.Contains(out, "the words") {
		t.Errorf("the text of a deep quote is lost:\n%s", out)
	}
}

// FuzzRender: no input makes the renderer panic, and none of its control
// characters reach the output, whatever the parser makes of it.
func FuzzRender(f *testing.F) {
	for _, s := range []string{loopReport, proposal, stateShow, "- a\n  - b\n\n> c\n\n| x |\n|---|\n| `y\\|` |", "*a **b** c*", "[x](<y> 'z')", "&#x1b;]8;;u\a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, theme := range []Theme{Plain, Dark} {
			out := Render(text.Inert(src), 30, theme)
			if strings.ContainsAny(reSGR.ReplaceAllString(out, ""), "\x1b\x07\r\u009b\u202e") {
				t.Fatalf("a control character reached the output: %q", out)
			}
		}
	})
}
