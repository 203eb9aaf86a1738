package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// isMultipart reports a multipart/mixed answer: an incrementally delivered
// one (@defer, @stream).
// The media type alone decides: one whose parameters cannot be read (a
// boundary given twice) is still multipart, and multipartBoundary says
// what is wrong with it.
func isMultipart(h http.Header) bool {
	mediaType, _, _ := strings.Cut(h.Get("Content-Type"), ";")
	return strings.EqualFold(strings.TrimSpace(mediaType), "multipart/mixed")
}

// cutKeeper is a Caller whose multipart answers end where their reading was
// cut (the call's timeout, a dropped connection, the size limit) instead of
// failing: the Caller hands back no body on a read error or past the limit,
// and a stream cut short still carries the parts that came. cut holds the
// error that ended the reading (a *httpx.TooLargeError at the limit).
type cutKeeper struct {
	caller *httpx.Caller
	limit  int64
	cut    error
}

// keepingCuts returns a cutKeeper over c's Caller: the same client, whose
// transport marks the multipart answers' bodies, read up to limit bytes.
func (c *Client) keepingCuts(limit int64) *cutKeeper {
	k := &cutKeeper{limit: limit}
	client := *c.Caller.HTTP
	next := client.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	client.Transport = cutTransport{next: next, keeper: k}
	k.caller = &httpx.Caller{HTTP: &client, Logger: c.Caller.Logger}
	return k
}

type cutTransport struct {
	next   http.RoundTripper
	keeper *cutKeeper
}

func (t cutTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err == nil && isMultipart(resp.Header) {
		resp.Body = &cutBody{ReadCloser: resp.Body, keeper: t.keeper}
	}
	return resp, err
}

// cutBody ends at the first read error, or where more than the keeper's
// limit would come, and keeps why.
type cutBody struct {
	io.ReadCloser
	keeper *cutKeeper
	read   int64
}

func (b *cutBody) Read(p []byte) (int, error) {
	if b.read == b.keeper.limit {
		// At the limit: one byte more is past it; the end is not.
		var next [1]byte
		n, err := io.ReadFull(b.ReadCloser, next[:])
		if n > 0 {
			b.keeper.cut = &httpx.TooLargeError{Limit: b.keeper.limit}
		} else if !errors.Is(err, io.EOF) {
			b.keeper.cut = err
		}
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), b.keeper.limit-b.read)]
	n, err := b.ReadCloser.Read(p)
	b.read += int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		b.keeper.cut = err
		err = io.EOF
	}
	return n, err
}

// readIncremental reads a multipart/mixed answer: its parts, each a payload
// of incremental delivery, merged into one GraphQL response. cut is the
// error that ended its reading early, or nil.
func readIncremental(ctx context.Context, req Request, answer *httpx.Answer, body []byte, cut error, redactor Redactor) (*Response, error) {
	// The error says what is wrong in the server's words; what the
	// endpoint wrote that they point at comes last, framed (fault).
	refuse := func(err error) error {
		said, quoted := err.Error(), ""
		var f *fault
		if errors.As(err, &f) && f.what != "" {
			said, quoted = f.said, mcptool.Untrusted(f.what, redactor.String(f.quote))
		}
		return &NotGraphQLError{Status: answer.Status, report: report{
			Endpoint: httpx.DisplayURL(req.Target.URL),
			happened: "its incremental answer (multipart/mixed, for @defer or @stream) cannot be read: " + redactor.String(said),
			advice: func(Purpose) string {
				return "The endpoint broke the incremental delivery format; run the operation without @defer and @stream to have the whole answer in one JSON response"
			},
			quoted: quoted,
		}}
	}
	boundary, err := multipartBoundary(answer.Header.Get("Content-Type"))
	if err != nil {
		return nil, refuse(err)
	}
	// A stream cut before its first payload was whole brought nothing to
	// read: that is the failure that cut it (a timeout says which to
	// raise), not a fault of the format.
	cutBeforeAnswer := func() error {
		var tooBig *httpx.TooLargeError
		if errors.As(cut, &tooBig) {
			return tooLarge(req, tooBig.Limit)
		}
		failure := httpx.AsFailure(httpx.Explain(ctx, cut))
		switch failure.Kind {
		case httpx.TimedOut, httpx.Cancelled, httpx.DeadlinePassed:
			return failed(req, failure, false)
		}
		return refuse(fmt.Errorf("the connection broke before its first payload was whole (%v)", cut))
	}
	parts, _, err := splitParts(body, boundary)
	var malformed *multipartError
	switch {
	case errors.As(err, &malformed) && malformed.noParts && cut != nil:
		return nil, cutBeforeAnswer()
	case err != nil:
		return nil, refuse(err)
	}
	// The body was redacted as bytes: a multipart body is not JSON. Each
	// part that is JSON is redacted again as a one-piece answer is, its
	// strings decoded, so that an escape (\u0073, \/) hides no secret.
	for i := range parts {
		parts[i].body = redactor.Bytes(parts[i].body)
	}
	doc, delivery, err := mergeParts(parts, redactor)
	switch {
	case errors.Is(err, errNoPayload) && cut != nil:
		return nil, cutBeforeAnswer()
	case err != nil:
		return nil, refuse(err)
	}
	// A path's steps were redacted one by one; joined by dots they may
	// spell a secret that holds one.
	for i, what := range delivery.Missing {
		delivery.Missing[i] = redactor.String(what)
	}
	switch {
	case delivery.Complete:
	case cut != nil:
		if err := delivery.endedBy(ctx, cut, redactor); err != nil {
			return nil, err
		}
	default:
		delivery.Ended, delivery.Advice = endedByEndpoint, endedByEndpointAdvice
	}
	return &Response{
		Status: answer.Status, Body: doc.body, Data: doc.Data, Errors: doc.Errors, HasData: doc.hasData(),
		Dropped: doc.dropped, Incremental: &delivery,
	}, nil
}

