// Package httpretry is the one retry engine of the HTTP clients (GitHub and
// the models): attempts, each attempt's own time limit, the wait the server
// asks for or a backoff with jitter, and a cap on waits. What is worth
// another attempt is each client's own rule, given as Retry.
package httpretry

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Decision is a client's verdict on one attempt.
type Decision struct {
	Retry bool
	// Wait is what the server asked for (Retry-After); Asked says it did,
	// so that an asked wait of 0 is not taken for the backoff.
	Wait  time.Duration
	Asked bool
}

// Client sends a request under a retry policy.
type Client struct {
	Send     func(*http.Request) (*http.Response, error)
	Attempts int           // total tries, the first one included; < 1 is 1
	Timeout  time.Duration // each attempt's own limit, so a stalled answer is cut and tried again; 0 for none
	// Cut is the error of an attempt ended by Timeout.
	Cut func() error
	// Idle > 0 cuts an attempt when no byte of the answer arrives for that
	// long (the wait for the headers included), however long the whole
	// answer takes: a stream that keeps coming is never cut by it.
	Idle time.Duration
	// IdleCut is the error of an attempt ended by Idle; nil uses Cut.
	IdleCut func() error

	Backoff    time.Duration // the first wait when the server asks none; doubles each time
	MaxBackoff time.Duration // 0: no cap
	Jitter     float64       // up to this share of a backoff is taken off at random

	MaxWait time.Duration // the longest asked wait honoured
	// GiveUpOverMax: a longer asked wait makes the answer final, rather
	// than being cut to MaxWait.
	GiveUpOverMax bool

	// ReadAll > 0 reads the whole body within the attempt's limit, so that
	// a body cut by it is a cut attempt (retried), never a short answer; a
	// body over ReadAll bytes is ErrTooLarge. With 0 the body streams to
	// the caller and the limit lasts until it closes it.
	ReadAll int64
	// Consume, when set, reads a 2xx answer within the attempt as it
	// arrives (a stream); its error is the attempt's, judged by Retry, so
	// an answer cut midway is sent again as a whole, never half used. The
	// answer Do returns then has an empty body. Other answers are read as
	// ReadAll says.
	Consume func(resp *http.Response) error

	// Once says req is sent exactly once (a blind retry could post twice).
	Once func(req *http.Request) (bool, error)
	// Retry judges an attempt: resp or err, never both.
	Retry func(resp *http.Response, err error) Decision
	// Exhausted, when set, makes the answer of a last attempt that was
	// worth another; wait is what would have been waited.
	Exhausted func(resp *http.Response, err error, wait time.Duration) (*http.Response, error)
	// OnRetry, when set, is told of each retry before its wait: the attempt
	// about to be made (2 for the first retry), the total, the wait and
	// the failed attempt's answer or error. It is for progress displays.
	OnRetry func(next, of int, wait time.Duration, resp *http.Response, err error)
}

// ErrTooLarge is a body over ReadAll bytes.
var ErrTooLarge = errors.New("answer too large")

