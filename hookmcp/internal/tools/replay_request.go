package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/hookmcp/internal/replay"
	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/mcptool"
	"github.com/mcpforge/servers/shared/redact"
)

// ReplayRequestArgs are replay_request's arguments.
type ReplayRequestArgs struct {
	RequestID string `json:"request_id,omitempty"`
	TokenArg
	Target  string            `json:"target"`
	Path    *string           `json:"path,omitempty"`
	Headers map[string]string `json:"headers,omitempty" jsonschema:"set; \"\" removes"`
	AsCurl  bool              `json:"as_curl,omitempty" jsonschema:"only render a curl command"`
}

// ReplayResult is replay_request's answer: the target's, or the command.
type ReplayResult struct {
	RequestID string              `json:"request_id"`
	URL       string              `json:"url"`
	Sent      bool                `json:"sent"`
	Status    int                 `json:"status,omitempty"`
	Headers   map[string][]string `json:"headers,omitempty"`
	Encoding  string              `json:"encoding,omitempty"`
	Body      string              `json:"body,omitempty"`
	Curl      string              `json:"curl,omitempty"`
	Message   string              `json:"message"`
}

// Bounds of a replay: a URL and overrides a person would type; the
// target's answer as much as a model reads.
const (
	maxTargetChars      = 2048
	maxReplayHeaders    = 50
	maxReplayValueBytes = 8192
	maxReplayAnswer     = 64 << 10
	// maxInflatedBytes bounds a compressed body read for secrets.
	maxInflatedBytes = 16 << 20
)

// replayNote is said of every replay: a sender's signature covers a
// timestamp that ages.
const replayNote = "A signed, timestamped request (Stripe, Slack, Standard Webhooks) may be refused by the target as a replay once its timestamp is older than the target's tolerance (often 5 minutes)."

func (h *handlers) replayRequestTool() mcptool.Tool[ReplayRequestArgs, ReplayResult] {
	// Replays have a client of their own: the API's client reaches only the
	// configured API and public storage, a replay's only loopback or what
	// the operator allowed, judged per request (replay.ClientGuard). It
	// follows no redirect: a 3xx is the answer. A loopback target is never
	// reached through a proxy.
	client := httpx.NewClient(httpx.Options{UserAgent: "hookmcp-replay", Guard: replay.ClientGuard, Proxy: replay.Proxy(http.ProxyFromEnvironment)})
	return mcptool.Tool[ReplayRequestArgs, ReplayResult]{
		Name:        "replay_request",
		Title:       "Replay a captured request",
		Description: "Send a captured request (request_id, else the latest) again to target (loopback, or a --replay-to prefix), path below it as captured; as_curl renders a curl command instead.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(true)},
		AdjustInput: adjustReplayArgs,
		AdjustOutput: func(s *jsonschema.Schema) {
			headerMap(s.Properties["headers"])
			s.Properties["encoding"].Enum = []any{"text", "base64"}
		},
		Verbatim:   []string{"body", "curl", "message"},
		ThirdParty: true, // the target wrote its headers; the sender, the path in its URL
		Handle: func(ctx context.Context, req *mcp.CallToolRequest, args ReplayRequestArgs) (*mcp.CallToolResult, ReplayResult, error) {
			return h.replayRequest(ctx, req, args, client)
		},
	}
}

func adjustReplayArgs(s *jsonschema.Schema) {
	adjustTokenArg(s)
	s.Properties["request_id"].Format = "uuid"
	s.Properties["target"].Format = "uri"
	s.Properties["target"].MaxLength = ptr(maxTargetChars)
	s.Properties["path"].MaxLength = ptr(maxTargetChars)
	s.Properties["headers"].MaxProperties = ptr(maxReplayHeaders)
}

