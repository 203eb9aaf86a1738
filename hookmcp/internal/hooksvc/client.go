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
	"sync"
	"sync/atomic"
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

// ErrAuth is wrapped by the error for a 401, a 403 or a redirect to the
// login page: no key
// was sent where one is needed, or the key sent was refused.
var ErrAuth = errors.New("authentication required or key refused")

// MaxTimeout is the longest time limit of one call (HOOKSVC_TIMEOUT).
const MaxTimeout = 10 * time.Minute

// Client calls the API. Its zero value is not usable: set Caller and BaseURL.
type Client struct {
	Caller  *httpx.Caller // its client must not follow redirects (see httpx.Options)
	BaseURL *url.URL      // e.g. https://webhook.site
	// APIKey is the configured key. It and a call's own key are redacted
	// from every answer as it arrives, before any tool reads or encodes it.
	APIKey string
	// Secrets are the configuration's other secrets (the signing secrets
	// set at startup), redacted from every answer as the key is.
	Secrets []string
	Timeout time.Duration
	Logger  *slog.Logger
	// captureToken is the token whose capture URL HOOKSVC_API_URL turned
	// out to be: once seen, no call sends the key there again.
	captured atomic.Pointer[captured]
	// probeMu guards probed: whether a base URL with a path has been
	// checked, without the key, for a capture URL (checkBeforeKey).
	probeMu sync.Mutex
	probed  bool
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
	// Exact returns a success's body as it arrived, unredacted: the bytes
	// a signature covers, which the caller checks and never shows. Errors
	// are redacted all the same.
	Exact bool
	// Doing says what the call does, for the start of its errors:
	// "Listing the requests of token <uuid>".
	Doing string
	// expect is what a success must carry to be the API's (see notTheAPI).
	expect expect
	// maxBytes bounds the answer; maxResponseBytes when 0.
	maxBytes int64
	// buffer, when not nil, is memory to read the answer into
	// (httpx.Outbound.Buffer), reused by ReadPages from page to page.
	buffer *[]byte
	// redactor, when not nil, is the one secrets(Key) gives, made once by
	// ReadPages for all its pages: making one builds tables of every
	// spelling of every secret, garbage as large as a page's many times
	// over a long read.
	redactor *redact.Redactor
}

func (c Call) doing() string {
	if c.Doing != "" {
		return c.Doing
	}
	return c.Method + " " + c.Path
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
// client's timeout. A failure, a non-2xx answer, or a success that is not
// the API's, becomes an error that says what was being done, what happened
// and what to do.
func (cl *Client) Do(ctx context.Context, c Call) (*httpx.Answer, error) {
	ctx, cancel := httpx.WithTimeout(ctx, cl.Timeout)
	defer cancel()
	redactor := cl.redactor(c)
	if seen := cl.captured.Load(); seen != nil && c.expect != expectRaw {
		return nil, cl.knownCaptureURLError(c, *seen)
	}
	if err := cl.checkBeforeKey(ctx, c, redactor); err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		resp, err := cl.once(ctx, c, redactor)
		var tooLarge *httpx.TooLargeError
		if errors.As(err, &tooLarge) {
			return nil, fmt.Errorf("%s failed: the capture API's answer is over the limit of %d MiB and was not read to the end", c.doing(), tooLarge.Limit>>20)
		}
		if failure := httpx.AsFailure(err); failure != nil {
			return nil, cl.unreachable(c.doing(), "the capture API at "+httpx.DisplayURL(cl.BaseURL), failure)
		}
		if err != nil {
			return nil, fmt.Errorf("%s failed: %w", c.doing(), err)
		}
		// A capture URL marks its answers, whatever their status and
		// type: none of them is the API's, and the key must not go there
		// again.
		if token := resp.Header.Get("X-Token-Id"); token != "" && c.expect != expectRaw {
			cl.captured.CompareAndSwap(nil, &captured{token: token, keySent: c.Key != ""})
			return nil, cl.captureURLError(c, resp, token)
		}
		if resp.Status >= 200 && resp.Status < 300 || c.expect == expectRedirect && isRedirect(resp.Status) && !cl.toLogin(c, resp) {
			if err := cl.notTheAPI(c, resp); err != nil {
				return nil, err
			}
			return resp, nil
		}
		wait, asked := retryWait(resp.Header, attempt)
		if c.Method != http.MethodGet || c.NoRetry || !retryable(resp.Status) || attempt == MaxRetries || wait > MaxRetryWait || !fits(ctx, wait) {
			return nil, cl.statusError(c, resp, attempt, redactor)
		}
		cl.Logger.Info("retrying a read", "method", c.Method, "path", c.Path, "status", resp.Status, "wait", wait, "retry_after", asked, "attempt", attempt+1)
		if err := cl.sleep(ctx, wait); err != nil {
			return nil, cl.unreachable(c.doing(), fmt.Sprintf("the capture API at %s (waiting to retry after HTTP %d)", httpx.DisplayURL(cl.BaseURL), resp.Status),
				httpx.AsFailure(httpx.Explain(ctx, err)))
		}
	}
}

