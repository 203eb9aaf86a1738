package hooksvc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/jsonx"
	"github.com/mcpforge/servers/shared/redact"
)

// MaxPagesInFlight bounds the pages of one listing read at once
// (ReadPages): enough to hide the API's latency behind the work on the
// pages already read, few enough that one read does not take the rate limit
// of the whole account. It also bounds the pages held: none is read more
// than MaxPagesInFlight past the one take waits for, so that pages that
// arrive ahead of a slow one do not pile up in memory.
const MaxPagesInFlight = 4

// callsKeptPerPageInFlight is how much of the rate limit ReadPages leaves to
// other calls for each page it reads at once: with X-RateLimit-Remaining at
// 20 it reads 2 pages at a time, under 16 one, so that a long read slows
// down before the account's other calls (a wait_for_request polling, a
// user's own tools) find the budget spent.
const callsKeptPerPageInFlight = 8

// Listing names the pages ReadPages reads: the listing of Token's requests
// with Query (sorting and filters), PerPage requests a page, at most
// MaxPages pages.
type Listing struct {
	Key      string
	Token    TokenID
	Query    url.Values
	PerPage  int
	MaxPages int
}

// ReadPages reads the pages of l, several at once, and hands each to take in
// page order, on the caller's goroutine. Page 1 is read alone: its total
// says how many pages follow. take returns how many pages after the one it
// was given it is sure to use: pages are read ahead that far and no
// further, so that a reader that stops (returns 0) spends no calls on
// pages it would not use. The read ends after the last page (is_last_page,
// or an empty one), after MaxPages, when take returns 0 or an error, or at
// the first page, in page order, that fails: that page's error is returned,
// as a read one page at a time would return it. When ReadPages returns,
// every read it started has ended.
//
// A page's bytes are read into memory that a later page reuses once take
// has returned: take must not keep the page, or any part of it.
func (cl *Client) ReadPages(ctx context.Context, l Listing, take func(*Page) (ahead int, err error)) error {
	ctx, cancel := context.WithCancel(ctx)
	var reads sync.WaitGroup
	defer func() {
		cancel()
		reads.Wait()
	}()
	// Each read sends once to done, which has room for all of them, so none
	// waits on the loop below, whatever it is doing when the read ends.
	done := make(chan readPage, MaxPagesInFlight)
	arrived := map[int]readPage{}
	// free holds the memory of pages take is done with, for the reads
	// that follow: a read of 100 pages makes no garbage of each, which
	// the collector would let pile up to the size of the text before
	// reclaiming it.
	var free []*[]byte
	// largest is the longest page read so far: new memory is made a
	// quarter longer, so that pages of about its size fit it at once
	// instead of growing it by copies.
	largest := 0
	// Every page is redacted with the same secrets.
	redactor := cl.secrets(l.Key)
	width, inFlight, next, bound := MaxPagesInFlight, 0, 1, 1
	for page := 1; ; {
		// A page read is started only within MaxPagesInFlight of the
		// page take waits for: pages that arrive ahead of a slow one
		// hold their memory until it is taken, and would otherwise be
		// joined by more and more. At most MaxPagesInFlight+1 pages
		// are held, the one being taken included.
		for ; inFlight < width && next <= bound && next <= page+MaxPagesInFlight; next++ {
			inFlight++
			number := next
			buffer := new([]byte)
			if last := len(free) - 1; last >= 0 {
				buffer, free = free[last], free[:last]
			} else if largest > 0 {
				*buffer = make([]byte, 0, largest+largest/4)
			}
			reads.Go(func() { done <- cl.readPage(ctx, l, number, buffer, &redactor) })
		}
		got, ok := arrived[page]
		if !ok {
			// page is being read: it is never past bound, and every read
			// before it has been handed over.
			r := <-done
			inFlight--
			if r.panicked != nil {
				panic(r.panicked)
			}
			width = widthFor(r.header, width)
			largest = max(largest, r.size)
			arrived[r.number] = r
			continue
		}
		delete(arrived, page)
		if got.err != nil {
			return got.err
		}
		ahead, err := take(got.page)
		if err != nil {
			return err
		}
		free = append(free, got.buffer)
		if ahead <= 0 || got.page.IsLastPage || len(got.page.Data) == 0 || page >= l.MaxPages {
			return nil
		}
		// Requests captured during the read join the end, past the total
		// page 1 gave: a page that is not the last is followed by one more.
		bound = min(l.MaxPages, page+ahead, max(pagesOf(got.page.Total, l.PerPage), page+1))
		page++
	}
}