// Do sends req until an answer is final, the attempts run out or req's
// context ends.
func (c *Client) Do(req *http.Request) (*http.Response, error) {
	attempts := c.Attempts
	if c.Once != nil {
		once, err := c.Once(req)
		if err != nil {
			return nil, err
		}
		if once {
			attempts = 1
		}
	}
	var body []byte
	if attempts > 1 && req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	ctx := req.Context()
	for n := 0; ; n++ {
		r := req
		if body != nil {
			r = req.Clone(ctx)
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		resp, err := c.try(r)
		if err != nil && ctx.Err() != nil {
			return nil, err // the caller gave up: no retry
		}
		d := c.Retry(resp, err)
		wait := c.backoff(n)
		if d.Retry && d.Asked {
			if d.Wait > c.MaxWait && c.GiveUpOverMax {
				d.Retry = false
			}
			wait = min(d.Wait, c.MaxWait)
		}
		if !d.Retry {
			return resp, err
		}
		if n+1 >= attempts {
			if c.Exhausted != nil {
				return c.Exhausted(resp, err, wait)
			}
			return resp, err
		}
		if c.OnRetry != nil {
			c.OnRetry(n+2, attempts, wait, resp, err)
		}
		if resp != nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

func (c *Client) backoff(n int) time.Duration {
	d := c.Backoff << n
	if c.MaxBackoff > 0 {
		d = min(d, c.MaxBackoff)
	}
	return d - time.Duration(rand.Float64()*c.Jitter*float64(d))
}

// try sends one attempt under its own time limits.
func (c *Client) try(req *http.Request) (*http.Response, error) {
	if c.Timeout <= 0 && c.Idle <= 0 {
		resp, err := c.Send(req)
		if err == nil {
			err = c.read(resp)
		}
		if err != nil {
			return nil, err
		}
		return resp, nil
	}
	parent := req.Context()
	ctx, cancelCause := context.WithCancelCause(parent)
	cancel := func() { cancelCause(nil) }
	if c.Timeout > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeout(ctx, c.Timeout)
		cancel = func() { stop(); cancelCause(nil) }
	}
	var idle *time.Timer
	if c.Idle > 0 {
		idle = time.AfterFunc(c.Idle, func() { cancelCause(errIdle) })
	}
	resp, err := c.Send(req.WithContext(ctx))
	if err == nil {
		resp.Body = &idleBody{ReadCloser: resp.Body, idle: idle, d: c.Idle}
		err = c.read(resp)
	}
	if err == nil && ctx.Err() != nil {
		// net/http hands back an answer that raced the cancellation, such
		// as the empty 200 a server writes once it sees the connection
		// drop. The attempt was cut all the same.
		resp.Body.Close()
		resp, err = nil, ctx.Err()
	}
	if err != nil {
		if cut(ctx, parent) {
			err = c.cutErr(ctx)
		}
		cancel()
		return nil, err
	}
	if c.ReadAll > 0 || c.Consume != nil && resp.StatusCode/100 == 2 {
		cancel()
		return resp, nil
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel, c: c, ctx: ctx, parent: parent,
		closeDelimited: resp.ContentLength < 0 && !resp.Uncompressed && !slices.Contains(resp.TransferEncoding, "chunked")}
	return resp, nil
}

// read reads the answer within the attempt when Consume or ReadAll asks.
func (c *Client) read(resp *http.Response) error {
	switch {
	case c.Consume != nil && resp.StatusCode/100 == 2:
		err := c.Consume(resp)
		resp.Body.Close()
		resp.Body = http.NoBody
		return err
	case c.ReadAll > 0:
		return c.readAll(resp)
	}
	return nil
}

// errIdle is the cause of an attempt cut by Idle.
var errIdle = errors.New("no data within the idle limit")

func (c *Client) cutErr(ctx context.Context) error {
	if context.Cause(ctx) == errIdle && c.IdleCut != nil {
		return c.IdleCut()
	}
	return c.Cut()
}

// idleBody puts the Idle limit off with every byte that arrives.
type idleBody struct {
	io.ReadCloser
	idle *time.Timer
	d    time.Duration
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && b.idle != nil {
		b.idle.Reset(b.d)
	}
	return n, err
}

func (b *idleBody) Close() error {
	if b.idle != nil {
		b.idle.Stop()
	}
	return b.ReadCloser.Close()
}

// readAll puts the body in memory, or fails with ErrTooLarge.
func (c *Client) readAll(resp *http.Response) error {
	b, err := io.ReadAll(io.LimitReader(resp.Body, c.ReadAll+1))
	resp.Body.Close()
	if err != nil {
		return err
	}
	if int64(len(b)) > c.ReadAll {
		return ErrTooLarge
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return nil
}

// cut reports whether the attempt's own limits ended it, rather than the
// caller giving up.
func cut(ctx, parent context.Context) bool {
	return ctx.Err() != nil && parent.Err() == nil
}

// cancelBody ends the attempt's limit on Close, and reports a body cut by
// that limit as Cut rather than as the transport's raw error.
type cancelBody struct {
	io.ReadCloser
	cancel      context.CancelFunc
	c           *Client
	ctx, parent context.Context
	// No length and not chunked: the body ends when the connection does, so
	// an end seen after the limit may be the cut, not the whole answer.
	closeDelimited bool
}

func (b *cancelBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && (err != io.EOF || b.closeDelimited) && cut(b.ctx, b.parent) {
		err = b.c.cutErr(b.ctx)
	}
	return n, err
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// RetryAfter reads Retry-After-Ms or Retry-After (seconds or a date; a date
// past is 0); ok is false when neither is there.
func RetryAfter(h http.Header) (d time.Duration, ok bool) {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond)), true
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if sec, err := strconv.ParseFloat(v, 64); err == nil && sec >= 0 {
		return time.Duration(sec * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