// probeToken is the token a check without the key asks for: one that no
// service holds.
const probeToken = "00000000-0000-4000-8000-000000000000"

// checkBeforeKey makes sure, once, that a base URL with a path is not a
// capture URL by its alias (https://webhook.site/my-hook), which the start-up
// check cannot tell by a UUID, before a key is sent there: a request without
// the key goes first, and the capture mark (X-Token-Id) on its answer stops
// this call and every later one. A base URL without a path is never a
// capture URL, and costs no check.
func (cl *Client) checkBeforeKey(ctx context.Context, c Call, redactor redact.Redactor) error {
	if c.Key == "" || strings.Trim(cl.BaseURL.Path, "/") == "" {
		return nil
	}
	cl.probeMu.Lock()
	defer cl.probeMu.Unlock()
	if !cl.probed {
		// Without an answer nothing is known of the URL, so the key stays
		// here: the call is refused, and the next one checks again.
		resp, err := cl.once(ctx, Call{Method: http.MethodGet, Path: tokenPath(probeToken)}, redactor)
		if err != nil {
			return cl.checkFailed(ctx, c, err)
		}
		cl.probed = true
		if token := resp.Header.Get("X-Token-Id"); token != "" {
			cl.captured.CompareAndSwap(nil, &captured{token: token, check: true})
		}
	}
	if seen := cl.captured.Load(); seen != nil {
		return cl.knownCaptureURLError(c, *seen)
	}
	return nil
}

// checkFailed refuses a call whose check without the key (checkBeforeKey)
// got no answer: what failed, and that the key was not sent.
func (cl *Client) checkFailed(ctx context.Context, c Call, err error) error {
	reason := err.Error()
	var tooLarge *httpx.TooLargeError
	if errors.As(err, &tooLarge) {
		reason = fmt.Sprintf("its answer is over the limit of %d MiB", tooLarge.Limit>>20)
	} else if failure := httpx.AsFailure(err); failure != nil {
		reason = failure.Reason
		if failure.Kind == httpx.TimedOut {
			reason += " (" + timeoutAdvice(failure.After) + ")"
		}
		if failure.Kind == httpx.Cancelled || failure.Kind == httpx.DeadlinePassed || ctx.Err() != nil {
			return fmt.Errorf("%s failed: nothing was sent with the API key: %s", c.doing(), reason)
		}
	}
	return fmt.Errorf("%s failed: nothing was sent with the API key. HOOKSVC_API_URL (%s) has a path, so hookmcp first sends a request without the key "+
		"to make sure it is not a capture URL (https://webhook.site/<alias> is one), and that check failed: %s. "+
		"The key goes there only once the check gets an answer; the next call tries again. "+
		"Check HOOKSVC_API_URL (--api-url): it must be the API's base URL (for the hosted service: %s), set when starting hookmcp",
		c.doing(), httpx.DisplayURL(cl.BaseURL), cl.redactor(c).String(reason), hostedURL)
}

// unreachable explains a call that got no answer from where: which setting
// holds the URL, or which time limit to raise and up to how much.
func (cl *Client) unreachable(doing, where string, failure *httpx.Failure) error {
	text := fmt.Sprintf("%s failed: could not reach %s: %s", doing, where, failure.Reason)
	switch failure.Kind {
	case httpx.TimedOut:
		text = fmt.Sprintf("%s failed: %s did not answer in time: %s. %s", doing, where, failure.Reason, timeoutAdvice(failure.After))
	case httpx.Cancelled:
		text = fmt.Sprintf("%s failed: %s", doing, failure.Reason)
	case httpx.DeadlinePassed:
		// The call's own limit (wait_for_request's timeout_seconds) ended:
		// neither the URL nor HOOKSVC_TIMEOUT is at fault.
		text = fmt.Sprintf("%s failed: %s did not answer: %s", doing, where, failure.Reason)
	case httpx.FailedOther:
	default:
		text += fmt.Sprintf(". The URL comes from HOOKSVC_API_URL (--api-url), %s here, set when starting hookmcp", httpx.DisplayURL(cl.BaseURL))
	}
	return errors.New(text)
}