// readPage is one page read by ReadPages.
type readPage struct {
	number   int
	page     *Page
	header   http.Header
	err      error
	panicked *pagePanic
	// buffer is the memory the page was read into, for the next read
	// once take is done with the page; size the page's length.
	buffer *[]byte
	size   int
}

// pagePanic is a panic of a page read, raised again by ReadPages on the
// caller's goroutine, where the server recovers from it and reports it
// (mcptool.RecoverPanics), instead of ending the process from a goroutine
// nobody recovers. It is a runtime.Error, so that the report gives its
// value, and the stack where it happened.
type pagePanic struct {
	value any
	stack []byte
}

func (p *pagePanic) Error() string {
	return fmt.Sprintf("%v (in a page read: %s)", p.value, p.stack)
}

func (p *pagePanic) RuntimeError() {}

func (cl *Client) readPage(ctx context.Context, l Listing, number int, buffer *[]byte, redactor *redact.Redactor) (read readPage) {
	defer func() {
		if p := recover(); p != nil {
			read = readPage{number: number, panicked: &pagePanic{value: p, stack: debug.Stack()}}
		}
	}()
	query := url.Values{}
	for name, values := range l.Query {
		query[name] = values
	}
	query.Set("per_page", strconv.Itoa(l.PerPage))
	query.Set("page", strconv.Itoa(number))
	// The page is checked once below, as ListRequests' check (expectPage)
	// would, without decoding it four times over. It comes as it arrived
	// (Exact), into buffer, and is redacted there, once its check has
	// found it JSON: the redactor need not check it again.
	c := Call{Method: http.MethodGet, Path: tokenPath(l.Token) + "/requests", Query: query, Key: l.Key, What: what(l.Token),
		Doing: "Listing the requests of token " + string(l.Token), expect: expectAny, Exact: true, buffer: buffer, redactor: redactor}
	resp, err := cl.Do(ctx, c)
	if err != nil {
		return readPage{number: number, err: err}
	}
	size := len(resp.Body)
	p, err := cl.checkedPage(c, resp)
	return readPage{number: number, page: p, header: resp.Header, err: err, buffer: buffer, size: size}
}

// checkedPage redacts a listing that arrived unredacted (Exact), decodes it
// and checks that it is the API's, as Do checks a Call that expects a page
// (notTheAPI): a listing of requests that all have a uuid, and no error
// envelope, is taken at once; anything else gets notTheAPI's verdict and its
// explanation, on the redacted body. Nothing reads the body before it is
// redacted but the checks that it is a web page and JSON.
func (cl *Client) checkedPage(c Call, resp *httpx.Answer) (*Page, error) {
	redactor := cl.redactor(c)
	redacted := false
	if !httpx.IsWebPage(resp.Header, resp.Body) {
		if p, err := DecodePage(resp.Body); err == nil {
			// Decoded, so valid JSON. A page without a secret comes back
			// as it is, its split still true; one with a secret is split
			// again.
			clean := redactor.ValidJSON(resp.Body)
			if redacted = true; !sameBytes(clean, resp.Body) {
				resp.Body = clean
				p, err = DecodePage(clean)
			}
			if err == nil && plainPage(p) {
				return p, nil
			}
		}
	}
	if !redacted {
		resp.Body = redactor.Bytes(resp.Body)
	}
	c.expect = expectPage
	if err := cl.notTheAPI(c, resp); err != nil {
		return nil, err
	}
	return DecodePage(resp.Body)
}

