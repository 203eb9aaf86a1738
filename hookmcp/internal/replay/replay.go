// Package replay sends a captured webhook request again, to the
// developer's own server, or renders it as a curl command line: which
// headers go, where it may go (Policy), and the request itself (Request).
package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// Request is a captured request as it goes out again: everything but where.
type Request struct {
	Method string
	// Path is the path below the capture URL, escaped as it was sent
	// ("" or starting with "/"); Query is the raw query string.
	Path   string
	Query  string
	Header http.Header
	Body   []byte
}

// droppedHeaders describe the capture's connection or were added by the
// capture service and its proxies on the way in, not by the sender: sent
// again they would be false (a length the transport computes, an address
// of the sender's that the target would take for its proxy's).
var droppedHeaders = []string{
	// hop-by-hop (RFC 9110 §7.6.1) and what the transport writes itself
	"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate", "Proxy-Authorization",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade", "Host", "Content-Length", "Expect",
	// the capture service's and its proxies'
	"Forwarded", "Via", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Port", "X-Forwarded-Proto",
	"X-Forwarded-Scheme", "X-Forwarded-Ssl", "X-Real-Ip", "X-Original-Forwarded-For", "X-Scheme",
	"Cdn-Loop", "Cf-Connecting-Ip", "Cf-Connecting-Ipv6", "Cf-Ipcountry", "Cf-Ray", "Cf-Visitor", "Cf-Worker",
	"True-Client-Ip", "X-Request-Id", "X-Token-Id",
}

// Dropped reports whether a captured header is left out of a replay.
func Dropped(name string) bool {
	return slices.ContainsFunc(droppedHeaders, func(d string) bool { return strings.EqualFold(d, name) })
}

// Headers returns the captured headers that a replay sends, with the names
// any Connection header lists as hop-by-hop left out too.
func Headers(captured map[string][]string) http.Header {
	var hop []string
	for name, values := range captured {
		if strings.EqualFold(name, "Connection") {
			for _, v := range values {
				for _, n := range strings.Split(v, ",") {
					hop = append(hop, strings.TrimSpace(n))
				}
			}
		}
	}
	out := http.Header{}
	for name, values := range captured {
		if Dropped(name) || slices.ContainsFunc(hop, func(h string) bool { return strings.EqualFold(h, name) }) {
			continue
		}
		key := http.CanonicalHeaderKey(name)
		out[key] = append(out[key], values...)
	}
	return out
}

// Policy is where a replay may go: a loopback address always, another
// origin only under one of Allow's URL prefixes (httpx.UnderPrefix, as
// graphqlmcp judges --allow-endpoint), set by the operator at startup
// (--replay-to), never by the model alone. Its path check is its own: a
// replay sends the captured path byte for byte, percent-escapes and all,
// which graphqlmcp's rule for an endpoint's path would refuse.
type Policy struct {
	Allow []*url.URL
}

// Check judges a URL a replay would reach, redirect hops included. Its
// error says why and what to do.
func (p Policy) Check(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("%s is not an absolute http(s) URL", httpx.DisplayURL(u))
	}
	if u.User != nil {
		return fmt.Errorf("%s holds a user name or password; put credentials in a header override instead", httpx.DisplayURL(u))
	}
	if _, err := httpx.CanonicalHost(u.Hostname()); err != nil {
		return fmt.Errorf("%s is refused: %v", httpx.DisplayURL(u), err)
	}
	if httpx.IsLoopbackHost(u.Hostname()) {
		return nil
	}
	if err := checkPath(u); err != nil {
		return fmt.Errorf("%s is refused: %v", httpx.DisplayURL(u), err)
	}
	for _, prefix := range p.Allow {
		if httpx.UnderPrefix(u, prefix) {
			return nil
		}
	}
	if len(p.Allow) == 0 {
		return fmt.Errorf("%s is not a loopback address, and replays go only to this machine (localhost, 127.0.0.1, [::1]) unless hookmcp is started with --replay-to URL-prefix (or HOOKSVC_REPLAY_TO) naming the target", httpx.DisplayURL(u))
	}
	names := make([]string, len(p.Allow))
	for i, a := range p.Allow {
		names[i] = httpx.DisplayURL(a)
	}
	return fmt.Errorf("%s is not allowed: replays go to loopback addresses and, set at startup by --replay-to, under %s only", httpx.DisplayURL(u), strings.Join(names, ", "))
}

