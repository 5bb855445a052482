package httpretry

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// script answers the statuses in order, with Retry-After when given, and
// records each request's body.
type script struct {
	statuses []int
	after    string
	bodies   []string
}

func (s *script) send(req *http.Request) (*http.Response, error) {
	b := ""
	if req.Body != nil {
		raw, _ := io.ReadAll(req.Body)
		b = string(raw)
	}
	s.bodies = append(s.bodies, b)
	h := http.Header{}
	if s.after != "" {
		h.Set("Retry-After", s.after)
	}
	st := s.statuses[min(len(s.bodies)-1, len(s.statuses)-1)]
	return &http.Response{StatusCode: st, Header: h, Body: io.NopCloser(strings.NewReader("x")), Request: req}, nil
}

func on5xx(resp *http.Response, err error) Decision {
	if err != nil || resp.StatusCode < 500 {
		return Decision{}
	}
	d, ok := RetryAfter(resp.Header)
	return Decision{Retry: true, Wait: d, Asked: ok}
}

func TestDo(t *testing.T) {
	for _, tc := range []struct {
		name     string
		statuses []int
		after    string
		giveUp   bool
		once     bool
		sends    int
		status   int
		maxTime  time.Duration
	}{
		{"retried until it succeeds, body sent again", []int{500, 503, 200}, "", false, false, 3, 200, time.Second},
		{"attempts are bounded", []int{500}, "", false, false, 3, 500, time.Second},
		{"an asked wait of 0 is no backoff", []int{500, 200}, "0", false, false, 2, 200, 500 * time.Millisecond},
		{"a long asked wait is cut to MaxWait", []int{500, 200}, "3600", false, false, 2, 200, time.Second},
		{"or makes the answer final", []int{500, 200}, "3600", true, false, 1, 500, time.Second},
		{"a request sent once", []int{500, 200}, "", false, true, 1, 500, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &script{statuses: tc.statuses, after: tc.after}
			c := &Client{Send: s.send, Attempts: 3, Timeout: time.Second, Cut: func() error { return errors.New("cut") },
				Backoff: 10 * time.Millisecond, MaxWait: 20 * time.Millisecond, GiveUpOverMax: tc.giveUp, Retry: on5xx,
				Once: func(*http.Request) (bool, error) { return tc.once, nil }}
			if tc.name == "an asked wait of 0 is no backoff" {
				c.Backoff = time.Hour
			}
			req, _ := http.NewRequest(http.MethodPost, "http://example.test/", strings.NewReader("payload"))
			start := time.Now()
			resp, err := c.Do(req)
			if err != nil || resp.StatusCode != tc.status {
				t.Fatalf("%v %v, want HTTP %d", resp, err, tc.status)
			}
			resp.Body.Close()
			if len(s.bodies) != tc.sends {
				t.Errorf("%d sends, want %d", len(s.bodies), tc.sends)
			}
			for i, b := range s.bodies {
				if b != "payload" {
					t.Errorf("send %d carried %q", i+1, b)
				}
			}
			if d := time.Since(start); d > tc.maxTime {
				t.Errorf("took %s", d)
			}
		})
	}
}

func TestExhaustedGetsTheWait(t *testing.T) {
	s := &script{statuses: []int{503}, after: "5"}
	var got time.Duration
	c := &Client{Send: s.send, Attempts: 2, Backoff: time.Millisecond, MaxWait: 10 * time.Millisecond, Retry: on5xx,
		Exhausted: func(resp *http.Response, err error, wait time.Duration) (*http.Response, error) {
			got = wait
			return resp, err
		}}
	req, _ := http.NewRequest(http.MethodGet, "http://example.test/", nil)
	if _, err := c.Do(req); err != nil {
		t.Fatal(err)
	}
	if got != 10*time.Millisecond || len(s.bodies) != 2 {
		t.Errorf("wait %s after %d sends, want 10ms after 2", got, len(s.bodies))
	}
}

