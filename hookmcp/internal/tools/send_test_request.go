package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/unicode/norm"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/mcptool"
	"github.com/mcpforge/servers/shared/redact"
)

// SendTestRequestArgs are send_test_request's arguments.
type SendTestRequestArgs struct {
	TokenArg
	Method  string            `json:"method,omitempty"`
	Path    string            `json:"path,omitempty" jsonschema:"path below the capture URL, e.g. github/push; a leading status code (404) sets the answer status"`
	Query   map[string]string `json:"query,omitempty" jsonschema:"query-string parameters"`
	Headers map[string]string `json:"headers,omitempty" jsonschema:"request headers; Content-Type defaults to application/json for a JSON body, else text/plain"`
	Body    string            `json:"body,omitempty" jsonschema:"request body, sent as is; at most 1,048,576 bytes of UTF-8"`
}

// Bounds of a test request: a sample webhook, not a load test.
const (
	maxTestPathChars   = 2_000 // characters, as the schema's maxLength counts
	maxTestParams      = 50
	maxTestValueBytes  = 8_000
	maxTestBodyBytes   = 1 << 20
	maxAnswerHeaderLen = 1_000
)

var testMethods = mcptool.Enum{"POST", "GET", "PUT", "PATCH", "DELETE"}

// refusedTestHeaders are headers the HTTP client sets itself, and the API's
// key header, which never goes to a capture URL.
var refusedTestHeaders = []string{"Host", "Content-Length", "Transfer-Encoding", "Connection", "Upgrade", "Te", "Trailer", "Api-Key"}

// routingHeaders are headers that some servers (IIS, older Symfony, proxies
// that honour method overrides) read in place of the request's path or
// method: a test request with one could reach the API below the capture
// URL's host, as a path with .. would.
var routingHeaders = []string{"X-Original-Url", "X-Rewrite-Url", "X-Http-Method-Override", "X-Http-Method", "X-Method-Override"}

// SendTestRequestResult is send_test_request's result: what was sent, and
// how the capture URL answered.
type SendTestRequestResult struct {
	TokenID     string              `json:"token_id"`
	Method      string              `json:"method"`
	URL         string              `json:"url" jsonschema:"where it was sent: the token's capture URL, path and query included"`
	Status      int                 `json:"status" jsonschema:"the HTTP status the capture URL answered with (the token's default_status, unless the path set one)"`
	Headers     map[string][]string `json:"headers" jsonschema:"request headers; Content-Type defaults to application/json for a JSON body, else text/plain"`
	ContentType string              `json:"content_type,omitempty"`
	Encoding    string              `json:"encoding" jsonschema:"text when the answer's body is valid UTF-8 and given as is; base64 otherwise"`
	Body        string              `json:"body" jsonschema:"request body, sent as is; at most 1,048,576 bytes of UTF-8"`
	// RequestID is found through the API, never taken from the answer:
	// a capture URL's answer, or a proxy before it, may say anything.
	RequestID string `json:"request_id,omitempty" jsonschema:"the uuid of the request captured: the first after sending that matches what was sent; get_request reads it"`
	Note      string `json:"note,omitempty"`
}

func (h *handlers) sendTestRequestTool() mcptool.Tool[SendTestRequestArgs, SendTestRequestResult] {
	return mcptool.Tool[SendTestRequestArgs, SendTestRequestResult]{
		Name:  "send_test_request",
		Title: "Send a test request to a capture URL",
		Description: "Send one HTTP request to the token's capture URL, as a webhook sender would, to check the token's answer or make sample data; returns the answer and the captured request's id. " +
			"The API key is never sent there (anyone with the URL reads what it receives).",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(true)},
		AdjustInput: func(s *jsonschema.Schema) {
			adjustTokenArg(s)
			testMethods.Schema(s.Properties["method"])
			s.Properties["path"].MaxLength = ptr(maxTestPathChars)
			// Control characters too: a pattern that allowed them would let
			// through what the handler refuses.
			s.Properties["path"].Pattern = `^[^?#%;\\\x00-\x1f\x7f]*$`
			s.Properties["query"].MaxProperties = ptr(maxTestParams)
			s.Properties["headers"].MaxProperties = ptr(maxTestParams)
			s.Properties["body"].MaxLength = ptr(maxTestBodyBytes)
		},
		AdjustOutput: func(s *jsonschema.Schema) {
			s.Properties["encoding"].Enum = []any{"text", "base64"}
			s.Properties["url"].Format = "uri"
			headerMap(s.Properties["headers"])
		},
		Verbatim: []string{"body"},
		Handle:   h.sendTestRequest,
	}
}