// replayRequest passes every error and result through a redactor of the
// key and the signing secrets, though none is written into them.
func (h *handlers) replayRequest(ctx context.Context, req *mcp.CallToolRequest, args ReplayRequestArgs, client *http.Client) (*mcp.CallToolResult, ReplayResult, error) {
	secrets := h.secrets(args.APIKey)
	res, out, err := h.replay(ctx, givenArgs(req), args, client, secrets)
	if err != nil {
		return nil, ReplayResult{}, errors.New(secrets.String(err.Error()))
	}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			tc.Text = secrets.String(tc.Text)
		}
	}
	out.Message, out.Curl, out.Body, out.URL = secrets.String(out.Message), secrets.String(out.Curl), secrets.String(out.Body), secrets.String(out.URL)
	return res, out, nil
}

func (h *handlers) replay(ctx context.Context, g given, args ReplayRequestArgs, client *http.Client, secrets redact.Redactor) (*mcp.CallToolResult, ReplayResult, error) {
	target, err := replayTarget(args.Target)
	if err != nil {
		return nil, ReplayResult{}, err
	}
	overrides, err := replayOverrides(args.Headers)
	if err != nil {
		return nil, ReplayResult{}, err
	}
	if args.Path != nil {
		if err := checkReplayPath(*args.Path); err != nil {
			return nil, ReplayResult{}, err
		}
	}
	if g.blank("request_id") {
		return nil, ReplayResult{}, errors.New("request_id is empty: pass a request UUID, or leave request_id out to replay the token's latest request; nothing was sent")
	}
	if args.RequestID != "" && !hooksvc.UUIDPattern.MatchString(args.RequestID) {
		return nil, ReplayResult{}, fmt.Errorf("request_id must be a request UUID such as %s; got %s. list_requests shows the ids of a token's requests; leave it out for the latest", hooksvc.ExampleUUID, hooksvc.Quote(args.RequestID))
	}
	id, key, err := h.access(args.TokenID, args.APIKey)
	if err != nil {
		return nil, ReplayResult{}, err
	}
	meta, err := h.requestToReplay(ctx, key, id, hooksvc.RequestID(strings.ToLower(args.RequestID)))
	if err != nil {
		return nil, ReplayResult{}, err
	}
	if kind := map[string]string{"email": "an email", "dns": "a DNS lookup"}[meta.Type]; kind != "" {
		return nil, ReplayResult{}, fmt.Errorf("request %s is %s, not an HTTP request, so it cannot be replayed over HTTP; pass the request_id of a web request", meta.UUID, kind)
	}
	r, rebuilt, err := h.capturedRequest(ctx, key, id, meta)
	if err != nil {
		return nil, ReplayResult{}, err
	}
	if args.Path != nil {
		r.Path = *args.Path
	}
	for name, value := range overrides {
		if value == "" {
			r.Header.Del(name)
		} else {
			r.Header[name] = []string{value}
		}
	}
	u, err := replay.Target(target, r)
	if err != nil {
		return nil, ReplayResult{}, nothingSent("path: ", err)
	}
	if err := targetRefused(replay.Policy{Allow: h.cfg.ReplayTo}, target, u); err != nil {
		return nil, ReplayResult{}, err
	}
	h.seeMeta(id, meta)
	out := ReplayResult{RequestID: string(meta.UUID), URL: replay.WireURL(u)}
	// A compressed body is read as the target reads it, inflated.
	inflated, over, compressed := replay.Inflated(r.Header, r.Body, maxInflatedBytes)
	if over {
		return nil, ReplayResult{}, fmt.Errorf("request %s's body inflates (Content-Encoding %s) to over %d MiB, too much to check for the API key and signing secrets, which hookmcp never sends to a replay target; nothing was sent", meta.UUID, r.Header.Get("Content-Encoding"), maxInflatedBytes>>20)
	}
	held, heldName := holdsSecret(secrets, u, r)
	if held == "" && compressed && secrets.Contains(string(inflated)) {
		held = "body (once inflated)"
	}
	if held == "" {
		// (A held secret is refused, or shown redacted, below: its
		// [REDACTED] is no header name either.)
		if err := replay.CheckHeaders(r.Header); err != nil {
			return nil, ReplayResult{}, nothingSent("request "+string(meta.UUID)+": ", err)
		}
	}
	rebuiltNote := ""
	if rebuilt {
		rebuiltNote = " The service keeps no raw body of a multipart request, so this body was rebuilt from its fields and files (fields first, under the captured boundary): the parts' order and layout may differ from the sender's, and a signature over the original body will not match it."
	}
	if args.AsCurl {
		// Redacted before rendering as well as after: a body rendered
		// through base64 would hide a secret from the redactor.
		if held != "" {
			if compressed {
				// Compressed, a secret would pass the redactor unseen.
				r.Body = inflated
				r.Header.Del("Content-Encoding")
				rebuiltNote += " Its body is shown inflated, without its Content-Encoding, since it held a secret."
			}
			r.Body = secrets.Bytes(r.Body)
			for _, values := range r.Header {
				for i, v := range values {
					values[i] = secrets.String(v)
				}
			}
		}
		out.Curl = replay.Curl(u, r)
		out.Message = fmt.Sprintf("Nothing was sent: this is request %s as a curl command (POSIX shell) for %s.%s %s", meta.UUID, out.URL, rebuiltNote, replayNote)
		if held != "" {
			out.Message += " The request's " + strings.TrimSpace(held+" "+heldName) + " held the API key or a signing secret, shown as [REDACTED]: the command as shown does not reproduce it."
		}
		// The command is the captured request (its sender wrote the path,
		// headers and body), so it is framed; so is the message, which
		// names the path, among the members that follow the line.
		return mcptool.Text(fmt.Sprintf("Nothing was sent: request %s (token %s) as a curl command (POSIX shell), framed below with the other members of the result.", meta.UUID, id),
			mcptool.Untrusted("a curl command that sends the captured request", out.Curl)), out, nil
	}
	if held != "" {
		// The header's name is the sender's words: after the sentence,
		// bounded, in a frame.
		quoted := ""
		if heldName != "" {
			held += " (its name quoted below)"
			quoted = "\n" + mcptool.Untrusted("the captured header's name", httpx.Snippet([]byte(heldName), maxQuotedName))
		}
		return nil, ReplayResult{}, fmt.Errorf("request %s's %s holds the API key or a signing secret, which hookmcp never sends to a replay target; nothing was sent. Remove it with a header override, or use as_curl and fill it in yourself%s", meta.UUID, held, quoted)
	}
	sendCtx, cancel := httpx.WithTimeout(ctx, h.cfg.Timeout)
	defer cancel()
	// Read past the bound by a secret's length at most, redacted, then cut:
	// a secret across the cut is redacted whole.
	answer, err := replay.Send(replay.WithRule(sendCtx, replay.Policy{}.Guard(u)), client, u, r, maxReplayAnswer+maxSecretBytes)
	if err != nil {
		return nil, ReplayResult{}, fmt.Errorf("replaying request %s to %s failed: %v", meta.UUID, httpx.DisplayURL(u), httpx.Explain(sendCtx, err))
	}
	out.Sent, out.Status = true, answer.Status
	out.Headers = map[string][]string{}
	for name, values := range answer.Header {
		for _, v := range values {
			out.Headers[strings.ToLower(name)] = append(out.Headers[strings.ToLower(name)], secrets.String(v))
		}
	}
	received := len(answer.Body)
	whole := secrets.Bytes(answer.Body)
	truncated := answer.Truncated || len(whole) > maxReplayAnswer
	body := whole[:min(len(whole), maxReplayAnswer)]
	// A cut through a character would turn a text answer into base64.
	for k := 1; truncated && k < utf8.UTFMax && k < len(body) && !utf8.Valid(body); k++ {
		if utf8.Valid(whole[:len(body)-k]) {
			body = whole[:len(body)-k]
		}
	}
	if utf8.Valid(body) {
		out.Encoding, out.Body = "text", string(body)
	} else {
		out.Encoding, out.Body = "base64", base64.StdEncoding.EncodeToString(body)
	}
	size := fmt.Sprint(received)
	if answer.Truncated {
		size = "over " + size
	}
	out.Message = fmt.Sprintf("Sent request %s (%s, %d body bytes) to %s; it answered HTTP %d with %s body bytes (as %s)", meta.UUID, r.Method, len(r.Body), out.URL, answer.Status, size, out.Encoding)
	if truncated {
		out.Message += fmt.Sprintf(", the first %d KiB of a longer body", maxReplayAnswer>>10)
	}
	out.Message += "."
	if answer.Status >= 300 && answer.Status < 400 {
		out.Message += " Redirects are not followed: pass the Location as target to send it there."
	}
	out.Message += rebuiltNote + " " + replayNote
	// The answer is the target's, its URL holds the captured path: all of
	// it is framed, the body in a block of its own, the headers, URL and
	// message among the members that follow the line.
	return mcptool.Text(fmt.Sprintf("Sent request %s: the target answered HTTP %d (%d body bytes shown, as %s).", meta.UUID, out.Status, len(body), out.Encoding),
		mcptool.Untrusted("the replay target's answer body", out.Body)), out, nil
}

