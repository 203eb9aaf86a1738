package upstream

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// MaxTimeoutMS is the longest timeout a request may have, in milliseconds,
// whether configured (--timeout) or passed in a call.
const MaxTimeoutMS = 600000

// MaxTimeout is MaxTimeoutMS as a duration.
const MaxTimeout = MaxTimeoutMS * time.Millisecond

// Purpose is what a request was for. Its errors start with it, in words a
// model understands ("Fetching the schema of https://x/graphql failed: ..."),
// and their advice depends on it: a query's timeout is an argument of the
// call, a schema fetch's is the server's.
type Purpose int

const (
	// ForQuery is graphql_query's operation.
	ForQuery Purpose = iota
	// ForSchema is an introspection.
	ForSchema
)

func (p Purpose) doing(endpoint string) string {
	if p == ForSchema {
		return "Fetching the schema of " + endpoint
	}
	return "Sending the query to " + endpoint
}

// report is the text of a failed request: what was being done, what
// happened, and what to change.
type report struct {
	Purpose  Purpose
	Endpoint string
	// happened says what went wrong; advice what to do about it, for the
	// purpose the error has when it is read.
	happened string
	advice   func(Purpose) string
	// quoted is what the endpoint wrote (a page's title, the start of its
	// answer), framed as third-party data (mcptool.Untrusted), or "". It
	// comes last, after the server's whole sentence, so that the sentence
	// reads as one and nothing of the server's follows the endpoint's
	// words. It is framed once, so the error reads the same every time.
	quoted string
}

func (r report) text() string {
	text := r.said()
	if r.quoted != "" {
		text += "\n" + r.quoted
	}
	return text
}

// said is the server's own sentence: what was being done, what happened
// and the advice, without what the endpoint wrote.
func (r report) said() string {
	text := r.Purpose.doing(r.Endpoint) + " failed: " + r.happened
	if r.advice != nil {
		if advice := r.advice(r.Purpose); advice != "" {
			text += ". " + advice
		}
	}
	return text
}

// RequestError is a request that brought no answer to read: the endpoint
// could not be reached, did not answer in time, or answered too much.
type RequestError struct{ report }

func (e *RequestError) Error() string { return e.text() }

// NotGraphQLError is an endpoint's answer that is not a GraphQL response.
type NotGraphQLError struct {
	report
	Status int
	// Unusable reports an endpoint that takes no request graphqlmcp can
	// send: GET only, or persisted operations only. An operation sent to
	// it unchecked would be refused as the introspection was.
	Unusable bool
}

// PostWithText says what graphqlmcp sends, for the advice of an endpoint
// that takes something else.
const PostWithText = "graphqlmcp sends each operation as an HTTP POST with its full text in a JSON body (GraphQL over HTTP)"

// PersistedOnlyAdvice is the advice for an endpoint that takes persisted
// operations only.
const PersistedOnlyAdvice = "The endpoint takes persisted operations only (operations registered with it in advance and sent by id or hash), while " +
	PostWithText + ", which it refuses: use an endpoint of the API that takes operations as text (often one for development or for tools), " +
	"or ask its owner to let your credentials send any operation"

// PersistedOnly reports an endpoint's refusal (a message, an error code or
// a body) that says it takes persisted operations only: Apollo's
// PERSISTED_QUERY_NOT_FOUND, PERSISTED_QUERY_ID_REQUIRED and
// QUERY_NOT_IN_SAFELIST, GraphQL Yoga's PersistedQueryOnly, Hot Chocolate's
// "Only persisted operations are allowed", "trusted documents". graphqlmcp
// never sends a persisted query's id or hash, so an endpoint that answers
// about one refuses the operation's text.
func PersistedOnly(text string) bool {
	lower := strings.ToLower(text)
	for _, word := range []string{"persisted", "safelist", "trusted document"} {
		if strings.Contains(lower, word) {
			return true
		}
	}
	return false
}

// GetOnlyAdvice is the advice for an endpoint that refuses a POST (HTTP
// 405).
func GetOnlyAdvice(t Target) string {
	return PostWithText + ", which this endpoint does not take (one that takes GET only often serves persisted or cached operations by URL): " +
		"use the API's endpoint that takes a POST. The URL is " + source(t)
}

func (e *NotGraphQLError) Error() string { return e.text() }

// Said is the error without the endpoint's words that Error quotes last in
// a block: for a message that quotes the error cut short, where a cut would
// leave the block open.
func (e *NotGraphQLError) Said() string { return e.said() }

