package tools

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/shared/app"
	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/jsonx"
	"github.com/mcpforge/servers/shared/mcptool"
	"github.com/mcpforge/servers/shared/redact"
)

// The resource: every request a token holds, as one JSON array.
const (
	requestsURITemplate = "hooksvc://token/{token_id}/requests"
	resourcePerPage     = 100
	// maxResourcePages stops a read whose pages never end; a token keeps at
	// most 10,000 requests, which is 100 pages.
	maxResourcePages = 200
)

func requestsURI(tokenID string) string {
	return "hooksvc://token/" + tokenID + "/requests"
}

func (h *handlers) addRequestsResource(server *mcp.Server) {
	server.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: requestsURITemplate,
		Name:        "token-requests",
		Title:       "Requests captured by a token",
		Description: "Every request the token holds, oldest first, all pages in one JSON array, each request as the API returns it. Read with HOOKSVC_API_KEY.",
		MIMEType:    "application/json",
	}, h.readRequests)
	if h.cfg.TokenID != "" {
		server.AddResource(&mcp.Resource{
			URI:         requestsURI(h.cfg.TokenID),
			Name:        "default-token-requests",
			Title:       "Requests captured by the default token",
			Description: "Every request the default token (HOOKSVC_TOKEN_ID) holds, as one JSON array.",
			MIMEType:    "application/json",
		}, h.readRequests)
	}
	server.AddReceivingMiddleware(encodeReadOnce)
}

// readRequests reads pages, oldest first so that requests arriving during
// the read join the end instead of shifting the pages, until the text would
// pass the configured size (--resource-max-bytes). Requests left out are
// counted in a second, plain-text content that says how to read them. The
// call's --timeout bounds the whole read, not each page.
func (h *handlers) readRequests(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	// A URI that holds a pasted capture URL may hold the configured key in
	// its query: the URI is shown in errors and in the answer.
	uri := redact.New(h.cfg.APIKey).String(req.Params.URI)
	pasted, ok := strings.CutPrefix(req.Params.URI, "hooksvc://token/")
	if ok {
		pasted, ok = strings.CutSuffix(pasted, "/requests")
	}
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"%s: the resource's URI is %s, with a token UUID such as %s", truncate(uri, 200), requestsURITemplate, hooksvc.ExampleUUID)}
	}
	// The token as a user pastes it (hooksvc.ParseToken): its UUID or DNS
	// name, or percent-encoded, as the template's one segment takes them,
	// its email address or capture URL.
	if unescaped, err := url.PathUnescape(pasted); err == nil {
		pasted = unescaped
	}
	id, err := h.client.ParseToken("token_id", pasted)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s: %v", truncate(uri, 200), err)}
	}
	text, err := h.readRequestPages(ctx, id)
	if err != nil {
		return nil, resourceError(req, uri, err, h.cfg.APIKey != "")
	}
	return text.result(ctx, uri), nil
}

// resourceError is a failed read as the JSON-RPC error the client's protocol
// version defines, with advice a resource reader can follow: a read takes
// no arguments, so the key can only come from HOOKSVC_API_KEY.
func resourceError(req *mcp.ReadResourceRequest, uri string, err error, keySet bool) error {
	data, _ := jsonx.Marshal(map[string]string{"uri": uri})
	switch {
	case errors.Is(err, hooksvc.ErrNotFound):
		return mcptool.ResourceNotFound(req, uri, "the token does not exist, was deleted or has expired; check its UUID (get_token reads it, create_token makes a new one)")
	case errors.Is(err, hooksvc.ErrAuth) && keySet:
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Data: data, Message: "reading " + uri +
			": the capture API refused the key in HOOKSVC_API_KEY for this token (a resource read can use no other): start hookmcp with the key of the account that owns the token"}
	case errors.Is(err, hooksvc.ErrAuth):
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Data: data, Message: "reading " + uri +
			": the capture API refused the key (authentication required or key invalid); a resource read uses HOOKSVC_API_KEY: set it in hookmcp's environment to the key of the token's account"}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Data: data, Message: fmt.Sprintf("reading %s: %v", uri, err)}
}