func (h *handlers) sendTestRequest(ctx context.Context, _ *mcp.CallToolRequest, args SendTestRequestArgs) (*mcp.CallToolResult, SendTestRequestResult, error) {
	id, key, err := h.access(args.TokenID, args.APIKey)
	if err != nil {
		return nil, SendTestRequestResult{}, err
	}
	// One cleaner for what is sent and what comes back: a key, in any
	// form and any case, is neither sent nor shown.
	clean := answerCleaner(h.secrets(key), h.cfg.APIKey, key)
	capture, err := args.capture(clean)
	if err != nil {
		return nil, SendTestRequestResult{}, err
	}
	// The newest request before sending is the cursor: the one sent is
	// among those after it, whoever else sends. Nothing is marked as seen:
	// sending shows the assistant no request, so a wait that follows
	// still returns whatever came before the one sent, and then that one.
	cursor, _, err := h.newestCursor(ctx, key, id)
	if err != nil {
		return nil, SendTestRequestResult{}, fmt.Errorf("reading the token's newest request before sending (nothing was sent): %w", err)
	}
	answer, err := h.client.Capture(ctx, id, capture, key)
	if err != nil {
		return nil, SendTestRequestResult{}, err
	}
	// Everything taken from the answer is redacted: the capture URL, or a
	// proxy before it, may echo a key in any header (the body is redacted
	// as it is read).
	out := SendTestRequestResult{
		TokenID: string(id), Method: capture.Method, URL: h.client.CaptureAddress(id, capture).String(),
		Status: answer.Status, ContentType: truncate(clean(answer.Header.Get("Content-Type")), maxAnswerHeaderLen),
	}
	var left int
	out.Headers, left = answerHeaders(answer.Header, clean)
	if left > 0 {
		out.Note = fmt.Sprintf("The answer had %d more header values than the %d shown (at most %d bytes of headers); they were left out.", left, maxAnswerHeaders, maxAnswerHeaderBytes)
	}
	body := []byte(clean(string(answer.Body)))
	if utf8.Valid(body) {
		out.Encoding, out.Body = "text", string(body)
	} else {
		out.Encoding, out.Body = "base64", base64.StdEncoding.EncodeToString(body)
	}
	if err := h.sentRequest(ctx, key, id, cursor, capture, &out); err != nil {
		return nil, SendTestRequestResult{}, err
	}
	summary := fmt.Sprintf("Sent %s %s; the capture URL answered %d (%d bytes, body as %s).", out.Method, out.URL, out.Status, len(body), out.Encoding)
	if out.RequestID != "" {
		summary += " Captured as request " + out.RequestID + "."
	}
	if out.Note != "" {
		summary += " " + out.Note
	}
	return mcptool.Text(summary, out.Body), out, nil
}

// Reading back the request sent: a service may list a capture a moment
// after answering it, so the read is tried a few times.
const (
	sentReadTries = 4
	sentReadPause = 500 * time.Millisecond
	sentReadPage  = 20
)

// sentRequest finds the request just sent among those after cursor: the
// first that matches what was sent (method, path, query, body,
// Content-Type) and that no other send_test_request of this server has
// named. The newest request may be another sender's, and the answer's
// X-Request-Id is not read at all: the capture URL, or any proxy before
// it, may forge it, and a service's request ids look like its API keys.
func (h *handlers) sentRequest(ctx context.Context, key string, id hooksvc.TokenID, cursor int64, c hooksvc.Capture, out *SendTestRequestResult) error {
	for try := 1; ; try++ {
		after, _, err := h.afterCursor(ctx, key, id, cursor, "", sentReadPage)
		if err != nil {
			return fmt.Errorf("the request was sent (the capture URL answered %d), but listing the token's requests to find its id failed: %w", out.Status, err)
		}
		for _, r := range after {
			if h.sentMatches(id, c, r) && h.seen.claim(hooksvc.RequestID(strings.ToLower(string(r.UUID)))) {
				out.RequestID = string(r.UUID)
				return nil
			}
		}
		if try == sentReadTries {
			break
		}
		if err := h.pause(ctx, sentReadPause); err != nil {
			return err
		}
	}
	note := fmt.Sprintf("No %s request to this path was listed after sending (the token's request_limit may be reached, or it is 0, or the service lists it late), so there is no request id; list_requests shows the token's requests.", c.Method)
	out.Note = strings.TrimSpace(out.Note + " " + note)
	return nil
}