// timeoutAdvice says which time limit to raise, and how far it may go.
func timeoutAdvice(after time.Duration) string {
	if after >= MaxTimeout {
		return fmt.Sprintf("That is hookmcp's longest time limit (HOOKSVC_TIMEOUT, at most %s): the capture API is too slow now; try again later", formatLimit(MaxTimeout))
	}
	return fmt.Sprintf("The time limit of one call is HOOKSVC_TIMEOUT (--timeout), %s here: raise it when starting hookmcp (up to %s), or try again later",
		formatLimit(after), formatLimit(MaxTimeout))
}

// formatLimit writes a time limit as HOOKSVC_TIMEOUT takes it: 30s, 2m.
func formatLimit(d time.Duration) string {
	text := d.String()
	for _, zero := range []string{"m0s", "h0m"} {
		if strings.HasSuffix(text, zero) {
			text = text[:len(text)-2]
		}
	}
	return text
}

// redactor hides the keys of c: the configured one, and the call's own.
func (cl *Client) redactor(c Call) redact.Redactor {
	if c.redactor != nil {
		return *c.redactor
	}
	return cl.secrets(c.Key)
}

// secrets hides the configured key, a call's own key and the
// configuration's other secrets.
func (cl *Client) secrets(callKey string) redact.Redactor {
	return redact.New(append([]string{cl.APIKey, callKey}, cl.Secrets...)...)
}

func (cl *Client) once(ctx context.Context, c Call, redactor redact.Redactor) (*httpx.Answer, error) {
	u := cl.BaseURL.JoinPath(c.Path)
	if len(c.Query) > 0 {
		u.RawQuery = c.Query.Encode()
	}
	limit := c.maxBytes
	if limit == 0 {
		limit = maxResponseBytes
	}
	out := httpx.Outbound{Method: c.Method, URL: u, Header: http.Header{}, MaxBytes: limit, Redactor: redactor, Buffer: c.buffer}
	if c.Exact {
		// The Caller redacts the body it returns; this one is read as it
		// arrived. A failure's words hold no key (it is sent in a header),
		// and a refusal's body is described through redactor (statusError).
		out.Redactor = redact.Redactor{}
	}
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
	return httpx.Sleep(ctx, d)
}

// statusError explains a non-2xx answer.
func (cl *Client) statusError(c Call, resp *httpx.Answer, retries int, redactor redact.Redactor) error {
	wait, asked := parseRetryAfter(resp.Header.Get("Retry-After"))
	return &StatusError{Status: resp.Status, Wait: wait, Asked: asked, err: cl.explainStatus(c, resp, retries, redactor)}
}

// authError is a refused authentication, said for the key that was sent.
type authError struct{ text string }

func (e *authError) Error() string { return e.text }
func (e *authError) Unwrap() error { return ErrAuth }

