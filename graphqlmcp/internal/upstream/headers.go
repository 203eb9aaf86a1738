package upstream

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpforge/servers/shared/httpx"
)

// Defaults are the headers every GraphQL request starts from. The Accept value
// asks for the GraphQL-over-HTTP media type first, which lets a server answer
// a failed request with a non-2xx status and a GraphQL body.
func Defaults() http.Header {
	return http.Header{
		"Content-Type": {"application/json"},
		"Accept":       {"application/graphql-response+json, application/json;q=0.9"},
	}
}

// IncrementalAccept is the Accept value of an operation that uses @defer or
// @stream: multipart/mixed in the forms servers ask for (graphql-js 17 and
// Apollo's incremental v0.2 as incrementalSpec=v0.2, the 2022 draft that
// yoga, Apollo Router and graphql-js 17.0.0-alpha.2 send as
// deferSpec=20220824, and the GraphQL-over-HTTP proposal's plain
// multipart/mixed), then the JSON types of Defaults, which a server that
// delivers everything at once answers with.
const IncrementalAccept = "multipart/mixed;incrementalSpec=v0.2, multipart/mixed;deferSpec=20220824, multipart/mixed;q=0.95, " +
	"application/graphql-response+json, application/json;q=0.9"

// headerKey is the name a header is judged and compared by: canonical
// case, with _ read as -. Servers that hand headers to code as CGI
// variables (PHP, Rack, WSGI and the proxies before them) map both to _,
// so Content_Type reaches them as the Content-Type, and X_Team and X-Team
// as one header.
func headerKey(name string) string {
	return http.CanonicalHeaderKey(strings.ReplaceAll(name, "_", "-"))
}

// framing is why a header is graphqlmcp's: the headers that say how the
// request is framed, what its body is and how to read it, what the request
// is (its method), or which URL it is for. A caller's value would make the
// endpoint read the body as something other than the JSON the guard
// judged: with Content-Type: application/x-www-form-urlencoded, a server
// that takes form bodies (Yoga, express-graphql) reads "&query=mutation{…}&"
// inside the JSON as the query to run; or serve another URL than the one
// the allow-list judged. X-Forwarded-* and Forwarded pass: they say who
// asked (identity), which servers do not use to route the request.
func framing(name string) (rule string, ok bool) {
	canonical := headerKey(name)
	switch {
	case strings.HasPrefix(canonical, "Content-"):
		return "the Content-* headers describe the body, which graphqlmcp writes (JSON)", true
	case strings.HasPrefix(canonical, "Proxy-"):
		return "the Proxy-* headers are for a proxy, not the endpoint", true
	}
	switch canonical {
	case "Accept", "Accept-Encoding", "Range", "If-Range":
		return "it decides the form of the answer, which graphqlmcp reads (GraphQL over HTTP, as JSON)", true
	case "Host", "Transfer-Encoding", "Connection", "Keep-Alive", "Te", "Trailer", "Upgrade", "Expect", "Http2-Settings":
		return "the HTTP layer frames the request itself", true
	case "X-Http-Method-Override", "X-Http-Method", "X-Method-Override":
		return "it changes the request's method, which is POST", true
	case "X-Original-Url", "X-Original-Uri", "X-Rewrite-Url", "X-Override-Url":
		return "it names another URL for the request, which some servers (IIS URL Rewrite, Symfony, Laravel) serve in place of the endpoint's, past --allow-endpoint", true
	}
	return "", false
}

// knownNames are the framing headers a message may name by their canonical
// form: fixed names, which hold nothing of what the caller wrote but its
// case and its _ for -. Any other name in a framing family (Content-*) is
// not shown, as it may hold a token.
var knownNames = []string{
	"Content-Type", "Content-Length", "Content-Encoding", "Content-Language", "Content-Range", "Content-Location", "Content-Disposition", "Content-Md5",
	"Proxy-Authorization", "Proxy-Connection", "Proxy-Authenticate",
	"Accept", "Accept-Encoding", "Range", "If-Range", "Host", "Transfer-Encoding", "Connection", "Keep-Alive", "Te", "Trailer", "Upgrade", "Expect", "Http2-Settings",
	"X-Http-Method-Override", "X-Http-Method", "X-Method-Override", "X-Original-Url", "X-Original-Uri", "X-Rewrite-Url", "X-Override-Url",
}

// readAs says which header a name written with _ is read as, when that is
// a known name: Content_Type is not shown (an _ may be a token's), but the
// Content-Type it stands for is.
func readAs(name string) string {
	if !strings.Contains(name, "_") || !slices.Contains(knownNames, headerKey(name)) {
		return ""
	}
	return fmt.Sprintf(` (read as %q: many servers read _ as -)`, headerKey(name))
}

// CheckHeaders refuses header names that are not valid HTTP tokens, that
// frame the request (framing), or that name one header twice (names differ
// in case only), and values with line breaks. Its errors never show a
// value, and show a name only when it reads as one (httpx.HeaderName): a
// refused name is often a whole header line, or a token pasted as a name.
func CheckHeaders(headers map[string]string) error {
	names := make([]string, 0, len(headers))
	for name := range headers {
		names = append(names, name)
	}
	slices.Sort(names)
	seen := map[string]string{}
	for _, name := range names {
		if !httpx.ValidHeaderName(name) {
			return errors.New(httpx.InvalidHeaderName(name))
		}
		if rule, ok := framing(name); ok {
			return fmt.Errorf("header %s cannot be set: %s, so that the endpoint reads the operation graphqlmcp checked; remove it", httpx.HeaderName(name)+readAs(name), rule)
		}
		canonical := headerKey(name)
		if other, ok := seen[canonical]; ok {
			// Which one a server reads depends on map order, or on the
			// server: neither is sent.
			why := "header names ignore case"
			if http.CanonicalHeaderKey(other) != http.CanonicalHeaderKey(name) {
				why = "many servers read _ as -, and header names ignore case"
			}
			return fmt.Errorf("headers %s and %s name the same header (%s); give it once", httpx.HeaderName(other), httpx.HeaderName(name), why)
		}
		seen[canonical] = name
		if strings.ContainsAny(headers[name], "\r\n\x00") {
			return fmt.Errorf("the value of header %s contains a line break or NUL, which HTTP does not allow", httpx.HeaderName(name))
		}
	}
	return nil
}

// Merge builds the headers of one request: startup (when the caller
// decided they apply), then call, a later header replacing an earlier one
// of the same name, compared as headerKey compares them (X_Team replaces
// X-Team); then Defaults, which no layer replaces (CheckHeaders refuses
// them in both: this holds when a caller skipped it), and no framing header
// of either layer.
func Merge(startup, call map[string]string) http.Header {
	merged := http.Header{}
	for _, layer := range []map[string]string{startup, call} {
		for name, value := range layer {
			if _, ok := framing(name); ok {
				continue
			}
			for sent := range merged {
				if headerKey(sent) == headerKey(name) {
					delete(merged, sent)
				}
			}
			merged.Set(name, value)
		}
	}
	for name, values := range Defaults() {
		merged[name] = values
	}
	return merged
}
