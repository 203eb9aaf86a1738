package hooksvc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpforge/servers/shared/httpx"
)

// expect is what a success of a call must carry to be the API's: anything
// else means HOOKSVC_API_URL names something that is not the capture API (a
// capture URL, a web page, another service), and taking it for the API would
// make up results, or report a deletion that did not happen.
type expect int

const (
	// expectAny takes any success, for a call that reads nothing from it.
	expectAny expect = iota
	// expectObject: a JSON object with a "uuid" string, as every token and
	// request object the API sends has.
	expectObject
	// expectPage: a listing envelope whose data is a list of objects with a
	// "uuid" string (an empty list may come as {}: the API is PHP).
	expectPage
	// expectDone: the API's proof of a delete: 204 with no body, or a JSON
	// object whose status (or success) is true.
	expectDone
	// expectRaw: a captured body, of any kind and with any headers, which
	// says nothing of where it came from.
	expectRaw
)

// hasUUID reports whether raw is a JSON object with a non-empty "uuid"
// string.
func hasUUID(raw json.RawMessage) bool {
	var probe struct {
		UUID *string `json:"uuid"`
	}
	return json.Unmarshal(raw, &probe) == nil && probe.UUID != nil && *probe.UUID != ""
}

// notTheAPI explains a success that the API would not give, or nil when it
// is the API's.
func (cl *Client) notTheAPI(c Call, resp *httpx.Answer) error {
	if c.expect == expectAny || c.expect == expectRaw {
		return nil
	}
	if httpx.IsWebPage(resp.Header, resp.Body) {
		return cl.webPageError(c, resp)
	}
	body := bytes.TrimSpace(resp.Body)
	if c.expect == expectDone && len(body) == 0 && resp.Status == http.StatusNoContent {
		return nil
	}
	if len(body) == 0 || (body[0] != '{' && body[0] != '[') {
		mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		if mediaType == "" {
			mediaType = "typeless"
		}
		what := fmt.Sprintf("a %s body", mediaType)
		if len(body) == 0 {
			what = "an empty body"
		}
		return cl.foreignSuccess(c, resp, what+", not the capture API's JSON")
	}
	var why string
	switch c.expect {
	case expectObject:
		if !hasUUID(body) {
			why = `JSON without the "uuid" every token and request of the API has`
		}
	case expectPage:
		why = pageProblem(body)
	case expectDone:
		var proof struct {
			Status  *bool `json:"status"`
			Success *bool `json:"success"`
		}
		if json.Unmarshal(body, &proof) != nil || !((proof.Status != nil && *proof.Status) || (proof.Success != nil && *proof.Success)) {
			why = `JSON that does not confirm the delete (the API answers HTTP 204, or {"status":true})`
		}
	}
	if why == "" {
		return nil
	}
	return cl.foreignSuccess(c, resp, why+", not the capture API's answer")
}

// pageProblem says why body is not the API's listing envelope, or "".
func pageProblem(body []byte) string {
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return "JSON that is not an object, where the API sends a listing"
	}
	raw, ok := fields["data"]
	switch {
	case !ok:
		return `JSON without the "data" list of the API's listings`
	case bytes.Equal(bytes.TrimSpace(raw), []byte("{}")):
		return ""
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return `JSON whose "data" is not a list, where the API sends a listing`
	}
	for _, item := range items {
		if !hasUUID(item) {
			return `a listing whose "data" holds something other than the API's requests (each has a "uuid")`
		}
	}
	return ""
}

// foreignSuccess says that a 2xx answer is not the API's: what it is (what
// ends with why it is not the API's), and
// which setting to check. Nothing was read from it, and nothing reported
// done on its word.
func (cl *Client) foreignSuccess(c Call, resp *httpx.Answer, what string) error {
	text := fmt.Sprintf("%s failed: %s answered HTTP %d with %s", c.doing(), httpx.DisplayURL(cl.BaseURL), resp.Status, what)
	if len(bytes.TrimSpace(resp.Body)) > 0 {
		text += ": " + describeBody(resp, cl.redactor(c))
	}
	text += ". "
	if c.expect == expectDone {
		text += "Nothing confirms that anything was deleted. "
	}
	return fmt.Errorf("%sCheck that HOOKSVC_API_URL (--api-url) is the API's base URL (for the hosted service: %s), set when starting hookmcp", text, hostedURL)
}