// replayTarget checks target's form; where it may go is judged with the
// path joined (Policy.Check).
func replayTarget(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, errors.New("target is required: the URL of your server to send the request to, such as http://localhost:3000/webhooks (the captured path below the capture URL is added to it); nothing was sent")
	}
	if len(raw) > maxTargetChars {
		return nil, fmt.Errorf("target is %d bytes, over %d; pass a shorter URL; nothing was sent", len(raw), maxTargetChars)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("target must be an absolute http(s) URL such as http://localhost:3000/webhooks; got %s; nothing was sent", hooksvc.Quote(httpx.RedactURL(raw)))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("target %s has a query string or fragment: the captured query string is sent; leave them out of target; nothing was sent", httpx.DisplayURL(u))
	}
	return u, nil
}

// checkReplayPath checks a path override: an escaped path, "" for none.
func checkReplayPath(p string) error {
	if p != "" && !strings.HasPrefix(p, "/") || strings.ContainsFunc(p, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '?' || r == '#' }) {
		return fmt.Errorf("path must be \"\" or start with / and hold no spaces, control characters, ? or #, such as /stripe (it goes after target's path; the query string is the captured one); got %s; nothing was sent", hooksvc.Quote(p))
	}
	if _, err := url.PathUnescape(p); err != nil {
		return fmt.Errorf("path %s has a bad %%-escape: %v; nothing was sent", hooksvc.Quote(p), err)
	}
	return nil
}

