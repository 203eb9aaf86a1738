package hooksvc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/jsonx"
)

// TokenID is a token's UUID, as the API's paths take it (never an alias).
// Token and request ids have types of their own so that a call cannot take
// one for the other.
type TokenID string

// RequestID is a captured request's UUID.
type RequestID string

// CaptureURL is where a token receives requests: <base>/<uuid>.
func (cl *Client) CaptureURL(tokenID TokenID) string {
	return cl.BaseURL.JoinPath(string(tokenID)).String()
}

func tokenPath(id TokenID) string { return "/token/" + url.PathEscape(string(id)) }

func what(id TokenID) string { return "token " + string(id) }

// CreateToken creates a token from body (only the fields to set) and returns
// the API's token object.
func (cl *Client) CreateToken(ctx context.Context, key string, body map[string]any) (json.RawMessage, error) {
	resp, err := cl.Do(ctx, Call{Method: http.MethodPost, Path: "/token", Body: body, Key: key, Doing: "Creating a token", expect: expectObject})
	if err != nil {
		return nil, err
	}
	return jsonObject(resp.Body, "the new token")
}

// GetToken returns a token object.
func (cl *Client) GetToken(ctx context.Context, key string, id TokenID) (json.RawMessage, error) {
	resp, err := cl.Do(ctx, Call{Method: http.MethodGet, Path: tokenPath(id), Key: key, What: what(id), Doing: "Reading token " + string(id), expect: expectObject})
	if err != nil {
		return nil, err
	}
	return jsonObject(resp.Body, what(id))
}

// PutToken replaces a token's settings with body and returns the token.
// The API resets every setting body leaves out.
func (cl *Client) PutToken(ctx context.Context, key string, id TokenID, body map[string]any) (json.RawMessage, error) {
	resp, err := cl.Do(ctx, Call{Method: http.MethodPut, Path: tokenPath(id), Body: body, Key: key, What: what(id), Doing: "Updating token " + string(id), expect: expectObject})
	if err != nil {
		return nil, err
	}
	return jsonObject(resp.Body, what(id))
}

// DeleteToken deletes a token and everything it captured.
func (cl *Client) DeleteToken(ctx context.Context, key string, id TokenID) error {
	c := Call{Method: http.MethodDelete, Path: tokenPath(id), Key: key, What: what(id), Doing: "Deleting token " + string(id), expect: expectDone}
	return cl.deleteOne(ctx, c, "get_token shows whether it still exists")
}

// deleteOne performs c, the delete of one thing, and takes the API's word
// that nothing was deleted ({"status":false}) as a failure: the tools report
// such a delete done, and must not report more than was done.
func (cl *Client) deleteOne(ctx context.Context, c Call, check string) error {
	resp, err := cl.Do(ctx, c)
	if err != nil {
		return err
	}
	if none, _ := deleteVerdict(resp.Body); none {
		return fmt.Errorf("%s failed: the capture API answered HTTP %d with %s: it deleted nothing (%s may be gone already); %s",
			c.doing(), resp.Status, httpx.Snippet(bytes.TrimSpace(resp.Body), 120), c.What, check)
	}
	return nil
}

// ListRequests returns one page envelope of a token's requests.
func (cl *Client) ListRequests(ctx context.Context, key string, id TokenID, query url.Values) (*Page, error) {
	resp, err := cl.Do(ctx, Call{Method: http.MethodGet, Path: tokenPath(id) + "/requests", Query: query, Key: key, What: what(id),
		Doing: "Listing the requests of token " + string(id), expect: expectPage})
	if err != nil {
		return nil, err
	}
	return DecodePage(resp.Body)
}

// LatestRequest returns the token's newest request object as listed, and
// false when it has none. It lists instead of reading /request/latest: a
// listing tells an unknown token (404) from one with no requests (total 0),
// which /request/latest answers 404 for both.
func (cl *Client) LatestRequest(ctx context.Context, key string, id TokenID) (json.RawMessage, bool, error) {
	page, err := cl.ListRequests(ctx, key, id, url.Values{"sorting": {"newest"}, "per_page": {"1"}, "page": {"1"}})
	if err != nil || len(page.Data) == 0 {
		return nil, false, err
	}
	return page.Data[0], true, nil
}