// checkPath refuses a path a server could read as another than the one
// the prefix judged: dot segments, backslashes, encoded slashes and dots,
// an encoded % (which decoded again is any of them) and bytes that are not
// UTF-8 (overlong forms such as %c0%ae, a dot to some servers).
func checkPath(u *url.URL) error {
	if strings.ContainsAny(u.Path, `\;`) {
		return errors.New("its path holds a backslash or semicolon, which a server may read as another separator; write the path plainly")
	}
	if strings.Contains(u.Path, "%") || !utf8.ValidString(u.Path) {
		return errors.New("its path holds an encoded % (%25) or encoded bytes that are not UTF-8, which a server that decodes the path twice, or reads overlong UTF-8, may read as a separator or dot segment; write the path plainly")
	}
	escaped := strings.ToLower(u.EscapedPath())
	if strings.Contains(escaped, "%2f") || strings.Contains(escaped, "%2e") || strings.Contains(escaped, "%5c") {
		return errors.New("its path holds an encoded slash, dot or backslash, which a server that decodes the path reads as a separator or dot segment; write the path plainly")
	}
	for _, segment := range strings.Split(u.Path, "/") {
		if segment == "." || segment == ".." {
			return fmt.Errorf("its path has the segment %q, which climbs out of the prefix the allow-list judged", segment)
		}
	}
	return nil
}

// Guard is the address rule of a replay to u: a loopback name must reach
// loopback addresses only (so "localhost" cannot be pointed elsewhere);
// an origin the operator allowed may be any address.
func (p Policy) Guard(u *url.URL) httpx.AddressRule {
	if !httpx.IsLoopbackHost(u.Hostname()) {
		return nil
	}
	return func(a netip.Addr) error {
		if a.Unmap().IsLoopback() {
			return nil
		}
		return fmt.Errorf("%s is not a loopback address, though the target's name is one of this machine's", a)
	}
}

// Target is where r goes: target's path followed by r's path below the
// capture URL, and r's query string.
func Target(target *url.URL, r Request) (*url.URL, error) {
	u := *target
	escaped := strings.TrimSuffix(target.EscapedPath(), "/") + r.Path
	if escaped == "" {
		escaped = "/"
	}
	path, err := url.PathUnescape(escaped)
	if err != nil {
		// url.PathUnescape fails only on a % without two hex digits.
		return nil, quoted("the path, quoted below, is not a valid escaped path: a % in it is not followed by two hexadecimal digits",
			"the captured request's path", httpx.Snippet([]byte(r.Path), maxQuoted))
	}
	// RawPath holds the path exactly as captured, even where Go would
	// escape it otherwise ({, }); WireURL sends it so.
	u.Path, u.RawPath = path, escaped
	u.RawQuery, u.Fragment = r.Query, ""
	return &u, nil
}

// Answer is the target's answer.
type Answer struct {
	Status    int
	Header    http.Header
	Body      []byte
	Truncated bool // the body was longer than the bound; Body holds its start
}

// Send sends r to u over client (from httpx.NewClient with Guard set to
// Policy.Guard's rule, and no redirects followed, so a 3xx comes back as
// it is), reading at most maxBytes of the answer's body.
func Send(ctx context.Context, client *http.Client, u *url.URL, r Request, maxBytes int64) (*Answer, error) {
	req, err := http.NewRequestWithContext(ctx, r.Method, u.String(), strings.NewReader(string(r.Body)))
	if err != nil {
		return nil, err
	}
	if len(r.Body) == 0 {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	// Opaque sends the captured path byte for byte; but Go sends an
	// opaque "//host/x" as the absolute-form "http://host/x", which a
	// proxy at the target reads as another destination, so such a path
	// goes as a path (rawPath gives it Go's escaping).
	exact := *u
	if p := rawPath(u); !strings.HasPrefix(p, "//") {
		exact.Opaque = p
	}
	req.URL = &exact
	req.Header = r.Header.Clone()
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return nil, err
	}
	a := &Answer{Status: resp.StatusCode, Header: resp.Header, Body: body}
	if int64(len(body)) > maxBytes {
		a.Body, a.Truncated = body[:maxBytes], true
	}
	return a, nil
}