// AsSchemaFetch returns err, an error of Post, said as the failure of a
// schema fetch ("Fetching the schema of ... failed: ..."), with the advice
// that fits one. Other errors come back as they are.
func AsSchemaFetch(err error) error {
	var noAnswer *RequestError
	var notGraphQL *NotGraphQLError
	switch {
	case errors.As(err, &noAnswer):
		again := *noAnswer
		again.Purpose = ForSchema
		return &again
	case errors.As(err, &notGraphQL):
		again := *notGraphQL
		again.Purpose = ForSchema
		return &again
	}
	return err
}

// source names where the endpoint's URL came from, for advice that asks to
// check it.
func source(t Target) string {
	if t.IsDefault {
		return "the default endpoint, set by --endpoint or GRAPHQL_ENDPOINT when starting graphqlmcp"
	}
	return "the call's endpoint argument"
}

// failed explains a request that got no answer.
func failed(req Request, failure *httpx.Failure, placeholder bool) *RequestError {
	e := &RequestError{report{Endpoint: httpx.DisplayURL(req.Target.URL), happened: failure.Reason}}
	switch failure.Kind {
	case httpx.TimedOut:
		e.happened = failure.Reason + " without an answer"
		e.advice = func(p Purpose) string { return timeoutAdvice(p, failure.After) }
	case httpx.Refused, httpx.NoSuchHost, httpx.Unreachable, httpx.NotTLS, httpx.BadCertificate, httpx.ClosedEarly, httpx.NoAnswer:
		e.advice = func(Purpose) string { return "The URL is " + source(req.Target) }
	case httpx.RefusedAddress:
		e.advice = func(Purpose) string {
			return "The URL is " + source(req.Target) + "; only an endpoint the operator names (--endpoint, --allow-endpoint) may reach such an address, " +
				"or, through a proxy, go unresolved here"
		}
	}
	if placeholder && failure.Kind != httpx.Cancelled && failure.Kind != httpx.TimedOut && failure.Kind != httpx.DeadlinePassed {
		e.advice = func(Purpose) string {
			return "That URL is graphqlmcp's placeholder default: no endpoint was configured. " +
				"Set --endpoint or GRAPHQL_ENDPOINT to your GraphQL API's URL when starting graphqlmcp, or pass endpoint in the call"
		}
	}
	return e
}

// timeoutAdvice says which timeout to raise, and how far it may go.
func timeoutAdvice(p Purpose, after time.Duration) string {
	most := MaxTimeout.Milliseconds()
	less := "ask for less: fewer fields, or fewer items with a first/limit argument"
	if p == ForSchema {
		if after >= MaxTimeout {
			return fmt.Sprintf("%d ms is the most allowed; the endpoint is too slow to describe its schema: "+
				"give graphqlmcp the schema from a file with --schema, or run graphql_query with validate off (--validate=false)", most)
		}
		return fmt.Sprintf("A large schema takes a while to send: raise the timeout, up to %d ms: graphql_query's timeout argument "+
			"(which bounds its schema fetch too), or --timeout (GRAPHQL_TIMEOUT) when starting graphqlmcp, which graphql_introspect uses", most)
	}
	if after >= MaxTimeout {
		return fmt.Sprintf("%d ms is the most allowed: %s", most, less)
	}
	return fmt.Sprintf("Pass a larger timeout (in milliseconds, up to %d), or %s", most, less)
}

// tooLarge explains an answer over the size limit.
func tooLarge(req Request, limit int64) *RequestError {
	return &RequestError{report{
		Endpoint: httpx.DisplayURL(req.Target.URL),
		happened: fmt.Sprintf("the response is larger than the %s limit (--max-response-bytes) and was not read to the end", FormatBytes(limit)),
		advice: func(p Purpose) string {
			if p == ForSchema {
				return "The schema is too large to read: give graphqlmcp the schema from a file with --schema"
			}
			return "Select fewer fields, or fetch fewer items with a first/limit argument"
		},
	}}
}

