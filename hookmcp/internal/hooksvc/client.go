// Package hooksvc is the client of the hosted webhook-capture API
// (webhook.site, or a self-hosted install): its endpoints, how the API key is
// sent, the retry policy for reads, and the translation of the API's answers
// into errors an assistant can act on. It never puts the key in an error or a
// log line.
package hooksvc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/jsonx"
	"github.com/mcpforge/servers/shared/redact"
)

// Retry policy of reads: GETs are retried on these statuses, at most
// MaxRetries times, waiting what Retry-After asks up to MaxRetryWait.
const (
	MaxRetries   = 3
	MaxRetryWait = 10 * time.Second
)

// maxResponseBytes bounds what one answer may hold: a page of 100 requests
// whose bodies are large, or one captured body (the API refuses over 10 MB).
const maxResponseBytes = 32 << 20

func retryable(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// ErrNotFound is wrapped by the error for a 404 or 410: the token or request
// does not exist, was deleted or has expired.
var ErrNotFound = errors.New("not found or expired")

// ErrAuth is wrapped by the error for a 401, a 403 or any redirect.
var ErrAuth = errors.New("authentication required or key invalid: set HOOKSVC_API_KEY or pass api_key")

// Client calls the API. Its zero value is not usable: set Caller and BaseURL.
type Client struct {
	Caller  *httpx.Caller // its client must not follow redirects (see httpx.Options)
	BaseURL *url.URL      // e.g. https://webhook.site
	// APIKey is the configured key. It and a call's own key are redacted
	// from every answer as it arrives, before any tool reads or encodes it.
	APIKey  string
	Timeout time.Duration
	Logger  *slog.Logger
	// Sleep waits between retries; a timer honouring ctx when nil. Tests
	// replace it to record the waits instead of spending them.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Call describes one API call.
type Call struct {
	Method string
	Path   string     // below the base URL, e.g. /token/<uuid>
	Query  url.Values // nil for none
	Body   any        // JSON-encoded when not nil
	Key    string     // the API key in effect; empty sends none
	// What names the thing addressed, for errors: "token <uuid>". Empty
	// when the path names no token: a 404 then means a wrong base URL.
	What string
	// NotFound is the advice a 404 or 410 ends with; a default for tokens
	// when empty.
	NotFound string
	// NoRetry sends a GET once, for a caller that paces its own retries.
	NoRetry bool
}

// StatusError is a non-2xx answer, explained.
type StatusError struct {
	Status int
	// Wait is what Retry-After asked for, when Asked.
	Wait  time.Duration
	Asked bool
	err   error
}

func (e *StatusError) Error() string { return e.err.Error() }
func (e *StatusError) Unwrap() error { return e.err }

// Transient reports an answer worth trying again later: a rate limit or a
// gateway that could not reach the service.
func (e *StatusError) Transient() bool { return retryable(e.Status) }

// Do performs c, retrying a GET as the retry policy allows, all within the
// client's timeout. A non-2xx answer becomes an error that says what to do.
func (cl *Client) Do(ctx context.Context, c Call) (*httpx.Answer, error) {
	ctx, cancel := httpx.WithTimeout(ctx, cl.Timeout)
	defer cancel()
	redactor := redact.New(cl.APIKey, c.Key)
	for attempt := 0; ; attempt++ {
		resp, err := cl.once(ctx, c, redactor)
		var tooLarge *httpx.TooLargeError
		if errors.As(err, &tooLarge) {
			return nil, fmt.Errorf("the capture API's answer to %s %s is over the limit of %d MiB and was not read to the end", c.Method, c.Path, tooLarge.Limit>>20)
		}
		if err != nil {
			return nil, fmt.Errorf("could not reach the capture API at %s: %w", httpx.DisplayURL(cl.BaseURL), err)
		}
		if resp.Status >= 200 && resp.Status < 300 {
			return resp, nil
		}
		wait, asked := retryWait(resp.Header, attempt)
		if c.Method != http.MethodGet || c.NoRetry || !retryable(resp.Status) || attempt == MaxRetries || wait > MaxRetryWait || !fits(ctx, wait) {
			return nil, statusError(c, resp, attempt, redactor)
		}
		cl.Logger.Info("retrying a read", "method", c.Method, "path", c.Path, "status", resp.Status, "wait", wait, "retry_after", asked, "attempt", attempt+1)
		if err := cl.sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("while waiting to retry after HTTP %d: %w", resp.Status, httpx.Explain(ctx, err))
		}
	}
}

func (cl *Client) once(ctx context.Context, c Call, redactor redact.Redactor) (*httpx.Answer, error) {
	u := cl.BaseURL.JoinPath(c.Path)
	if len(c.Query) > 0 {
		u.RawQuery = c.Query.Encode()
	}
	out := httpx.Outbound{Method: c.Method, URL: u, Header: http.Header{}, MaxBytes: maxResponseBytes, Redactor: redactor}
	out.Header.Set("Accept", "application/json")
	if c.Body != nil {
		encoded, err := jsonx.Marshal(c.Body)
		if err != nil {
			return nil, err
		}
		out.Body = encoded
		out.Header.Set("Content-Type", "application/json")
	}
	if c.Key != "" {
		out.Header.Set("Api-Key", c.Key)
	}
	// The answer is redacted where it comes in (httpx.Caller), and nowhere
	// later: a captured body that holds a key is redacted as bytes, before
	// any tool encodes it (base64 included), and a JSON answer in its
	// decoded strings, so no escape hides a key.
	return cl.Caller.Do(ctx, out)
}

// retryWait is how long to wait before retry number attempt+1: what
// Retry-After asks (in seconds or as a date), else an exponential backoff
// from 500 ms. asked reports whether the API said.
func retryWait(h http.Header, attempt int) (wait time.Duration, asked bool) {
	if d, ok := parseRetryAfter(h.Get("Retry-After")); ok {
		return d, true
	}
	return 500 * time.Millisecond << attempt, false
}

// maxRetryAfterSeconds is what any longer Retry-After is read as: a day, far
// over MaxRetryWait, and small enough that no arithmetic on it overflows.
const maxRetryAfterSeconds = 24 * 60 * 60

func parseRetryAfter(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseUint(v, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		// Past the cap, the exact value no longer matters, and multiplying
		// it into a Duration could overflow into a short or negative wait.
		if err != nil || secs > maxRetryAfterSeconds {
			return maxRetryAfterSeconds * time.Second, true
		}
		return time.Duration(secs) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(at)), true
	}
	return 0, false
}