type ruleKey struct{}

// WithRule carries the address rule of one replay to the client's guard.
func WithRule(ctx context.Context, rule httpx.AddressRule) context.Context {
	return context.WithValue(ctx, ruleKey{}, rule)
}

// ClientGuard is httpx.Options.Guard for the replay client: the rule
// WithRule put in the request's context, or one refusing every address
// when there is none, so no request goes out unjudged.
func ClientGuard(ctx context.Context) httpx.AddressRule {
	if rule, ok := ctx.Value(ruleKey{}).(httpx.AddressRule); ok {
		if rule == nil {
			return func(netip.Addr) error { return nil }
		}
		return rule
	}
	return func(netip.Addr) error {
		return errors.New("a replay's address is judged by its policy, and none was given")
	}
}

// rawPath is u's path as it goes out: as captured, or, starting with "//"
// (see Send), as Go escapes it.
func rawPath(u *url.URL) string {
	if u.RawPath != "" && !strings.HasPrefix(u.RawPath, "//") {
		return u.RawPath
	}
	return u.EscapedPath()
}

// WireURL is u as it goes out: its path as captured, not re-escaped.
func WireURL(u *url.URL) string {
	s := u.Scheme + "://" + u.Host + rawPath(u)
	if u.RawQuery != "" {
		s += "?" + u.RawQuery
	}
	return s
}

// Proxy is the replay client's proxy: next's (the environment's, for an
// origin the operator allowed), but none for a loopback target, which a
// proxy would reach as its own machine and receive the request on the
// way. http.ProxyFromEnvironment spares localhost and loopback IPs too,
// but by its own reading of hosts; this is the rule by the reading every
// other replay decision uses (httpx.IsLoopbackHost).
func Proxy(next func(*http.Request) (*url.URL, error)) func(*http.Request) (*url.URL, error) {
	return func(req *http.Request) (*url.URL, error) {
		if httpx.IsLoopbackHost(req.URL.Hostname()) {
			return nil, nil
		}
		return next(req)
	}
}

// QuotedError is a refusal whose sentence (Said) points at what the
// sender of a captured request wrote (its path, a header's name), quoted
// after it in a frame of its own (Block): the sender may have written it
// to read as instructions. A caller that adds to the sentence adds to
// Said, and keeps Block last.
type QuotedError struct {
	Said, Block string
}

func (e *QuotedError) Error() string { return e.Said + "\n" + e.Block }

// maxQuoted bounds what a refusal quotes of a captured request.
const maxQuoted = 200

func quoted(said, what, quote string) *QuotedError {
	return &QuotedError{Said: said, Block: mcptool.Untrusted(what, quote)}
}

// CheckHeaders refuses a header no request may carry: a name that is not
// an HTTP token (Go would refuse to send it; curl reads "-H @file" as a
// file of headers) or a value holding a line break or NUL (a header of
// its own in curl's hands). The service's capture may hold either.
func CheckHeaders(h http.Header) error {
	for _, name := range slices.Sorted(maps.Keys(h)) {
		if !httpx.ValidHeaderName(name) {
			return quoted("the captured header name quoted below is not an HTTP header name (letters, digits and !#$%&'*+-.^_`|~), so the request cannot be sent or rendered as it was",
				"the captured header name", httpx.Snippet([]byte(name), maxQuoted))
		}
		for _, v := range h[name] {
			if strings.ContainsAny(v, "\r\n\x00") {
				// The name is an HTTP token, but any text of its
				// characters, as long as the sender liked.
				return quoted("the value of the captured header whose name is quoted below holds a line break or NUL, which no header value may; remove it with a header override (that name mapped to \"\")",
					"the captured header name", httpx.Snippet([]byte(name), maxQuoted))
			}
		}
	}
	return nil
}
