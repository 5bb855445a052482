package github

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"
)

// maxAnswer bounds every answer gh-ocdx reads from GitHub. The largest real
// answers (a PR context page, 100 comments) are a few MB; a hostile or broken
// server could otherwise send gigabytes, all of them held in memory.
const maxAnswer = 32 << 20

// answerError is an answer from the GitHub host that gh-ocdx does not use:
// too large, not UTF-8 text, or a redirect it does not follow.
type answerError struct {
	Problem string // completes "GitHub's answer …"
}

func (e *answerError) Error() string { return "GitHub's answer " + e.Problem }

var errTooLarge = &answerError{Problem: fmt.Sprintf("was larger than %d MB, more than gh-ocdx reads: check that GH_HOST names a GitHub server, and any proxy in between", maxAnswer>>20)}

// boundTransport reads each JSON answer whole, at most maxAnswer bytes, and
// refuses one that is not UTF-8 (GitHub always answers in UTF-8; anything
// else was altered on the way). Diffs and raw file contents are text of any
// encoding: they stay streamed, cut at maxAnswer, and their callers read
// them through their own, smaller limits.
type boundTransport struct {
	next http.RoundTripper
}

func (t *boundTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if accept := req.Header.Get("Accept"); strings.Contains(accept, "diff") || strings.Contains(accept, "raw") {
		resp.Body = &cappedBody{ReadCloser: resp.Body, left: maxAnswer}
		return resp, nil
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if len(b) > maxAnswer {
		return nil, errTooLarge
	}
	if resp.StatusCode < 300 && !utf8.Valid(b) {
		at := 0
		for at < len(b) {
			r, n := utf8.DecodeRune(b[at:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			at += n
		}
		return nil, &answerError{Problem: fmt.Sprintf("(HTTP %d, %d bytes) is not UTF-8 text (an invalid byte at offset %d), which GitHub always sends: something between gh-ocdx and GitHub altered it; check GH_HOST and any proxy in between, then try again", resp.StatusCode, len(b), at)}
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	resp.ContentLength = int64(len(b))
	return resp, nil
}

// cappedBody fails a read past its limit instead of reading on.
type cappedBody struct {
	io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// checkRedirect follows a redirect only for a read (GET, HEAD) and only to
// the host first asked. A 307 or 308 answer to a POST would send its body,
// a comment or a review, again to wherever it points; a redirect to another
// host would take the request, and go-gh's headers, out of GitHub.
func checkRedirect(req *http.Request, via []*http.Request) error {
	first := via[0]
	switch {
	case first.Method != http.MethodGet && first.Method != http.MethodHead:
		return &answerError{Problem: fmt.Sprintf("to %s %s was a redirect to %s, which gh-ocdx never follows for a write (it would send the write again): check GH_HOST; nothing was sent there", first.Method, first.URL.Redacted(), req.URL.Redacted())}
	case !strings.EqualFold(req.URL.Host, first.URL.Host):
		return &answerError{Problem: fmt.Sprintf("to %s was a redirect to another host (%s), which gh-ocdx does not follow: check GH_HOST", first.URL.Redacted(), req.URL.Host)}
	case len(via) >= 10:
		return errors.New("GitHub redirected 10 times: stopped")
	}
	return nil
}