// readRequestPages reads the token's pages, several at once
// (hooksvc.ReadPages), into the resource's text in page order.
func (h *handlers) readRequestPages(ctx context.Context, id hooksvc.TokenID) (*requestsText, error) {
	ctx, cancel := httpx.WithTimeout(ctx, h.cfg.Timeout)
	defer cancel()
	text := newRequestsText(h.resourceMaxBytes())
	listing := hooksvc.Listing{Key: h.cfg.APIKey, Token: id, Query: url.Values{"sorting": {"oldest"}}, PerPage: resourcePerPage, MaxPages: maxResourcePages}
	if err := h.client.ReadPages(ctx, listing, text.add); err != nil {
		return nil, err
	}
	return text, nil
}

// requestsText is the resource's text, the JSON array of the requests,
// each compacted as json.Marshal would, written in chunks as the pages
// arrive (see encodeReadOnce), so that memory holds one copy of it and the
// pages being read.
type requestsText struct {
	limit int
	text  *chunkedText
	// item is a buffer reused from request to request.
	item []byte
	// size counts the text with its brackets, as --resource-max-bytes
	// does; kept the requests in it; total the most the API said the token
	// holds; full that a request did not fit.
	size, kept, total int
	full              bool
	// largestPage is the most bytes one page added, to guess how many
	// pages are sure to fit.
	largestPage int
}

func newRequestsText(limit int) *requestsText {
	t := &requestsText{limit: limit, size: 2, text: &chunkedText{}}
	t.text.write([]byte("["))
	return t
}

// add writes a page's requests while they fit, and says how many pages
// after it are sure to be used: none once one did not fit; else as many as
// the room left holds at twice the largest page so far, and at least the
// next one, which may hold requests that fit.
func (t *requestsText) add(p *hooksvc.Page) (ahead int, err error) {
	t.total = max(t.total, p.Total)
	before := t.size
	for _, d := range p.Data {
		t.item = compactItem(t.item[:0], d)
		if t.size+len(t.item)+1 > t.limit {
			t.full = true
			return 0, nil
		}
		if t.kept > 0 {
			t.text.write([]byte(","))
		}
		t.text.write(t.item)
		t.size += len(t.item) + 1
		t.kept++
	}
	t.largestPage = max(t.largestPage, t.size-before)
	return max((t.limit-t.size)/max(2*t.largestPage, 1), 1), nil
}

// result is the resource's answer: the text, and a note when requests were
// left out. The text goes to encodeReadOnce through ctx, in its chunks.
func (t *requestsText) result(ctx context.Context, uri string) *mcp.ReadResourceResult {
	t.text.write([]byte("]"))
	contents := []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json"}}
	if t.full {
		contents = append(contents, &mcp.ResourceContents{URI: uri, MIMEType: "text/plain", Text: resourceCutNote(t.kept, t.total, t.size, t.limit)})
	}
	if slot, ok := ctx.Value(chunkedTextKey{}).(**chunkedText); ok {
		*slot = t.text
	} else {
		// Without the middleware (a server built without it), the text
		// itself.
		contents[0].Text = string(t.text.bytes())
	}
	return &mcp.ReadResourceResult{Contents: contents}
}

// compactItem appends a request of a page to dst as the resource writes
// it: a JSON object, with the fewest escapes (jsonx.AppendUnescape),
// compact, in one pass (jsonx.AppendCompactUnescape) straight into the
// text's buffer: the hosted service escapes every / (each request's URL has
// some), so nearly every request is respelled, and a buffer of its own for
// each was garbage as large as the text.
func compactItem(dst []byte, item json.RawMessage) []byte {
	item = requestItem(item)
	// Respelling only rewrites \/ and \u escapes, and (in its check of a
	// lone surrogate) text that is not UTF-8: a request with neither is
	// already as it would write it, and is only compacted, which skips
	// the escaped strings' second look. Requests written as Go writes
	// JSON are.
	if bytes.Contains(item, []byte(`\/`)) || bytes.Contains(item, []byte(`\u`)) || !utf8.Valid(item) {
		return jsonx.AppendCompactUnescape(dst, item)
	}
	return jsonx.AppendCompact(dst, item)
}