// sentMatches reports whether a listed request is what c sent: method,
// path, query, Content-Type and body. A listing that leaves out the body
// (the hosted service keeps none for multipart) is matched without it.
func (h *handlers) sentMatches(id hooksvc.TokenID, c hooksvc.Capture, r listedRequest) bool {
	sent := h.client.CaptureAddress(id, c)
	u, err := url.Parse(r.URL)
	if err != nil || !strings.EqualFold(r.Method, c.Method) || strings.Trim(u.Path, "/") != strings.Trim(sent.Path, "/") {
		return false
	}
	if want := sent.Query().Encode(); u.Query().Encode() != want && listedQuery(r.Query).Encode() != want {
		// The service's url may leave the query string out; its query
		// object holds it then.
		return false
	}
	contentType := ""
	for name, values := range r.headers() {
		if len(values) > 0 && strings.EqualFold(name, "Content-Type") {
			contentType = values[0]
		}
	}
	if !strings.EqualFold(strings.TrimSpace(contentType), strings.TrimSpace(c.Header.Get("Content-Type"))) {
		return false
	}
	return r.content == nil || *r.content == string(c.Body) || (*r.content == "" && strings.HasPrefix(strings.ToLower(contentType), "multipart/"))
}

// listedQuery reads a listed request's query object (values as strings or
// arrays of strings; null or [] when there is none).
func listedQuery(raw json.RawMessage) url.Values {
	var fields map[string]json.RawMessage
	out := url.Values{}
	if json.Unmarshal(raw, &fields) != nil {
		return out
	}
	for name, v := range fields {
		var one string
		var many []string
		switch {
		case json.Unmarshal(v, &one) == nil:
			out.Add(name, one)
		case json.Unmarshal(v, &many) == nil:
			out[name] = append(out[name], many...)
		}
	}
	return out
}

// capture checks the arguments and returns the request to send. Nothing
// that holds a key (in any form or case clean finds) is sent.
func (a SendTestRequestArgs) capture(clean func(string) string) (hooksvc.Capture, error) {
	method, err := oneOf(testMethods, "method", strings.ToUpper(a.Method))
	if err != nil {
		return hooksvc.Capture{}, err
	}
	c := hooksvc.Capture{Method: method, Query: url.Values{}, Header: http.Header{}, Body: []byte(a.Body)}
	if c.Segments, err = pathSegments(a.Path); err != nil {
		return hooksvc.Capture{}, err
	}
	if len(a.Query) > maxTestParams || len(a.Headers) > maxTestParams {
		return hooksvc.Capture{}, fmt.Errorf("query and headers may hold at most %d entries each; got %d and %d", maxTestParams, len(a.Query), len(a.Headers))
	}
	for name, value := range a.Query {
		if name == "" || len(name)+len(value) > maxTestValueBytes {
			return hooksvc.Capture{}, fmt.Errorf("query parameter %s: a name must not be empty, and a name and value together are at most %d bytes", httpx.HeaderName(name), maxTestValueBytes)
		}
		c.Query.Set(name, value)
	}
	for name, value := range a.Headers {
		if err := checkTestHeader(name, value); err != nil {
			return hooksvc.Capture{}, err
		}
		c.Header.Set(name, value)
	}
	if len(a.Body) > maxTestBodyBytes {
		return hooksvc.Capture{}, fmt.Errorf("body is %d bytes; send_test_request sends at most %d (1 MiB)", len(a.Body), maxTestBodyBytes)
	}
	if a.Body != "" && c.Header.Get("Content-Type") == "" {
		c.Header.Set("Content-Type", "text/plain; charset=utf-8")
		if json.Valid([]byte(a.Body)) {
			c.Header.Set("Content-Type", "application/json")
		}
	}
	parts := map[string]string{"path": a.Path, "body": a.Body, "query": c.Query.Encode()}
	// A part is named for the error, but a name that holds the key (or,
	// for a header, does not read as a name) is not shown.
	for name, value := range a.Query {
		parts[shownName("query parameter", name, name, clean)] = name + "=" + value
	}
	for name, value := range a.Headers {
		parts[shownName("header", name, httpx.HeaderName(name), clean)] = name + ": " + value
	}
	for _, part := range slices.Sorted(maps.Keys(parts)) {
		if clean(parts[part]) != parts[part] {
			return hooksvc.Capture{}, fmt.Errorf("the %s holds the API key, which send_test_request never sends to a capture URL (what it receives is stored and shown to anyone who has the URL): remove it; nothing was sent", part)
		}
	}
	return c, nil
}