// replayOverrides checks the header overrides, keyed by canonical name.
func replayOverrides(headers map[string]string) (map[string]string, error) {
	if len(headers) > maxReplayHeaders {
		return nil, fmt.Errorf("headers has %d entries, over %d; nothing was sent", len(headers), maxReplayHeaders)
	}
	out := map[string]string{}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range headers {
			if !yield(k) {
				return
			}
		}
	}) {
		value := headers[name]
		switch {
		case !httpx.ValidHeaderName(name):
			return nil, fmt.Errorf("headers: %s is not a header name (letters, digits and !#$%%&'*+-.^_`|~); nothing was sent", hooksvc.Quote(name))
		case replay.Dropped(name):
			return nil, fmt.Errorf("headers: %s describes the connection or a proxy on the way, which the transport writes or the capture service added; it is not sent on a replay; nothing was sent", http.CanonicalHeaderKey(name))
		case len(value) > maxReplayValueBytes:
			return nil, fmt.Errorf("headers: %s's value is %d bytes, over %d; nothing was sent", http.CanonicalHeaderKey(name), len(value), maxReplayValueBytes)
		case strings.ContainsAny(value, "\r\n\x00"):
			return nil, fmt.Errorf("headers: %s's value holds a line break or NUL, which no header value may; nothing was sent", http.CanonicalHeaderKey(name))
		}
		out[http.CanonicalHeaderKey(name)] = value
	}
	return out, nil
}