// endedByEndpoint says why a stream the endpoint ended early ended, and
// endedByEndpointAdvice what to do: the endpoint may have failed on the
// way (a retry may do), or cannot finish this operation in parts.
const (
	endedByEndpoint       = "stopped where the endpoint ended its answer, before a part said hasNext: false"
	endedByEndpointAdvice = "Run the operation again, or without @defer and @stream to have the whole answer in one JSON response"
)

// tooLargeAdvice is what a query whose answer passed the size limit can do
// (tooLarge's advice for a query).
const tooLargeAdvice = "Select fewer fields, or fetch fewer items with a first/limit argument"

// errNoPayload is an answer of no whole payload: every part was empty, a
// keep-alive, or cut off.
var errNoPayload = errors.New("no part held a GraphQL response")

// mergeParts merges the payloads of parts into one response. A last part
// the stream ended inside of is left out (and said in the Delivery): what
// came of it is not a payload, and may end in half a secret the redactor
// could not know.
func mergeParts(parts []part, redactor Redactor) (graphQLResponse, Delivery, error) {
	m := merger{redactor: redactor}
	cutPart := false
	for i, p := range parts {
		if p.cut && !completeJSON(p.body) {
			cutPart = len(bytes.TrimSpace(p.body)) > 0
			continue
		}
		if err := m.add(i+1, p.body); err != nil {
			return graphQLResponse{}, Delivery{}, err
		}
	}
	doc, delivery, ok := m.finish()
	if !ok {
		return graphQLResponse{}, Delivery{}, errNoPayload
	}
	delivery.CutPart = cutPart
	return doc, delivery, nil
}

// endedBy says why the reading of a stream that was not complete ended:
// cut, under ctx. Explain's words are for a request that got no answer;
// this one got part of one. A call the client cancelled is that error.
func (d *Delivery) endedBy(ctx context.Context, cut error, redactor Redactor) error {
	var tooBig *httpx.TooLargeError
	if errors.As(cut, &tooBig) {
		d.Ended = fmt.Sprintf("stopped at the response size limit of %s (--max-response-bytes)", FormatBytes(tooBig.Limit))
		d.Advice = tooLargeAdvice
		return nil
	}
	failure := httpx.AsFailure(httpx.Explain(ctx, cut))
	switch failure.Kind {
	case httpx.Cancelled:
		return failure
	case httpx.TimedOut:
		d.Ended = failure.Reason
		d.Advice = timeoutAdvice(ForQuery, failure.After)
	case httpx.DeadlinePassed:
		d.Ended = "stopped when the time limit of the call ended"
	default:
		d.Ended = "stopped when the connection broke (" + redactor.String(cut.Error()) + ")"
	}
	return nil
}