// pathSegments splits path into the segments appended to the capture URL,
// refusing what could leave it. Each segment is sent percent-encoded
// (hooksvc.CaptureAddress), so a proxy that decodes the path once reads
// the segment back; and so that no hop that decodes again, cuts path
// parameters or folds Unicode can read one as a dot segment or a slash,
// the path holds no %, ; or backslash, and no segment is made only of
// dots and spaces, in its own form or its compatibility form (NFKC: a
// fullwidth ．or ％ is a dot or a percent sign to a server that folds it).
func pathSegments(path string) ([]string, error) {
	if n := utf8.RuneCountInString(path); n > maxTestPathChars {
		return nil, fmt.Errorf("path is %d characters; at most %d", n, maxTestPathChars)
	}
	if strings.ContainsAny(path, "?#\\") || strings.ContainsFunc(path, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return nil, fmt.Errorf("path %s must be a plain path such as github/push: no ?, #, backslash or control characters (pass query parameters in query)", hooksvc.Quote(path))
	}
	if strings.ContainsAny(path, "%;") {
		return nil, fmt.Errorf("path %s holds %% or ;, which send_test_request refuses: write characters as they are (a space, é), not as %%-escapes, which hookmcp writes itself; "+
			"a server that decodes a path twice, or cuts ;parameters, could otherwise read a segment as .. and leave the token's capture URL. Nothing was sent", hooksvc.Quote(path))
	}
	if i := strings.IndexFunc(path, refusedPathRune); i >= 0 {
		r, _ := utf8.DecodeRuneInString(path[i:])
		return nil, fmt.Errorf("path %s holds %q (U+%04X), which send_test_request refuses: a path may hold letters, digits, spaces, / and - . _ ~ ! $ & ' ( ) * + , = : @ only, "+
			"since Windows servers map some other symbols and punctuation (such as ∕ ⁄ ∖ ¥) to / or \\ and could read a segment as a way out of the token's capture URL; write it without them. Nothing was sent",
			hooksvc.Quote(path), r, r)
	}
	var segments []string
	for _, segment := range strings.Split(strings.Trim(path, "/"), "/") {
		folded := norm.NFKC.String(segment)
		if dotsOnly(segment) || dotsOnly(folded) {
			return nil, fmt.Errorf("path %s must not hold a segment of dots (., .., ...), in any form: it is appended below the token's capture URL and cannot leave it. Nothing was sent", hooksvc.Quote(path))
		}
		if strings.ContainsAny(folded, "/\\%;?#") {
			return nil, fmt.Errorf("path %s holds a character that some servers read as /, \\, %%, ;, ? or # (a fullwidth or compatibility form): write the plain character, or leave it out. Nothing was sent", hooksvc.Quote(path))
		}
		if segment != "" {
			segments = append(segments, segment)
		}
	}
	return segments, nil
}

// refusedPathRune reports a character a test path may not hold. The path
// is allowed, not refused, by kind: ASCII's unreserved characters and
// sub-delimiters (RFC 3986), : @ / and space, and Unicode letters, marks
// and digits. Every Unicode symbol and punctuation character is refused:
// Windows "best-fit" conversion (IIS, ANSI code-page APIs) turns some of
// them, which NFKC leaves alone, into / or \ (U+2215 ∕, U+2044 ⁄, U+2216
// ∖, ¥ in code page 932), and no list of those can be known complete.
func refusedPathRune(r rune) bool {
	if r < utf8.RuneSelf {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-._~!$&'()*+,=:@/ ", r))
	}
	return !unicode.In(r, unicode.L, unicode.M, unicode.N)
}