func TestReadAll(t *testing.T) {
	s := &script{statuses: []int{200}}
	c := &Client{Send: s.send, Attempts: 1, Timeout: time.Second, Cut: func() error { return errors.New("cut") }, ReadAll: 1, Retry: on5xx}
	req, _ := http.NewRequest(http.MethodGet, "http://example.test/", nil)
	if resp, err := c.Do(req); err != nil {
		t.Fatal(err)
	} else if b, _ := io.ReadAll(resp.Body); string(b) != "x" {
		t.Errorf("body %q", b)
	}
	c.Send = func(req *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("xy")), Request: req}, nil
	}
	if _, err := c.Do(req); !errors.Is(err, ErrTooLarge) {
		t.Errorf("err = %v, want ErrTooLarge", err)
	}
}

func TestRetryAfter(t *testing.T) {
	for in, want := range map[[2]string]time.Duration{
		{"", ""}:                              -1,
		{"", "2"}:                             2 * time.Second,
		{"", "0"}:                             0,
		{"", "1.5"}:                           1500 * time.Millisecond,
		{"250", "9"}:                          250 * time.Millisecond,
		{"", "soon"}:                          -1,
		{"", "-3"}:                            -1,
		{"0", "1"}:                            time.Second,
		{"", "Mon, 02 Jan 2006 15:04:05 GMT"}: 0, // past
	} {
		h := http.Header{}
		if in[0] != "" {
			h.Set("Retry-After-Ms", in[0])
		}
		if in[1] != "" {
			h.Set("Retry-After", in[1])
		}
		d, ok := RetryAfter(h)
		if !ok {
			d = -1
		}
		if d != want {
			t.Errorf("Retry-After-Ms %q, Retry-After %q: %s, want %s", in[0], in[1], d, want)
		}
	}
}

// trickle is a body that sends a byte every gap, n bytes in all, and fails
// with its context's error once that ends.
type trickle struct {
	ctx interface {
		Done() <-chan struct{}
		Err() error
	}
	gap time.Duration
	n   int
}

func (t *trickle) Read(p []byte) (int, error) {
	if t.n == 0 {
		return 0, io.EOF
	}
	select {
	case <-time.After(t.gap):
	case <-t.ctx.Done():
		return 0, t.ctx.Err()
	}
	t.n--
	p[0] = 'x'
	return 1, nil
}

func (t *trickle) Close() error { return nil }

// Idle cuts an answer that stops coming, not one that keeps coming however
// long it takes; Consume reads it within the attempt, and a cut answer is
// sent again as a whole.
func TestIdleAndConsume(t *testing.T) {
	for _, tc := range []struct {
		name  string
		gaps  []time.Duration // per attempt
		sends int
		err   string
		body  string
	}{
		{"a slow steady answer is not cut", []time.Duration{20 * time.Millisecond}, 1, "", "xxxxxxxxxx"},
		{"a stalled answer is cut and sent again", []time.Duration{time.Second, time.Millisecond}, 2, "", "xxxxxxxxxx"},
		{"every attempt stalled", []time.Duration{time.Second}, 2, "idle", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sends := 0
			var got []string
			c := &Client{
				Send: func(req *http.Request) (*http.Response, error) {
					gap := tc.gaps[min(sends, len(tc.gaps)-1)]
					sends++
					return &http.Response{StatusCode: 200, Body: &trickle{ctx: req.Context(), gap: gap, n: 10}, Request: req}, nil
				},
				Attempts: 2, Idle: 100 * time.Millisecond, Timeout: 5 * time.Second, Backoff: time.Millisecond,
				Cut: func() error { return errors.New("overall") }, IdleCut: func() error { return errors.New("idle") },
				Consume: func(resp *http.Response) error {
					b, err := io.ReadAll(resp.Body)
					if err == nil {
						got = append(got, string(b))
					}
					return err
				},
				Retry: func(resp *http.Response, err error) Decision { return Decision{Retry: err != nil} },
			}
			req, _ := http.NewRequest(http.MethodPost, "http://example.test/", strings.NewReader("payload"))
			resp, err := c.Do(req)
			if sends != tc.sends {
				t.Errorf("%d sends, want %d", sends, tc.sends)
			}
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Errorf("err = %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil || resp.StatusCode != 200 || len(got) != 1 || got[0] != tc.body {
				t.Errorf("%v %v, consumed %q", resp, err, got)
			}
		})
	}
}