// spellEscapes decodes the escapes of JSON strings in text that is not
// valid JSON (a broken part), for redaction and for a message: \u0073 and
// \/ spell a secret's letters as well as the letters do, and the
// redactor reads only a valid document's strings decoded. An escape it
// cannot decode is left as it is.
func spellEscapes(b []byte) []byte {
	if bytes.IndexByte(b, '\\') < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 == len(b) {
			out = append(out, b[i])
			continue
		}
		switch c := b[i+1]; c {
		case '/', '"', '\\':
			out = append(out, c)
			i++
		case 'u':
			r, n := escapedRune(b[i:])
			if n == 0 {
				out = append(out, b[i])
				continue
			}
			out = utf8.AppendRune(out, r)
			i += n - 1
		default:
			out = append(out, b[i])
		}
	}
	return out
}

// escapedRune reads the \uXXXX escape at the start of b, and a low
// surrogate's escape after a high one: the rune and the bytes read, or 0
// bytes when b holds no such escape.
func escapedRune(b []byte) (rune, int) {
	hex := func(b []byte) (rune, bool) {
		if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(b[2:6]), 16, 16)
		return rune(v), err == nil
	}
	r, ok := hex(b)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) {
		if low, ok := hex(b[6:]); ok {
			if pair := utf16.DecodeRune(r, low); pair != utf8.RuneError {
				return pair, 12
			}
		}
	}
	return r, 6
}

// completeJSON reports a part body that is a whole JSON value.
func completeJSON(body []byte) bool {
	trimmed := bytes.TrimSpace(body)
	return len(trimmed) > 0 && json.Valid(trimmed)
}

// Note says, in a sentence for the model, that the answer came in parts,
// and, when the stream ended before its last part, what is missing and why.
// The labels and paths the endpoint gave are not in it but in Named, which
// the note points to ("named below"): the endpoint chose them, and may
// have written them to read as instructions.
func (d *Delivery) Note() string {
	var b strings.Builder
	fmt.Fprintf(&b, "The endpoint delivered this answer incrementally (@defer/@stream) in %d %s, merged here into one result", d.Parts, plural(d.Parts, "part", "parts"))
	if len(d.Labels) > 0 {
		fmt.Fprintf(&b, " (its %s named below)", plural(len(d.Labels), "label", "labels"))
	}
	b.WriteString(".")
	if d.Complete {
		return b.String()
	}
	b.WriteString(" The stream ended before the endpoint said it was complete (no part had hasNext: false), so this is only what came")
	if d.Ended != "" {
		fmt.Fprintf(&b, ": the reading %s", d.Ended)
	}
	b.WriteString(".")
	if d.CutPart {
		b.WriteString(" A last part was cut off midway and left out.")
	}
	if len(d.Missing) > 0 {
		fmt.Fprintf(&b, " Still missing: the %d named below", len(d.Missing))
		if d.More > 0 {
			fmt.Fprintf(&b, " and %d more", d.More)
		}
		b.WriteString(".")
	}
	if d.Advice != "" {
		b.WriteString(" " + d.Advice + ".")
	}
	return b.String()
}

// Named is what Note points to: the labels of the increments that came
// and what is still missing (a label, or a path), a line each, as the
// endpoint wrote them, bounded; "" when there is none.
func (d *Delivery) Named() string {
	var lines []string
	if len(d.Labels) > 0 {
		lines = append(lines, "labels: "+strings.Join(quoted(d.Labels), ", "))
	}
	if len(d.Missing) > 0 {
		lines = append(lines, "still missing: "+strings.Join(shortened(d.Missing), ", "))
	}
	return strings.Join(lines, "\n")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func quoted(labels []string) []string {
	out := shortened(labels)
	for i, l := range out {
		out[i] = fmt.Sprintf("%q", l)
	}
	return out
}

// maxNamedBytes bounds each label and path the note names: the endpoint
// chose them, and one may be as long as its answer.
const maxNamedBytes = 100

func shortened(names []string) []string {
	out := make([]string, len(names))
	for i, name := range names {
		out[i] = httpx.Snippet([]byte(name), maxNamedBytes)
	}
	return out
}