// dotsOnly reports a segment that some server reads as . or ..: dots,
// with spaces that Windows servers trim.
func dotsOnly(segment string) bool {
	return strings.Contains(segment, ".") && strings.Trim(segment, ". ") == ""
}

// shownName labels a query parameter or header for an error: kind and
// shown, or kind alone when the name holds a secret.
func shownName(kind, name, shown string, clean func(string) string) string {
	if clean(name) != name {
		return "name of a " + kind
	}
	return kind + " " + shown
}

// checkTestHeader refuses a header the client sets itself, the API key's
// header, and a malformed name or value.
func checkTestHeader(name, value string) error {
	for _, refused := range refusedTestHeaders {
		if strings.EqualFold(name, refused) {
			return fmt.Errorf("header %q cannot be set: the HTTP client sets %s itself, and Api-Key (the capture API's key header) is never sent to a capture URL", name, strings.Join(refusedTestHeaders[:len(refusedTestHeaders)-1], ", "))
		}
	}
	for _, refused := range routingHeaders {
		if strings.EqualFold(name, refused) {
			return fmt.Errorf("header %q cannot be set: some servers and proxies route a request by %s in place of its path and method, which could take it out of the token's capture URL; nothing was sent", name, strings.Join(routingHeaders, ", "))
		}
	}
	if !httpx.ValidHeaderName(name) {
		return errors.New(httpx.InvalidHeaderName(name))
	}
	if len(value) > maxTestValueBytes || strings.ContainsAny(value, "\r\n\x00") {
		return fmt.Errorf("header %s: a value is one line of at most %d bytes", httpx.HeaderName(name), maxTestValueBytes)
	}
	return nil
}

// Bounds of the answer's headers as shown: the HTTP client reads up to
// 10 MB of them.
const (
	maxAnswerHeaders     = 100
	maxAnswerHeaderBytes = 16_000
)

// maxCaselessKey is the longest key answerCleaner also finds in any case.
const maxCaselessKey = 256

// answerCleaner returns what cleans a text of a capture URL's answer of
// the keys: in every form secrets knows (escaped, URL-encoded, base64),
// and in any case, since the answer's header names come canonicalised
// (X-Echo-0f8fad5b-D9cb-…) and a service that reads a UUID key without
// regard to case takes it in capitals too.
func answerCleaner(secrets redact.Redactor, keys ...string) func(string) string {
	var alternatives []string
	for _, k := range keys {
		// A key is a UUID: a "key" of kilobytes is no service's, and
		// would make a costly pattern; its exact forms still go.
		if len(k) >= 6 && len(k) <= maxCaselessKey {
			alternatives = append(alternatives, regexp.QuoteMeta(k))
		}
	}
	if len(alternatives) == 0 {
		return secrets.String
	}
	anyCase, err := regexp.Compile("(?i)" + strings.Join(alternatives, "|"))
	if err != nil {
		// Too large to compile: only a configured key of many kilobytes
		// gets here, and the forms secrets knows still go.
		return secrets.String
	}
	return func(s string) string {
		return anyCase.ReplaceAllLiteralString(secrets.String(s), redact.Redacted)
	}
}

// answerHeaders are the capture URL's answer headers, names and values
// cleaned of secrets, each value bounded, at most maxAnswerHeaders values
// and maxAnswerHeaderBytes in all; left is how many values were left out.
func answerHeaders(header http.Header, clean func(string) string) (out map[string][]string, left int) {
	out = make(map[string][]string, min(len(header), maxAnswerHeaders))
	shown, size := 0, 0
	for _, name := range slices.Sorted(maps.Keys(header)) {
		shownName := truncate(clean(name), maxAnswerHeaderLen)
		for _, v := range header[name] {
			v = truncate(clean(v), maxAnswerHeaderLen)
			if shown == maxAnswerHeaders || size+len(shownName)+len(v) > maxAnswerHeaderBytes {
				left++
				continue
			}
			out[shownName] = append(out[shownName], v)
			shown++
			size += len(shownName) + len(v)
		}
	}
	return out, left
}
