package httpx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/mcpforge/servers/shared/redact"
)

// Caller is the one road out to an upstream API. Each call is bounded in
// time by its context (WithTimeout) and in bytes by its MaxBytes; its answer
// is cleaned of secrets where it comes in, before anything reads it; and a
// failure comes back as the reason alone, without the URL (whose query may
// hold a secret) and with the secrets redacted. Status codes mean nothing
// here: each server reads them its own way.
type Caller struct {
	HTTP   *http.Client // from NewClient
	Logger *slog.Logger
}

// Outbound is one request.
type Outbound struct {
	Method string
	URL    *url.URL
	Header http.Header
	Body   []byte // nil for none
	// MaxBytes bounds the answer's body: a longer one is a *TooLargeError,
	// and only MaxBytes+1 bytes are ever held.
	MaxBytes int64
	// Redactor holds the secrets of this call (configured credentials, a
	// per-call key), replaced in the answer's body and in every error.
	Redactor redact.Redactor
	// Buffer, when not nil, is memory the body is read into, for a caller
	// that reads many answers one after another (hookmcp's resource reads
	// up to 100 pages) and would otherwise make each body garbage. A body
	// that does not fit is read into larger memory, left in *Buffer for
	// the next call. Answer.Body may share it: the caller reuses *Buffer
	// only once it is done with the answer. Between calls *Buffer holds
	// the last body as it arrived, unredacted: nothing may read it.
	Buffer *[]byte
}

// Answer is an upstream's answer, whatever its status.
type Answer struct {
	Status int
	Header http.Header
	// Body is the whole body, secrets redacted.
	Body []byte
}

// Do sends out under ctx and reads the answer. Its errors are a
// *TooLargeError, or a *Failure (Explain) with the secrets redacted.
func (c *Caller) Do(ctx context.Context, out Outbound) (*Answer, error) {
	var body io.Reader
	if out.Body != nil {
		body = bytes.NewReader(out.Body)
	}
	req, err := http.NewRequestWithContext(ctx, out.Method, out.URL.String(), body)
	if err != nil {
		return nil, c.fail(ctx, out, err, time.Now())
	}
	if out.Header != nil {
		req.Header = out.Header.Clone()
	}
	start := time.Now()
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, c.fail(ctx, out, err, start)
	}
	defer resp.Body.Close()
	var into []byte
	if out.Buffer != nil {
		into = (*out.Buffer)[:0]
	}
	data, err := readLimited(resp.Body, out.MaxBytes, resp.ContentLength, into)
	if out.Buffer != nil && cap(data) > cap(*out.Buffer) {
		*out.Buffer = data[:0]
	}
	observe(ctx, resp.StatusCode, len(data))
	c.Logger.Debug("outbound request", "method", out.Method, "url", out.Redactor.String(DisplayURL(out.URL)), "status", resp.StatusCode,
		"bytes", len(data), "duration", time.Since(start).Round(time.Millisecond))
	var tooLarge *TooLargeError
	if errors.As(err, &tooLarge) {
		return nil, tooLarge
	}
	if err != nil {
		return nil, c.fail(ctx, out, err, start)
	}
	return &Answer{Status: resp.StatusCode, Header: resp.Header, Body: out.Redactor.Bytes(data)}, nil
}

// fail explains err and redacts it, and logs it. start is when the request
// went out: a caller's deadline is said with how long was waited.
func (c *Caller) fail(ctx context.Context, out Outbound, err error, start time.Time) error {
	failure := AsFailure(Explain(ctx, err))
	if failure.Kind == DeadlinePassed {
		failure.After = time.Since(start)
		failure.Reason = fmt.Sprintf("no answer came within %s, the time left to this call", roundWait(failure.After))
	}
	failure.Reason = out.Redactor.String(failure.Reason)
	c.Logger.Info("outbound request failed", "method", out.Method, "url", out.Redactor.String(DisplayURL(out.URL)), "error", failure.Reason)
	return failure
}

// roundWait writes a wait as a person reads it: 1s, 2.5s, 300ms.
func roundWait(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}