// sameBytes reports whether a and b are the same memory: what a redactor
// returns when it changed nothing.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// plainPage reports a listing that notTheAPI takes without a doubt: its data
// a list of objects with a non-empty "uuid" string each (uuidMember), and no
// "error" member (the API's refusal; a listing cannot be Laravel's, which
// has no "data").
func plainPage(p *Page) bool {
	if _, refusal := p.Fields["error"]; refusal {
		return false
	}
	if raw := p.Fields["data"]; len(raw) == 0 || raw[0] != '[' {
		return false
	}
	for _, item := range p.Data {
		if !uuidMember(item) {
			return false
		}
	}
	return true
}

// uuidMember reports that item, valid JSON, is an object whose "uuid" is a
// non-empty string as encoding/json reads it (hasUUID): the last member
// whose name matches "uuid" in any case holds a string of at least one
// character, and none holds another type. It only walks the item's
// members, without decoding them. A name it cannot compare as
// encoding/json does (one with an escape, or beyond ASCII, which
// encoding/json folds its own way) makes it say no, and the full check
// decides.
func uuidMember(item []byte) bool {
	i := skipSpace(item, 0)
	if i >= len(item) || item[i] != '{' {
		return false
	}
	found := false
	for i = skipSpace(item, i+1); i < len(item) && item[i] == '"'; {
		nameEnd := valueEnd(item, i)
		start := skipSpace(item, skipSpace(item, nameEnd)+1) // past the colon
		if nameEnd < i+2 || start >= len(item) {
			return false
		}
		name, end := item[i+1:nameEnd-1], valueEnd(item, start)
		if end <= start {
			return false
		}
		for _, c := range name {
			if c == '\\' || c >= 0x80 {
				return false
			}
		}
		if bytes.EqualFold(name, []byte("uuid")) {
			switch value := item[start:end]; value[0] {
			case '"':
				found = len(value) > 2
			case 'n':
				found = false
			default:
				return false
			}
		}
		if i = skipSpace(item, end); i < len(item) && item[i] == ',' {
			i = skipSpace(item, i+1)
		}
	}
	return found
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// valueEnd is the index after the JSON value that starts at data[i]; data
// is valid JSON (a page's requests were checked when it was decoded), and
// anything else ends at worst at its end.
func valueEnd(data []byte, i int) int {
	switch data[i] {
	case '"':
		return jsonx.StringEnd(data, i)
	case '{', '[':
		depth := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				i = valueEnd(data, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(data)
	}
	// A number, true, false or null: up to what follows it.
	for i < len(data) && !bytes.ContainsRune([]byte(",}] \t\n\r"), rune(data[i])) {
		i++
	}
	return i
}

// splitArray splits a JSON array, valid (checked as part of its page),
// into its values, each without the space around it, as decoding it into
// []json.RawMessage would: the page was checked whole, and a second decode
// of its data was a second pass over every byte of it.
func splitArray(array []byte) []json.RawMessage {
	values := []json.RawMessage{}
	for i := skipSpace(array, 1); i < len(array) && array[i] != ']'; {
		end := valueEnd(array, i)
		if end <= i {
			break
		}
		values = append(values, json.RawMessage(array[i:end:end]))
		if i = skipSpace(array, end); i < len(array) && array[i] == ',' {
			i = skipSpace(array, i+1)
		}
	}
	return values
}

// widthFor is how many pages to read at once after an answer with header:
// fewer as X-RateLimit-Remaining falls (see callsKeptPerPageInFlight);
// width as it was when the answer does not say.
func widthFor(header http.Header, width int) int {
	remaining, err := strconv.Atoi(strings.TrimSpace(header.Get("X-RateLimit-Remaining")))
	if err != nil || remaining < 0 {
		return width
	}
	return min(max(remaining/callsKeptPerPageInFlight, 1), MaxPagesInFlight)
}

// pagesOf is how many pages of perPage hold total requests; any total the
// API may claim, without overflow.
func pagesOf(total, perPage int) int {
	if total <= 0 || perPage <= 0 {
		return 0
	}
	pages := total / perPage
	if total%perPage != 0 {
		pages++
	}
	return pages
}