// fits reports whether waiting d still leaves time for another attempt.
func fits(ctx context.Context, d time.Duration) bool {
	deadline, ok := ctx.Deadline()
	return !ok || time.Until(deadline) > d
}

func (cl *Client) sleep(ctx context.Context, d time.Duration) error {
	if cl.Sleep != nil {
		return cl.Sleep(ctx, d)
	}
	return Sleep(ctx, d)
}

// Sleep waits d, or less when ctx ends first (its error then).
func Sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// statusError explains a non-2xx answer.
func statusError(c Call, resp *httpx.Answer, retries int, redactor redact.Redactor) error {
	wait, asked := parseRetryAfter(resp.Header.Get("Retry-After"))
	return &StatusError{Status: resp.Status, Wait: wait, Asked: asked, err: explainStatus(c, resp, retries, redactor)}
}

func explainStatus(c Call, resp *httpx.Answer, retries int, redactor redact.Redactor) error {
	status := fmt.Sprintf("HTTP %d", resp.Status)
	switch {
	case resp.Status >= 300 && resp.Status < 400:
		return fmt.Errorf("%w (the API answered %s with a redirect to a login page; private tokens need the key of their account)", ErrAuth, status)
	case resp.Status == http.StatusUnauthorized || resp.Status == http.StatusForbidden:
		return fmt.Errorf("%w (the API answered %s)", ErrAuth, status)
	case resp.Status == http.StatusNotFound && c.What == "":
		return fmt.Errorf("the API answered %s to %s %s: check that HOOKSVC_API_URL is the base URL of the capture API", status, c.Method, c.Path)
	case resp.Status == http.StatusNotFound || resp.Status == http.StatusGone:
		advice := c.NotFound
		if advice == "" {
			advice = "check the UUID, or create a new token with create_token"
		}
		return fmt.Errorf("%s was %w (%s); %s", c.What, ErrNotFound, status, advice)
	case resp.Status == http.StatusUnprocessableEntity:
		return fmt.Errorf("the API refused the values (%s): %s", status, redactor.String(fieldMessages(resp.Body)))
	case resp.Status == http.StatusTooManyRequests:
		msg := "rate limited by the capture API (HTTP 429)"
		if wait, asked := parseRetryAfter(resp.Header.Get("Retry-After")); asked {
			msg += fmt.Sprintf("; it asks to wait %s before trying again", formatWait(wait))
		} else {
			msg += "; it did not say how long to wait: try again in a minute"
		}
		if retries > 0 {
			msg += fmt.Sprintf(" (gave up after %d retries)", retries)
		}
		return errors.New(msg)
	}
	text := fmt.Sprintf("the capture API answered %d %s", resp.Status, http.StatusText(resp.Status))
	if detail := errorDetail(resp.Body); detail != "" {
		text += ": " + redactor.String(detail)
	}
	if retries > 0 {
		text += fmt.Sprintf(" (after %d retries)", retries)
	}
	return errors.New(text)
}

func formatWait(d time.Duration) string {
	if d >= maxRetryAfterSeconds*time.Second {
		return "a day or more"
	}
	if d < time.Second {
		return d.String()
	}
	return fmt.Sprintf("%d s", int(d.Round(time.Second)/time.Second))
}

// fieldMessages renders a 422 body, {"field":["message", ...]}, as
// "field: message; field: message", falling back to the error envelope.
func fieldMessages(body []byte) string {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err == nil {
		var parts []string
		for _, name := range slices.Sorted(maps.Keys(fields)) {
			var messages []string
			if json.Unmarshal(fields[name], &messages) == nil && len(messages) > 0 {
				parts = append(parts, name+": "+strings.Join(messages, " "))
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, "; ")
		}
	}
	return errorDetail(body)
}

// errorDetail is the error envelope's message, else the start of the body.
func errorDetail(body []byte) string {
	var envelope struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &envelope) == nil {
		if envelope.Error.Message != "" {
			return envelope.Error.Message
		}
		if envelope.Message != "" {
			return envelope.Message
		}
	}
	return httpx.Snippet(body, 200)
}