// The SDK encodes a result twice over: ReadResourceResult.MarshalJSON
// writes it with json.Marshal, into a buffer that grows by doubling and is
// then copied out, and encoding/json compacts that into a buffer of its
// own, which the SDK copies out again. With the text beside them, a read of
// 10,000 requests peaked at 9 times the text's size. So the resource's
// text is written in chunks as the pages arrive, and the result is encoded
// around it. Over stdio the result goes to the output as it is
// (app.Verbatim), the text escaped as a JSON string a block at a time on
// its way out: memory holds the text once, as it reads, and never copies
// it. Elsewhere (Streamable HTTP, in memory) the SDK encodes the result
// itself, and gets it encoded in one piece.

// chunkedTextKey keys the slot in a resources/read handler's context where
// the handler leaves its first content's text (**chunkedText).
type chunkedTextKey struct{}

// encodeReadOnce is the middleware that gives the resource handler the
// slot, and marshals the result it returns with the text left there.
func encodeReadOnce(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "resources/read" {
			return next(ctx, method, req)
		}
		var slot *chunkedText
		res, err := next(context.WithValue(ctx, chunkedTextKey{}, &slot), method, req)
		read, ok := res.(*mcp.ReadResourceResult)
		if err != nil || !ok || slot == nil {
			return res, err
		}
		return &encodedRead{ReadResourceResult: read, text: slot, verbatim: app.VerbatimFrom(ctx)}, nil
	}
}

// encodedRead is a resources/read result whose first content's text is
// held apart, in chunks. The result itself is embedded: what the SDK sets
// on it after the handler (its result type, _meta) is marshalled with it.
type encodedRead struct {
	*mcp.ReadResourceResult
	text *chunkedText
	// verbatim, over stdio, writes the result's encoding as it is, and
	// stand is what MarshalJSON returns in its place (see app.Verbatim).
	verbatim *app.Verbatim
	stand    json.RawMessage
}

// textPlaceholder stands for the text while the rest of the result is
// marshalled; nothing else in a result of this resource can hold it (its
// URI is a token's, checked, and its note is written here).
const textPlaceholder = "hookmcp-encoded-text-4c1d9e"