// webPageError says that the base URL serves a web page, whatever the
// status.
func (cl *Client) webPageError(c Call, resp *httpx.Answer) error {
	status := fmt.Sprintf("HTTP %d", resp.Status)
	if resp.Status >= 300 {
		status += " " + http.StatusText(resp.Status)
	}
	text := fmt.Sprintf("%s failed: %s answered %s with %s, not the capture API's JSON: that URL is a web page, not the API. ",
		c.doing(), httpx.DisplayURL(cl.BaseURL), status, describeBody(resp, cl.redactor(c)))
	if c.expect == expectDone && resp.Status < 300 {
		text += "Nothing was deleted on its word. "
	}
	return fmt.Errorf("%sHOOKSVC_API_URL (--api-url) must be the API's base URL (for the hosted service: %s), set when starting hookmcp", text, hostedURL)
}

// captureURLError says that HOOKSVC_API_URL is a token's capture URL, and
// which base URL to use instead.
func (cl *Client) captureURLError(c Call, resp *httpx.Answer, token string) error {
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mediaType == "" {
		mediaType = "no Content-Type"
	}
	text := fmt.Sprintf("%s failed: HOOKSVC_API_URL (%s) is a capture URL, not the capture API: the request was captured by token %s "+
		"and answered with its default response (HTTP %d, %s) instead of the API's JSON. "+
		"Set HOOKSVC_API_URL to the service's base URL, %s, when starting hookmcp (and HOOKSVC_TOKEN_ID=%s to make that token the default)",
		c.doing(), httpx.DisplayURL(cl.BaseURL), token, resp.Status, mediaType, BaseOfCaptureURL(cl.BaseURL, token), token)
	if c.Key != "" {
		text += ". The API key was sent with that request, and whoever has the capture URL can read it there: " +
			"delete the token's requests once hookmcp uses the right URL, or change the key"
	}
	return fmt.Errorf("%s", text)
}

// captured is what the client learnt when a request was captured: the base
// URL is the capture URL of token, whether a key went there, and how it was
// found.
type captured struct {
	token   string
	keySent bool
	check   bool // the capture was of checkBeforeKey's request
}

// knownCaptureURLError refuses a call once HOOKSVC_API_URL has shown itself
// a capture URL: sending it would hand the key to the capture URL again.
func (cl *Client) knownCaptureURLError(c Call, seen captured) error {
	how := "an earlier call was captured there"
	if seen.check {
		how = "a request sent there without the key, to check, was captured"
	}
	text := fmt.Sprintf("%s failed: nothing was sent: HOOKSVC_API_URL (%s) is a capture URL of token %s, not the capture API (%s). "+
		"Set HOOKSVC_API_URL to the service's base URL, %s, when starting hookmcp (and HOOKSVC_TOKEN_ID=%s to make that token the default)",
		c.doing(), httpx.DisplayURL(cl.BaseURL), seen.token, how, BaseOfCaptureURL(cl.BaseURL, seen.token), seen.token)
	if seen.keySent {
		text += ". The API key was sent with that earlier call, and whoever has the capture URL can read it there: " +
			"delete the token's requests once hookmcp uses the right URL, or change the key"
	}
	return errors.New(text)
}

// BaseOfCaptureURL is the service's base URL for u, a capture URL: u without
// the path segment naming the token (and what follows it), or without its
// last segment when none does (an alias); a token's subdomain
// (https://<uuid>.webhook.site) is dropped too.
func BaseOfCaptureURL(u *url.URL, token string) string {
	base := &url.URL{Scheme: u.Scheme, Host: u.Host}
	if first, rest, ok := strings.Cut(u.Host, "."); ok && (strings.EqualFold(first, token) || UUIDPattern.MatchString(first)) && strings.Contains(rest, ".") {
		base.Host = rest
	}
	segments := strings.Split(strings.Trim(u.Path, "/"), "/")
	cut := len(segments) - 1
	for i, segment := range segments {
		if strings.EqualFold(segment, token) || UUIDPattern.MatchString(segment) {
			cut = i
			break
		}
	}
	if cut > 0 {
		base.Path = "/" + strings.Join(segments[:cut], "/")
	}
	return base.String()
}
