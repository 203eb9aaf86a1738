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
	// expectRedirect: a redirect to where the answer is (a file's storage),
	// or the answer itself, of any kind.
	expectRedirect
)

// isRedirect reports a status that sends the client elsewhere with a GET.
func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// hasUUID reports whether raw is a JSON object with a non-empty "uuid"
// string.
func hasUUID(raw json.RawMessage) bool {
	var probe struct {
		UUID *string `json:"uuid"`
	}
	return json.Unmarshal(raw, &probe) == nil && probe.UUID != nil && *probe.UUID != ""
}

// notTheAPI explains a success that the API would not give, or nil when it
// is the API's. A delete takes what the real servers answer: an empty body
// with any 2xx (the hosted service answers 200 where its docs say 204), or
// {"status":true|false} / {"success":...}; the delete's caller reads which
// (deleteVerdict).
func (cl *Client) notTheAPI(c Call, resp *httpx.Answer) error {
	if c.expect == expectAny || c.expect == expectRaw || c.expect == expectRedirect {
		return nil
	}
	body := bytes.TrimSpace(resp.Body)
	if len(body) == 0 {
		if c.expect == expectDone {
			return nil
		}
		return cl.foreignSuccess(c, resp, "an empty body, not the capture API's JSON")
	}
	if httpx.IsWebPage(resp.Header, resp.Body) {
		return cl.webPageError(c, resp)
	}
	if body[0] != '{' && body[0] != '[' {
		mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		if mediaType == "" {
			mediaType = "typeless"
		}
		return cl.foreignSuccess(c, resp, fmt.Sprintf("a %s body, not the capture API's JSON", mediaType))
	}
	// The API's own error answer, sent with a 2xx: the API refusing, not
	// another server.
	if message, ok := apiRefusal(body); ok {
		return cl.refusedWith2xx(c, resp, message)
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
		if _, ok := deleteVerdict(body); !ok {
			why = `JSON that is not the API's answer to a delete (an empty body, or {"status":true} / {"status":false})`
		}
	}
	if why == "" {
		return nil
	}
	return cl.foreignSuccess(c, resp, why+", not the capture API's answer")
}

// deleteVerdict reads the API's answer to a delete that notTheAPI took:
// none reports the API's word that nothing was deleted ({"status":false},
// as the open-source server answers a delete of a token's requests when it
// had none, or {"success":false}); an empty body, or true, is a delete
// done. ok is false for JSON of another shape.
func deleteVerdict(body []byte) (none bool, ok bool) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return false, true
	}
	var proof struct {
		Status  *bool `json:"status"`
		Success *bool `json:"success"`
	}
	// A status or success of another type fails to decode: not the API's.
	if json.Unmarshal(body, &proof) != nil {
		return false, false
	}
	switch {
	case proof.Status != nil:
		return !*proof.Status, true
	case proof.Success != nil:
		return !*proof.Success, true
	}
	return false, false
}

// apiRefusal is the message of an error answer the API sends: its
// envelope, {"success":false,"error":{"message":...}}, or Laravel's
// {"message":...} with at most "errors" (a validation failure, whose field
// messages it adds) and debug members. ok is false for any other body.
func apiRefusal(body []byte) (message string, ok bool) {
	var members map[string]json.RawMessage
	if json.Unmarshal(body, &members) != nil {
		return "", false
	}
	var envelope struct {
		Success *bool `json:"success"`
		Error   *struct {
			Message *string `json:"message"`
		} `json:"error"`
		Message *string                    `json:"message"`
		Errors  map[string]json.RawMessage `json:"errors"`
	}
	if json.Unmarshal(body, &envelope) != nil || envelope.Success != nil && *envelope.Success {
		return "", false
	}
	if envelope.Error != nil && envelope.Error.Message != nil {
		return httpx.Snippet([]byte(*envelope.Error.Message), maxQuotedMessage), true
	}
	for name := range members {
		switch name {
		case "message", "errors", "success", "exception", "file", "line", "trace":
		default:
			return "", false
		}
	}
	if envelope.Message == nil {
		return "", false
	}
	message = *envelope.Message
	if fields := fieldList(envelope.Errors); fields != "" {
		message += " (" + fields + ")"
	}
	return httpx.Snippet([]byte(message), maxQuotedMessage), true
}

// refusedWith2xx says the API's own refusal, which came with a 2xx status:
// the base URL is right, the API said no.
func (cl *Client) refusedWith2xx(c Call, resp *httpx.Answer, message string) error {
	text := fmt.Sprintf("%s failed: the capture API refused it (HTTP %d with its error answer): %s", c.doing(), resp.Status,
		cl.redactor(c).String(httpx.Snippet([]byte(message), 300)))
	if c.expect == expectDone {
		text += ". Nothing confirms that anything was deleted"
	}
	return errors.New(text)
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