func (r *encodedRead) MarshalJSON() ([]byte, error) {
	if r.stand != nil {
		return r.stand, nil
	}
	encoded, err := r.encoding()
	if err != nil {
		return nil, err
	}
	if r.verbatim != nil {
		r.stand = r.verbatim.Stand(encoded)
		return r.stand, nil
	}
	var b bytes.Buffer
	b.Grow(len(encoded.before) + r.text.size + r.text.size/8 + len(encoded.after))
	if _, err := encoded.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// encoding is the result's encoding, compact as encoding/json writes it:
// ReadResourceResult's own, with the text in its place.
func (r *encodedRead) encoding() (*readEncoding, error) {
	first := r.Contents[0]
	first.Text = textPlaceholder
	around, err := r.ReadResourceResult.MarshalJSON()
	first.Text = ""
	if err != nil {
		return nil, err
	}
	quoted := []byte(`"` + textPlaceholder + `"`)
	at := bytes.Index(around, quoted)
	if at < 0 || bytes.Count(around, quoted) != 1 {
		return nil, fmt.Errorf("encoding %s: the result does not hold its text once", first.URI)
	}
	return &readEncoding{before: around[:at], text: r.text, after: around[at+len(quoted):]}, nil
}

// readEncoding writes a result's encoding: before, the text as a JSON
// string, after.
type readEncoding struct {
	before, after []byte
	text          *chunkedText
}

// escapeBlock is how much of the text is escaped at once on its way out:
// each write is a few times a pipe's buffer.
const escapeBlock = 128 << 10

func (e *readEncoding) WriteTo(w io.Writer) (int64, error) {
	written := int64(0)
	write := func(b []byte) error {
		n, err := w.Write(b)
		written += int64(n)
		return err
	}
	buf := append(append(make([]byte, 0, escapeBlock+escapeBlock/4+len(e.before)), e.before...), '"')
	for _, chunk := range e.text.chunks {
		for len(chunk) > 0 {
			n := blockEnd(chunk, escapeBlock)
			buf = appendEscaped(buf, chunk[:n])
			chunk = chunk[n:]
			if len(buf) >= escapeBlock {
				if err := write(buf); err != nil {
					return written, err
				}
				buf = buf[:0]
			}
		}
	}
	return written, write(append(append(buf, '"'), e.after...))
}

// blockEnd is where to cut text to escape at most about n bytes of it:
// before a character, never inside one, so that each piece escapes as the
// whole would.
func blockEnd(text []byte, n int) int {
	if n >= len(text) {
		return len(text)
	}
	// A character is at most 4 bytes: within 3 bytes back is its start,
	// unless these are bytes that are not UTF-8, which escape one by one
	// wherever they are cut. A character that starts the text is kept
	// whole, so that each piece holds something.
	for back := 0; back < utf8.UTFMax && back <= n; back++ {
		if !utf8.RuneStart(text[n-back]) {
			continue
		}
		if back == n {
			_, size := utf8.DecodeRune(text)
			return size
		}
		return n - back
	}
	return n
}

// chunkSize is the size of the chunks a text is written in: a few dozen
// for the largest text.
const chunkSize = 256 << 10

// chunkedText is a text written piece by piece in chunks that are never
// copied once written: memory grows with the text, never ahead of it.
type chunkedText struct {
	chunks [][]byte
	size   int
}

// write appends text. A text too long for the room left in the last chunk
// starts a new one, made long enough for it: a piece is never cut.
func (c *chunkedText) write(text []byte) {
	last := len(c.chunks) - 1
	if last < 0 || len(c.chunks[last])+len(text) > cap(c.chunks[last]) {
		c.chunks = append(c.chunks, make([]byte, 0, max(chunkSize, len(text))))
		last++
	}
	c.chunks[last] = append(c.chunks[last], text...)
	c.size += len(text)
}

// bytes is the text in one piece.
func (c *chunkedText) bytes() []byte {
	return slices.Concat(c.chunks...)
}

const hexDigits = "0123456789abcdef"

// appendEscaped appends text to dst as the inside of a JSON string, byte
// for byte as encoding/json writes it (without HTML escapes, as the SDK's
// Encoder writes its messages).
func appendEscaped(dst, text []byte) []byte {
	start := 0
	for i := 0; i < len(text); {
		// Eight bytes at a time while none needs a look: a resource's
		// text is megabytes of mostly plain ASCII.
		for i+8 <= len(text) && plainWord(binary.LittleEndian.Uint64(text[i:])) {
			i += 8
		}
		if i >= len(text) {
			break
		}
		c := text[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, text[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(text[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(append(dst, text[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(append(dst, text[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(dst, text[start:]...)
}

// plainWord reports whether the eight bytes of w are all ASCII that a JSON
// string holds as it is: none a control character, a quote or a
// backslash. It may say no for a word that is plain (the next check is
// byte by byte), never yes for one that is not.
func plainWord(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	hasZero := func(v uint64) bool { return (v-ones)&^v&highs != 0 }
	// Past the first test every byte is below 0x80, so taking 0x20 from
	// each borrows only where one is below 0x20, which sets a high bit.
	return w&highs == 0 && (w-0x20*ones)&highs == 0 && !hasZero(w^('"'*ones)) && !hasZero(w^('\\'*ones))
}

func (h *handlers) resourceMaxBytes() int {
	if h.cfg.ResourceMaxBytes > 0 {
		return int(h.cfg.ResourceMaxBytes)
	}
	return config.DefaultResourceMaxBytes
}

// resourceCutNote says how many requests a cut read left out and which
// list_requests calls read them: a per_page whose pages stay under
// list_requests' own budget, dividing kept so that a page starts at the
// first request left out.
func resourceCutNote(kept, total, size, limit int) string {
	leftOut := max(total-kept, 1)
	average := size / max(kept, 1)
	perPage := min(max(maxResultBytes*9/10/max(average, 1), 1), 100)
	if kept == 0 {
		perPage = 1
	}
	for kept > 0 && kept%perPage != 0 {
		perPage--
	}
	return fmt.Sprintf("This resource holds the oldest %d of the token's %d requests; the other %d were left out to keep it under %d bytes (--resource-max-bytes). "+
		"Read them with list_requests, sorting \"oldest\", per_page %d, from page %d on; or narrow with its query, date_from and date_to.",
		kept, max(total, kept+leftOut), leftOut, limit, perPage, kept/perPage+1)
}