// notGraphQL explains an answer that is not a GraphQL response: the wrong
// path (404), a web page, refused credentials, or a body of another shape.
func notGraphQL(req Request, answer *httpx.Answer, body []byte) *NotGraphQLError {
	e := &NotGraphQLError{report: report{Endpoint: httpx.DisplayURL(req.Target.URL)}, Status: answer.Status}
	status := strings.TrimSpace(fmt.Sprintf("%d %s", answer.Status, http.StatusText(answer.Status)))
	page := httpx.IsWebPage(answer.Header, body)
	shown := quoteBody(body, page)
	e.quoted = shown.block
	checkURL := "The URL is " + source(req.Target)
	switch {
	case answer.Status == http.StatusMethodNotAllowed && slices.Contains(allowedMethods(answer.Header), http.MethodPost):
		// It contradicts itself: an endpoint that takes a POST is not the
		// cure. The URL may lead elsewhere than the API.
		e.Unusable = true
		e.quoted = ""
		e.happened = fmt.Sprintf("it answered HTTP %s (its Allow header lists %s, yet it refused this POST)", status, strings.Join(allowedMethods(answer.Header), ", "))
		e.advice = func(Purpose) string {
			return "Check the URL: a path other than the API's may answer so; the URL is " + source(req.Target)
		}
	case answer.Status == http.StatusMethodNotAllowed:
		e.Unusable = true
		e.quoted = ""
		e.happened = fmt.Sprintf("it answered HTTP %s%s", status, allowed(answer.Header))
		e.advice = func(Purpose) string { return GetOnlyAdvice(req.Target) }
	case !page && answer.Status >= 400 && answer.Status < 500 && !RefusesCredentials(answer.Status) && PersistedOnly(withoutPath(string(body[:min(len(body), 4096)]), req)):
		// A refusal (4xx): a 2xx answer that is not a GraphQL response is
		// another API, whatever words it holds.
		e.Unusable = true
		e.happened = fmt.Sprintf("it answered HTTP %s%s, not a GraphQL response%s", status, shown.with, shown.note)
		e.advice = func(Purpose) string { return PersistedOnlyAdvice }
	case answer.Status == http.StatusNotFound:
		e.happened = fmt.Sprintf("it answered HTTP %s%s: nothing is served at the path %s%s", status, shown.with, pathOf(req), shown.note)
		e.advice = func(Purpose) string {
			return "Check the URL's path (GraphQL endpoints are often at /graphql). " + checkURL
		}
	case page && answer.Status < 500 && !RefusesCredentials(answer.Status):
		e.happened = fmt.Sprintf("it answered HTTP %s%s, not a GraphQL response: that URL is a web page, not the GraphQL API%s", status, shown.with, shown.note)
		e.advice = func(Purpose) string {
			return "Use the URL of the API itself (often ending in /graphql; a GraphiQL or playground page is not it). " + checkURL
		}
	case answer.Status < 200 || answer.Status > 299:
		e.happened = fmt.Sprintf("it answered HTTP %s%s, not a GraphQL response%s", status, shown.with, shown.note)
		if RefusesCredentials(answer.Status) {
			e.advice = func(Purpose) string { return CredentialsAdvice(req.Forward) }
		}
	default:
		mediaType, _, _ := mime.ParseMediaType(answer.Header.Get("Content-Type"))
		if mediaType == "" {
			mediaType = "no Content-Type"
		}
		with := shown.with
		if with == "" {
			with = " with a body"
		}
		e.happened = fmt.Sprintf("it answered HTTP %s%s that is not a GraphQL response (%s)%s", status, with, mediaType, shown.note)
	}
	return e
}

// redirected explains a redirect that was not followed because it would
// turn the POST into a GET without the query: where it points, shown
// without its query or user info, and that this URL is the one to use.
func redirected(req Request, answer *httpx.Answer, redactor Redactor) *NotGraphQLError {
	e := &NotGraphQLError{report: report{Endpoint: httpx.DisplayURL(req.Target.URL)}, Status: answer.Status}
	status := strings.TrimSpace(fmt.Sprintf("%d %s", answer.Status, http.StatusText(answer.Status)))
	loc, err := url.Parse(answer.Header.Get("Location"))
	if err != nil || answer.Header.Get("Location") == "" {
		e.happened = fmt.Sprintf("it answered HTTP %s, a redirect without a usable Location, not a GraphQL response", status)
		e.advice = func(Purpose) string { return "Check the URL. The URL is " + source(req.Target) }
		return e
	}
	where := redactor.String(httpx.DisplayURL(req.Target.URL.ResolveReference(loc)))
	e.happened = fmt.Sprintf("the endpoint redirects (HTTP %s) to %s, and a GraphQL POST is not sent on as a GET without its query", status, where)
	e.advice = func(Purpose) string {
		return fmt.Sprintf("Use %s as the endpoint instead; the URL now is %s", where, source(req.Target))
	}
	return e
}

// Forward is what --forward-header did with a request, which the advice
// on refused credentials follows.
type Forward int