// requestCall addresses one captured request, below the token's path;
// doing is what the call does to it ("Reading", "Deleting").
func requestCall(method, key string, id TokenID, requestID RequestID, below, doing string) Call {
	return Call{
		Method: method, Path: tokenPath(id) + "/request/" + url.PathEscape(string(requestID)) + below, Key: key,
		What:     fmt.Sprintf("request %s of token %s", requestID, id),
		Doing:    fmt.Sprintf("%s request %s of token %s", doing, requestID, id),
		NotFound: "the token or the request does not exist (a deleted request, or one past the token's request_limit, is gone); list_requests shows the token's request ids",
	}
}

// A request captured a moment ago may answer 404 for a second or two while
// the hosted service stores it: a read of one request is tried again after
// freshReadFirstWait, doubling up to a second, freshReadRetries times (2.75
// s in all) before the request is said not to exist.
const (
	freshReadRetries   = 4
	freshReadFirstWait = 250 * time.Millisecond
)

// readFresh is Do for a read of one request, tried again while the API does
// not find it (see freshReadRetries).
func (cl *Client) readFresh(ctx context.Context, c Call) (*httpx.Answer, error) {
	var waited time.Duration
	for attempt := 0; ; attempt++ {
		resp, err := cl.Do(ctx, c)
		if !errors.Is(err, ErrNotFound) {
			return resp, err
		}
		wait := min(freshReadFirstWait<<attempt, time.Second)
		if attempt == freshReadRetries || !fits(ctx, wait) || cl.sleep(ctx, wait) != nil {
			if attempt == 0 {
				return nil, err
			}
			return nil, fmt.Errorf("%w. It was read %d times over %s, since a request just captured may take a moment to be stored", err, attempt+1, waited)
		}
		waited += wait
		cl.Logger.Debug("reading a request again after a 404", "path", c.Path, "wait", wait, "attempt", attempt+1)
	}
}

// GetRequest returns one captured request's object (metadata and content).
func (cl *Client) GetRequest(ctx context.Context, key string, id TokenID, requestID RequestID) (json.RawMessage, error) {
	c := requestCall(http.MethodGet, key, id, requestID, "", "Reading")
	c.expect = expectObject
	resp, err := cl.readFresh(ctx, c)
	if err != nil {
		return nil, err
	}
	return jsonObject(resp.Body, c.What)
}

// PollRequests is ListRequests sent once: a 429 or a gateway error comes
// back as a *StatusError at once, for a caller that paces its own polls.
func (cl *Client) PollRequests(ctx context.Context, key string, id TokenID, query url.Values) (*Page, error) {
	resp, err := cl.Do(ctx, Call{Method: http.MethodGet, Path: tokenPath(id) + "/requests", Query: query, Key: key, What: what(id), NoRetry: true,
		Doing: "Checking token " + string(id) + " for new requests", expect: expectPage})
	if err != nil {
		return nil, err
	}
	return DecodePage(resp.Body)
}

// RawBody returns a captured request's body exactly as it arrived, with
// the keys and secrets redacted.
func (cl *Client) RawBody(ctx context.Context, key string, id TokenID, requestID RequestID) ([]byte, error) {
	return cl.rawBody(ctx, key, id, requestID, false)
}

// SignedBody is RawBody unredacted: the bytes a signature covers, even
// where they hold a key, for a check that never shows them.
func (cl *Client) SignedBody(ctx context.Context, key string, id TokenID, requestID RequestID) ([]byte, error) {
	return cl.rawBody(ctx, key, id, requestID, true)
}