func (cl *Client) explainStatus(c Call, resp *httpx.Answer, retries int, redactor redact.Redactor) error {
	status := fmt.Sprintf("HTTP %d", resp.Status)
	page := httpx.IsWebPage(resp.Header, resp.Body)
	switch {
	case resp.Status >= 300 && resp.Status < 400 && !cl.toLogin(c, resp):
		return cl.redirectError(c, resp)
	case resp.Status >= 300 && resp.Status < 400, resp.Status == http.StatusUnauthorized || resp.Status == http.StatusForbidden:
		if resp.Status < 400 {
			status += " with a redirect to a login page"
		}
		return &authError{cl.authText(c, status)}
	case (resp.Status == http.StatusNotFound || resp.Status == http.StatusGone) && (c.What == "" || page || !apiError(resp)):
		return fmt.Errorf("%s failed: %s answered HTTP %d to %s %s (%s): nothing is served there, so %s is not the capture API's base URL. "+
			"Check the path of HOOKSVC_API_URL (--api-url): it must be the API's base URL (for the hosted service: %s), set when starting hookmcp",
			c.doing(), httpx.DisplayURL(cl.BaseURL), resp.Status, c.Method, c.Path, describeBody(resp, redactor), httpx.DisplayURL(cl.BaseURL), hostedURL)
	case resp.Status == http.StatusNotFound || resp.Status == http.StatusGone:
		advice := c.NotFound
		if advice == "" {
			advice = "check the UUID, or create a new token with create_token"
		}
		return fmt.Errorf("%s was %w (%s); %s", c.What, ErrNotFound, status, advice)
	case resp.Status == http.StatusUnprocessableEntity:
		return fmt.Errorf("%s failed: the API refused the values (%s): %s", c.doing(), status, redactor.String(fieldMessages(resp.Body)))
	case resp.Status == http.StatusTooManyRequests:
		msg := c.doing() + " failed: rate limited by the capture API (HTTP 429)"
		if wait, asked := parseRetryAfter(resp.Header.Get("Retry-After")); asked {
			msg += fmt.Sprintf("; it asks to wait %s before trying again", formatWait(wait))
		} else {
			msg += "; it did not say how long to wait: try again in a minute"
		}
		if retries > 0 {
			msg += fmt.Sprintf(" (gave up after %d retries)", retries)
		}
		return errors.New(msg)
	case page && resp.Status < 500:
		return fmt.Errorf("%s failed: %s answered HTTP %d %s with %s, not the capture API's JSON: that URL is a web page, not the API. "+
			"HOOKSVC_API_URL (--api-url) must be the API's base URL (for the hosted service: %s), set when starting hookmcp",
			c.doing(), httpx.DisplayURL(cl.BaseURL), resp.Status, http.StatusText(resp.Status), describeBody(resp, redactor), hostedURL)
	}
	text := fmt.Sprintf("%s failed: the capture API answered %d %s", c.doing(), resp.Status, http.StatusText(resp.Status))
	if detail := errorDetail(resp); detail != "" {
		text += ": " + redactor.String(detail)
	}
	if retries > 0 {
		text += fmt.Sprintf(" (after %d retries)", retries)
	}
	return errors.New(text)
}

// apiError reports whether resp carries an error body the API sends (see
// apiRefusal). A 404 without one comes from a server that is not the API,
// and says nothing of the token.
func apiError(resp *httpx.Answer) bool {
	_, ok := apiRefusal(resp.Body)
	return ok
}

// location is where a redirect points, resolved against the address the
// call was sent to; nil when the answer names none it can read.
func (cl *Client) location(c Call, resp *httpx.Answer) *url.URL {
	raw := resp.Header.Get("Location")
	if raw == "" {
		return nil
	}
	loc, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	return cl.BaseURL.JoinPath(c.Path).ResolveReference(loc)
}

// toLogin reports whether a redirect goes to the service's login page:
// that is how the API says that a token needs a key. Any other redirect
// means the base URL itself has moved.
func (cl *Client) toLogin(c Call, resp *httpx.Answer) bool {
	loc := cl.location(c, resp)
	if loc == nil || !httpx.SameHost(loc.Hostname(), cl.BaseURL.Hostname()) {
		return false
	}
	last := strings.ToLower(loc.Path[strings.LastIndex(loc.Path, "/")+1:])
	return last == "login" || last == "signin" || last == "sign-in"
}

// redirectError says that the base URL redirects, where to, and which URL to
// use instead. The Location is shown without its query or user info, which
// may carry a credential.
func (cl *Client) redirectError(c Call, resp *httpx.Answer) error {
	loc := cl.location(c, resp)
	if loc == nil {
		return fmt.Errorf("%s failed: %s answered HTTP %d %s, a redirect without a usable Location, not the capture API's answer. "+
			"Check HOOKSVC_API_URL (--api-url): it must be the API's base URL (for the hosted service: %s), set when starting hookmcp",
			c.doing(), httpx.DisplayURL(cl.BaseURL), resp.Status, http.StatusText(resp.Status), hostedURL)
	}
	shown := cl.redactor(c).String(httpx.DisplayURL(loc))
	advice := ""
	// A base URL that moved as a whole (http to https, another host) keeps
	// the call's path below the new one: that new base is the one to use.
	if base, ok := strings.CutSuffix(strings.TrimSuffix(loc.Path, "/"), strings.TrimSuffix(c.Path, "/")); ok && c.Path != "" {
		advice = fmt.Sprintf("Set HOOKSVC_API_URL (--api-url) to %s when starting hookmcp", cl.redactor(c).String(httpx.DisplayURL(&url.URL{Scheme: loc.Scheme, Host: loc.Host, Path: base})))
	} else {
		advice = fmt.Sprintf("Set HOOKSVC_API_URL (--api-url) to the base URL it points to when starting hookmcp (for the hosted service: %s)", hostedURL)
	}
	return fmt.Errorf("%s failed: %s redirects (HTTP %d) to %s: hookmcp does not follow redirects, so that the API key is never sent anywhere but HOOKSVC_API_URL. %s",
		c.doing(), httpx.DisplayURL(cl.BaseURL), resp.Status, shown, advice)
}