const (
	// NotForwarding is a request over stdio, or to another origin than
	// the default endpoint's that the startup headers go to
	// (--headers-any-origin): --forward-header does nothing there, and
	// the advice does not name it.
	NotForwarding Forward = iota
	// ForwardingOff is a request over HTTP to the default endpoint's
	// origin without --forward-header.
	ForwardingOff
	// ForwardedNone is one whose MCP client's HTTP request carries none
	// of the headers --forward-header names.
	ForwardedNone
	// Forwarded is one that carries headers of its MCP client's request.
	Forwarded
	// StartupWithheld is one to another origin than the default
	// endpoint's, which gets neither the startup headers nor forwarded
	// ones: only the call's own were sent.
	StartupWithheld
)

// CredentialsAdvice is what to do when the endpoint refused a request's
// credentials (HTTP 401, 403), by where they came from: over HTTP the
// client's own may be the ones refused, or be missing.
func CredentialsAdvice(f Forward) string {
	const refused, startup = "The endpoint refused the credentials: ", "--headers or GRAPHQL_HEADERS when starting graphqlmcp"
	switch f {
	case ForwardingOff:
		return refused + "check the Authorization header (" + startup + ", headers in the call, or --forward-header to send on each MCP client's own)"
	case ForwardedNone:
		return refused + "your MCP client's HTTP request carries none of the headers --forward-header names, so none was sent on: configure the client to send them, or check " + startup
	case Forwarded:
		return refused + "check the headers your MCP client sends, which graphqlmcp sends on (--forward-header), and " + startup
	case StartupWithheld:
		return refused + "check the headers in the call; graphqlmcp's startup headers (--headers or GRAPHQL_HEADERS) go only to the default endpoint's origin, so none were sent to this one"
	}
	return refused + "check the Authorization header (" + startup + ", or headers in the call)"
}

// allowed is " (it allows GET, HEAD only)" from a 405's Allow header, when
// it lists a few of HTTP's method names; "" otherwise.
func allowed(header http.Header) string {
	methods := allowedMethods(header)
	if len(methods) == 0 {
		return ""
	}
	return " (it allows " + strings.Join(methods, ", ") + " only)"
}

// allowedMethods is the list of a 405's Allow header, when it lists a few
// of HTTP's method names; nil otherwise. Any other word is the endpoint's
// text, which may echo a credential sent to it: none is named.
func allowedMethods(header http.Header) []string {
	var methods []string
	for _, m := range strings.Split(strings.Join(header.Values("Allow"), ","), ",") {
		if m = strings.TrimSpace(m); !isMethod(m) || len(methods) == 8 {
			return nil
		}
		methods = append(methods, m)
	}
	return methods
}

// isMethod reports the methods an Allow header names: HTTP's (RFC 9110),
// PATCH and the proposed QUERY.
func isMethod(m string) bool {
	switch m {
	case "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "QUERY":
		return true
	}
	return false
}

// withoutPath is text less the request's URL path, which a server may echo
// (Fastify's 404: "Route POST:/api/persisted-ops not found"): the path is
// the caller's words, not the endpoint's.
func withoutPath(text string, req Request) string {
	for _, p := range []string{req.Target.URL.EscapedPath(), req.Target.URL.Path} {
		if len(p) > 1 {
			text = strings.ReplaceAll(text, p, " ")
		}
	}
	return text
}

func pathOf(req Request) string {
	if p := req.Target.URL.EscapedPath(); p != "" {
		return p
	}
	return "/"
}

// bodyQuote is how an error shows an answer that is not a GraphQL
// response: with is what the sentence calls it (" with an empty body", " with
// a web page (HTML)", or "" for a body quoted below), note says what the
// block below holds, and block is that block: the endpoint's words, framed.
type bodyQuote struct{ with, note, block string }

// quoteBody quotes a web page's title, or the start of another body (300
// bytes at most): the body is redacted already (httpx.Caller), so no secret
// is in what is quoted.
func quoteBody(body []byte, page bool) bodyQuote {
	switch {
	case page:
		title := httpx.PageTitle(body)
		if title == "" {
			return bodyQuote{with: " with a web page (HTML)"}
		}
		return bodyQuote{with: " with a web page (HTML)", note: "; the page's title is quoted below",
			block: mcptool.Untrusted("the page's title", title)}
	case len(bytes.TrimSpace(body)) == 0:
		return bodyQuote{with: " with an empty body"}
	}
	return bodyQuote{note: "; the start of its answer is quoted below",
		block: mcptool.Untrusted("the start of the endpoint's answer", httpx.Snippet(body, 300))}
}