// requestToReplay is the request object named, or the token's newest.
func (h *handlers) requestToReplay(ctx context.Context, key string, id hooksvc.TokenID, requestID hooksvc.RequestID) (requestMeta, error) {
	if requestID != "" {
		return h.requestToVerify(ctx, key, id, requestID)
	}
	item, ok, err := h.client.LatestRequest(ctx, key, id)
	if err != nil {
		return requestMeta{}, err
	}
	if !ok {
		return requestMeta{}, fmt.Errorf("token %s has not captured any request yet, so there is nothing to replay; have the sender deliver to %s, then call replay_request again (or wait_for_request first)", id, h.client.CaptureURL(id))
	}
	return decodeMeta(item)
}

// capturedRequest is the captured request as it goes out again: its exact
// body bytes, its headers less those of the connection and of the capture
// service, its path below the capture URL and its query string as sent.
//
// A multipart request, whose raw body the service does not keep, is
// rebuilt from its fields and files; rebuilt says so.
func (h *handlers) capturedRequest(ctx context.Context, key string, id hooksvc.TokenID, meta requestMeta) (r replay.Request, rebuilt bool, err error) {
	captured := metaResult(id, meta)
	method := strings.ToUpper(meta.Method)
	if method == "" || strings.ContainsFunc(method, func(r rune) bool { return !isTokenChar(r) }) {
		return replay.Request{}, false, fmt.Errorf("request %s has the method %s, which is not an HTTP method, so it cannot be replayed", meta.UUID, hooksvc.Quote(meta.Method))
	}
	body, err := h.client.SignedBody(ctx, key, id, meta.UUID)
	if err != nil {
		return replay.Request{}, false, err
	}
	r = replay.Request{Method: method, Header: replay.Headers(captured.Headers), Body: body}
	if len(body) == 0 && isMultipart(captured.ContentType) {
		var contentType string
		if r.Body, contentType, err = h.rebuildMultipart(ctx, key, id, meta, captured.ContentType); err != nil {
			return replay.Request{}, false, err
		}
		r.Header.Set("Content-Type", contentType)
		rebuilt = true
	}
	if u, err := url.Parse(meta.URL); err == nil {
		r.Query = u.RawQuery
		// JoinPath on a base without a path gives no leading slash.
		base := "/" + strings.Trim(h.client.BaseURL.JoinPath(string(id)).EscapedPath(), "/")
		if rest, ok := strings.CutPrefix(u.EscapedPath(), base); ok && (rest == "" || strings.HasPrefix(rest, "/")) {
			r.Path = rest
		}
	}
	return r, rebuilt, nil
}

// maxRebuiltFiles bounds the files a multipart replay downloads, each at
// most hooksvc.MaxFileBytes.
const maxRebuiltFiles = 10