func (cl *Client) rawBody(ctx context.Context, key string, id TokenID, requestID RequestID, exact bool) ([]byte, error) {
	c := requestCall(http.MethodGet, key, id, requestID, "/raw", "Reading the body of")
	c.expect = expectRaw
	c.Exact = exact
	resp, err := cl.readFresh(ctx, c)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// DeleteRequest deletes one captured request.
func (cl *Client) DeleteRequest(ctx context.Context, key string, id TokenID, requestID RequestID) error {
	c := requestCall(http.MethodDelete, key, id, requestID, "", "Deleting")
	c.expect = expectDone
	return cl.deleteOne(ctx, c, "list_requests shows the token's request ids")
}

// Capture is a request to send to a token's capture URL.
type Capture struct {
	Method string
	// Segments are the path below the capture URL, one element each,
	// already checked: none empty, "." or "..".
	Segments []string
	Query    url.Values
	Header   http.Header
	Body     []byte
}

// maxCaptureAnswerBytes bounds the answer of a capture URL: the token's
// configured response.
const maxCaptureAnswerBytes = 1 << 20

// CaptureAddress is where Capture sends c: the token's capture URL, with
// c's path and query. Each segment is data, percent-encoded on its own (a
// % in it is sent as %25, a / as %2F): url.JoinPath would read a segment
// as escaped text and send %2e%2e as written.
func (cl *Client) CaptureAddress(tokenID TokenID, c Capture) *url.URL {
	u := cl.BaseURL.JoinPath(string(tokenID))
	path, raw := u.Path, u.EscapedPath()
	for _, segment := range c.Segments {
		path += "/" + segment
		raw += "/" + url.PathEscape(segment)
	}
	u.Path, u.RawPath = path, raw
	u.RawQuery = c.Query.Encode()
	return u
}

// maxDecodings is how many times below checks a path decoded: more than
// any chain of proxies decodes.
const maxDecodings = 4

// below reports whether the escaped path p stays below home (an escaped
// path too) however a server on the way reads it: percent-decoded up to
// maxDecodings times, a backslash as a slash, ;parameters cut, Unicode
// folded (NFKC), then cleaned of dot segments.
func below(p, home string) bool {
	// JoinPath leaves a path relative when the base URL has none.
	p, home = "/"+strings.TrimPrefix(p, "/"), "/"+strings.Trim(home, "/")
	for range maxDecodings + 1 {
		if !readsBelow(p, home) {
			return false
		}
		decoded, err := url.PathUnescape(p)
		decodedHome, errHome := url.PathUnescape(home)
		if err != nil || errHome != nil {
			return false
		}
		if decoded == p {
			return true
		}
		p, home = decoded, decodedHome
	}
	// Still changing after maxDecodings decodings: not a path to send.
	return false
}

// readsBelow is below for one reading of p, without decoding it.
func readsBelow(p, home string) bool {
	p = norm.NFKC.String(strings.ReplaceAll(p, "\\", "/"))
	segments := strings.Split(p, "/")
	for i, segment := range segments {
		segment, _, _ = strings.Cut(segment, ";")
		if strings.Contains(segment, ".") && strings.Trim(segment, ". ") == "" {
			// ., .., ... and ". .": Windows servers trim trailing dots
			// and spaces; reading each as .. is the reading that climbs.
			segments[i] = ".."
			continue
		}
		segments[i] = strings.TrimRight(segment, ". ")
	}
	clean := path.Clean("/" + strings.Join(segments, "/"))
	return clean == home || strings.HasPrefix(clean, home+"/")
}

// Capture sends c to the token's capture URL on the configured service and
// returns its answer, secrets redacted. The API key is never sent there:
// whatever a capture URL receives is stored and shown to anyone who has the
// URL. It is sent once, never retried, and never to another host.
func (cl *Client) Capture(ctx context.Context, tokenID TokenID, c Capture, callKey string) (*httpx.Answer, error) {
	ctx, cancel := httpx.WithTimeout(ctx, cl.Timeout)
	defer cancel()
	u, home := cl.CaptureAddress(tokenID, c), cl.BaseURL.JoinPath(string(tokenID))
	if u.Scheme != home.Scheme || u.Host != home.Host || u.User != nil || !below(u.EscapedPath(), home.EscapedPath()) {
		// Checked segments cannot get here; this guards the guarantee.
		return nil, fmt.Errorf("the address %s is not below the token's capture URL %s: nothing was sent", httpx.DisplayURL(u), home)
	}
	header := c.Header.Clone()
	if header == nil {
		header = http.Header{}
	}
	header.Del("Api-Key")
	resp, err := cl.Caller.Do(ctx, httpx.Outbound{
		Method: c.Method, URL: u, Header: header, Body: c.Body,
		MaxBytes: maxCaptureAnswerBytes, Redactor: cl.secrets(callKey),
	})
	var tooLarge *httpx.TooLargeError
	if errors.As(err, &tooLarge) {
		return nil, fmt.Errorf("Sending the test request to %s failed: the capture URL's answer is over %d KiB and was not read to the end; the token's default_content is that large",
			cl.CaptureURL(tokenID), tooLarge.Limit>>10)
	}
	if failure := httpx.AsFailure(err); failure != nil {
		return nil, cl.unreachable("Sending the test request to "+cl.CaptureURL(tokenID), "the capture URL", failure)
	}
	if err != nil {
		return nil, fmt.Errorf("Sending the test request to %s failed: %w", cl.CaptureURL(tokenID), err)
	}
	return resp, nil
}

// DeleteRequests deletes a token's requests matching query (date_from,
// date_to, query), or all of them when it is empty. The path is singular:
// the plural one does not exist. none reports the API's word that nothing
// was deleted: the open-source server answers {"status":false} when the
// token had no requests.
func (cl *Client) DeleteRequests(ctx context.Context, key string, id TokenID, query url.Values) (none bool, err error) {
	resp, err := cl.Do(ctx, Call{Method: http.MethodDelete, Path: tokenPath(id) + "/request", Query: query, Key: key, What: what(id),
		Doing: "Deleting the requests of token " + string(id), expect: expectDone})
	if err != nil {
		return false, err
	}
	none, _ = deleteVerdict(resp.Body)
	return none, nil
}

// Page is a listing envelope, as DecodePage reads it. Data holds the requests as the API sent them;
// Fields keeps every member, so the envelope can be returned as it came.
type Page struct {
	Data       []json.RawMessage
	Total      int
	PerPage    int
	Page       int
	IsLastPage bool
	From, To   int
	Fields     map[string]json.RawMessage
}

// DecodePage reads a listing envelope. It is split without copying: Data and
// Fields share body's bytes,
// which must not change while they are in use (a resource read goes through
// 100 pages of up to a megabyte each).
func DecodePage(body []byte) (*Page, error) {
	var fields map[string]json.RawMessage
	if err := jsonx.UnmarshalSharing(body, &fields); err != nil {
		return nil, fmt.Errorf("the capture API sent a listing that is not a JSON object: %s", describeAnswer(body, 120))
	}
	if _, ok := fields["data"]; !ok {
		return nil, fmt.Errorf("the capture API sent a listing without its data: %s", describeAnswer(body, 120))
	}
	p := &Page{Fields: fields}
	// The API is PHP: an empty list may arrive as [] or {}. Decode loosely.
	// The data was checked with the envelope: it is split, not decoded
	// again.
	if raw := fields["data"]; len(raw) > 0 && raw[0] == '[' {
		p.Data = splitArray(raw)
	}
	// The envelope's numbers, loosely too: a member missing, null or of
	// another type reads as zero (false), and the listing is still usable.
	p.Total, p.PerPage, p.Page = lenient[int](fields["total"]), lenient[int](fields["per_page"]), lenient[int](fields["current_page"])
	p.IsLastPage = lenient[bool](fields["is_last_page"])
	p.From, p.To = lenient[int](fields["from"]), lenient[int](fields["to"])
	return p, nil
}

// lenient decodes raw as a T, or gives T's zero value when raw is missing or
// holds another type.
func lenient[T any](raw json.RawMessage) T {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		var zero T
		return zero
	}
	return v
}

// jsonObject checks that body is a JSON object.
func jsonObject(body []byte, what string) (json.RawMessage, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(body, &probe); err != nil {
		return nil, fmt.Errorf("the capture API sent %s as something other than a JSON object", what)
	}
	return json.RawMessage(body), nil
}