// hostedURL is the base URL of the hosted service, for advice.
const hostedURL = "https://webhook.site"

// authText explains a refused authentication by the key that was sent:
// none, the configured one, or the call's own. It never shows the key.
func (cl *Client) authText(c Call, status string) string {
	switch {
	case c.Key == "":
		return fmt.Sprintf("%s failed: authentication required (the API answered %s): no API key was sent, and this needs one: "+
			"the token is private to an account. Set HOOKSVC_API_KEY in hookmcp's environment to that account's key, or pass api_key", c.doing(), status)
	case c.Key == cl.APIKey:
		return fmt.Sprintf("%s failed: the API key in HOOKSVC_API_KEY was refused (the API answered %s): it is not a valid key, "+
			"or not the key of the account that owns the token. Check the key in the account's settings and start hookmcp with the right one, "+
			"or pass the owning account's key as api_key", c.doing(), status)
	}
	text := fmt.Sprintf("%s failed: the api_key passed in this call was refused (the API answered %s): it is not a valid key, "+
		"or not the key of the account that owns the token. Pass that account's key", c.doing(), status)
	if cl.APIKey != "" {
		text += ", or leave api_key out to use HOOKSVC_API_KEY"
	}
	return text
}

// describeBody says what an answer's body is, for an error: a web page by
// its title, else its start.
func describeBody(resp *httpx.Answer, redactor redact.Redactor) string {
	if httpx.IsWebPage(resp.Header, resp.Body) {
		if title := httpx.PageTitle(resp.Body); title != "" {
			return fmt.Sprintf("a web page (HTML) titled %q", redactor.String(title))
		}
		return "a web page (HTML)"
	}
	if len(strings.TrimSpace(string(resp.Body))) == 0 {
		return "an empty body"
	}
	return redactor.String(httpx.Snippet([]byte(envelopeMessage(resp.Body)), 120))
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

// fieldMessages renders a 422 body as "field: message; field: message":
// Laravel's form, {"message":"The given data was invalid.","errors":{"field":
// ["message", ...]}}, which the hosted service answers, or the flat
// {"field":["message", ...]}; else the error envelope's message.
func fieldMessages(body []byte) string {
	// The API's words are quoted, never more of them than an error holds:
	// a service (or whatever answers at HOOKSVC_API_URL) may send a
	// megabyte of them.
	return httpx.Snippet([]byte(allFieldMessages(body)), maxQuotedMessage)
}

// maxQuotedMessage bounds what an error quotes of the API's own message.
const maxQuotedMessage = 500

func allFieldMessages(body []byte) string {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err == nil {
		var nested map[string]json.RawMessage
		if json.Unmarshal(fields["errors"], &nested) == nil {
			if text := fieldList(nested); text != "" {
				return text
			}
		}
		if text := fieldList(fields); text != "" {
			return text
		}
	}
	if message, ok := apiRefusal(body); ok {
		return message
	}
	return envelopeMessage(body)
}

// fieldList renders {"field":["message", ...]} as "field: message; field:
// message", skipping members of another shape; "" when none has messages.
func fieldList(fields map[string]json.RawMessage) string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		var messages []string
		if json.Unmarshal(fields[name], &messages) == nil && len(messages) > 0 {
			parts = append(parts, name+": "+strings.Join(messages, " "))
		}
	}
	return strings.Join(parts, "; ")
}

// errorDetail is the error envelope's message, else a web page's title, else
// the start of the body.
func errorDetail(resp *httpx.Answer) string {
	if httpx.IsWebPage(resp.Header, resp.Body) {
		if title := httpx.PageTitle(resp.Body); title != "" {
			return fmt.Sprintf("a web page (HTML) titled %q", title)
		}
	}
	return envelopeMessage(resp.Body)
}

// envelopeMessage is the error envelope's message, else what the body is
// (describeAnswer: member names, not values, of JSON).
func envelopeMessage(body []byte) string {
	var envelope struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &envelope) == nil {
		if envelope.Error.Message != "" {
			return httpx.Snippet([]byte(envelope.Error.Message), maxQuotedMessage)
		}
		if envelope.Message != "" {
			return httpx.Snippet([]byte(envelope.Message), maxQuotedMessage)
		}
	}
	return describeAnswer(body, 200)
}