// rebuildMultipart rebuilds a multipart capture's body from its fields
// and its files, downloaded as get_request's file does, under the
// captured boundary; it returns the body and its Content-Type.
func (h *handlers) rebuildMultipart(ctx context.Context, key string, id hooksvc.TokenID, meta requestMeta, contentType string) ([]byte, string, error) {
	var fields map[string]any
	if len(meta.Form) > 0 {
		dec := json.NewDecoder(bytes.NewReader(meta.Form))
		dec.UseNumber()
		// PHP writes an empty map as []: no fields.
		if err := dec.Decode(&fields); err != nil && strings.TrimSpace(string(meta.Form)) != "[]" && strings.TrimSpace(string(meta.Form)) != "null" {
			return nil, "", fmt.Errorf("request %s is multipart/form-data, whose raw body the service does not keep, and its fields are not an object hookmcp can rebuild it from, so it cannot be replayed", meta.UUID)
		}
	}
	uploads := meta.files()
	if len(uploads) > maxRebuiltFiles {
		return nil, "", fmt.Errorf("request %s is multipart/form-data with %d files, over the %d a replay rebuilds (the service keeps no raw multipart body, so each file is downloaded); nothing was sent", meta.UUID, len(uploads), maxRebuiltFiles)
	}
	files := make([]replay.File, 0, len(uploads))
	for _, f := range uploads {
		if f.ID == "" {
			return nil, "", fmt.Errorf("request %s is multipart/form-data and its file %s has no id to download it by, so its body cannot be rebuilt; nothing was sent", meta.UUID, f.describe())
		}
		data, err := h.client.DownloadFile(ctx, key, id, meta.UUID, f.ID)
		if err != nil {
			return nil, "", err
		}
		files = append(files, replay.File{Field: f.Field, Filename: f.Filename, ContentType: f.ContentType, Data: data})
	}
	_, params, _ := mime.ParseMediaType(contentType)
	return replay.Multipart(params["boundary"], fields, files)
}

// holdsSecret names the part of r sent to u that holds a secret, or "";
// for a header, its name apart (the sender's words, which a refusal
// quotes framed, after its sentence), redacted.
func holdsSecret(secrets redact.Redactor, u *url.URL, r replay.Request) (held, name string) {
	if wire := replay.WireURL(u); secrets.Contains(wire) || strings.Contains(wire, redact.Redacted) || strings.Contains(wire, url.QueryEscape(redact.Redacted)) {
		return "URL", ""
	}
	for name, values := range r.Header {
		// A name holds a secret as well as a value may; the service
		// shows it as "X-[REDACTED]", which is no header name at all.
		if secrets.Contains(name) || strings.Contains(name, redact.Redacted) {
			return "header name", secrets.String(name)
		}
		for _, v := range values {
			// The service's request object reaches hookmcp with every
			// secret already replaced by redact.Redacted.
			if secrets.Contains(v) || strings.Contains(v, redact.Redacted) {
				return "header", name
			}
		}
	}
	if secrets.Contains(string(r.Body)) {
		return "body", ""
	}
	return "", ""
}

// maxQuotedName bounds a captured header's name that a refusal quotes.
const maxQuotedName = 200

// nothingSent is a refusal of replay's said with the prefix before it and
// "nothing was sent" after it: at the end of the server's sentence, before
// what it quotes of the captured request (replay.QuotedError), which stays
// last, in its frame.
func nothingSent(prefix string, err error) error {
	var q *replay.QuotedError
	if errors.As(err, &q) {
		return errors.New(prefix + q.Said + "; nothing was sent\n" + q.Block)
	}
	return fmt.Errorf("%s%v; nothing was sent", prefix, err)
}

// targetRefused judges u, the target joined with the captured request's
// path. The policy's reason names the URL it judged, whose path is the
// sender's words: a target refused by itself is named alone; one refused
// for the path has the path quoted after the sentence, bounded, framed.
func targetRefused(policy replay.Policy, target, u *url.URL) error {
	err := policy.Check(u)
	if err == nil {
		return nil
	}
	if alone := policy.Check(target); alone != nil {
		return fmt.Errorf("target: %v; nothing was sent", alone)
	}
	said := strings.Replace(err.Error(), httpx.DisplayURL(u), httpx.DisplayURL(target)+" followed by the captured request's path (quoted below)", 1)
	return fmt.Errorf("target: %s; nothing was sent\n%s", said, mcptool.Untrusted("the captured request's path", httpx.Snippet([]byte(u.EscapedPath()), maxQuotedName)))
}
