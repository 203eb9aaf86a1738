package hooksvc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
	"unsafe"

	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/httpx"
)

// pagesFixture is a token of the fake holding n requests, served through
// wrap, and a client of it.
type pagesFixture struct {
	client *Client
	fake   *fakehooksvc.Server
	token  TokenID
	mu     sync.Mutex
	sleeps []time.Duration
}

func newPagesFixture(t *testing.T, n int, wrap func(http.Handler) http.Handler) *pagesFixture {
	t.Helper()
	fake := fakehooksvc.New(fakehooksvc.Options{})
	srv := httptest.NewServer(wrap(fake))
	t.Cleanup(srv.Close)
	resp, err := http.Post(srv.URL+"/token", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	var token struct{ UUID string }
	err = json.NewDecoder(resp.Body).Decode(&token)
	resp.Body.Close()
	if err != nil || token.UUID == "" {
		t.Fatalf("creating a token: %v %+v", err, token)
	}
	for i := range n {
		resp, err := http.Post(srv.URL+"/"+token.UUID, "text/plain", strings.NewReader(strconv.Itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	fake.Reset()
	base, _ := url.Parse(srv.URL)
	f := &pagesFixture{fake: fake, token: TokenID(token.UUID)}
	f.client = &Client{
		Caller:  &httpx.Caller{HTTP: httpx.NewClient(httpx.Options{}), Logger: slog.New(slog.DiscardHandler)},
		BaseURL: base, Timeout: time.Minute, Logger: slog.New(slog.DiscardHandler),
		Sleep: func(_ context.Context, d time.Duration) error {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.sleeps = append(f.sleeps, d)
			return nil
		},
	}
	return f
}

func (f *pagesFixture) listing(perPage int) Listing {
	return Listing{Token: f.token, Query: url.Values{"sorting": {"oldest"}}, PerPage: perPage, MaxPages: 200}
}

// pagesRead are the page numbers the fake was asked for, sorted.
func (f *pagesFixture) pagesRead() []int {
	var pages []int
	for _, r := range f.fake.Received() {
		n, _ := strconv.Atoi(r.Query.Get("page"))
		pages = append(pages, n)
	}
	slices.Sort(pages)
	return pages
}

// collect is a take that keeps each page's number and first request's
// content, and asks for ahead pages after each.
type collect struct {
	pages    []int
	contents []string
	ahead    int
}

func (c *collect) take(p *Page) (int, error) {
	c.pages = append(c.pages, p.Page)
	for _, d := range p.Data {
		var r struct{ Content string }
		json.Unmarshal(d, &r)
		c.contents = append(c.contents, r.Content)
	}
	return c.ahead, nil
}

// inFlight counts the page reads a server is answering at once, and holds
// the first hold of pages after page 1 until they have all arrived: they
// arrive together only when they are read at once.
type inFlight struct {
	mu         sync.Mutex
	now, most  int
	hold       int
	held       int
	release    chan struct{}
	rateHeader string
}

func newInFlight(hold int, rateHeader string) *inFlight {
	return &inFlight{hold: hold, release: make(chan struct{}), rateHeader: rateHeader}
}

func (g *inFlight) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.rateHeader != "" {
			w.Header().Set("X-RateLimit-Limit", "120")
			w.Header().Set("X-RateLimit-Remaining", g.rateHeader)
		}
		if !strings.HasSuffix(r.URL.Path, "/requests") {
			next.ServeHTTP(w, r)
			return
		}
		g.mu.Lock()
		g.now++
		g.most = max(g.most, g.now)
		wait := r.URL.Query().Get("page") != "1" && g.held < g.hold
		if wait {
			g.held++
			if g.held == g.hold {
				close(g.release)
			}
		}
		g.mu.Unlock()
		if wait {
			select {
			case <-g.release:
			case <-r.Context().Done():
			}
		}
		next.ServeHTTP(w, r)
		g.mu.Lock()
		g.now--
		g.mu.Unlock()
	})
}

// TestReadPagesInOrder: the pages after the first are read four at a time,
// never more, and reach take in page order, every request once, oldest
// first.
func TestReadPagesInOrder(t *testing.T) {
	g := newInFlight(MaxPagesInFlight, "")
	f := newPagesFixture(t, 95, g.wrap)
	c := &collect{ahead: 100}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a safety net: a reader that never reads four at once hangs
	defer cancel()
	if err := f.client.ReadPages(ctx, f.listing(10), c.take); err != nil {
		t.Fatal(err)
	}
	want := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if !slices.Equal(c.pages, want) || !slices.Equal(f.pagesRead(), want) {
		t.Errorf("take got pages %v, the fake served %v; want %v", c.pages, f.pagesRead(), want)
	}
	for i, content := range c.contents {
		if content != strconv.Itoa(i) {
			t.Fatalf("request %d is %q: not in order", i, content)
		}
	}
	if len(c.contents) != 95 {
		t.Errorf("%d requests, want 95", len(c.contents))
	}
	if g.most != MaxPagesInFlight {
		t.Errorf("at most %d pages read at once, want %d", g.most, MaxPagesInFlight)
	}
}

// TestReadPagesReusesMemory: the pages of a read are read into memory
// reused from page to page, not each into memory of its own. The API asks
// for one page at a time (X-RateLimit-Remaining 1), so that each page is
// read once take is done with the one before: all of them fit in two
// buffers, the first page's and, should a later page not fit that, one
// made larger. A page here is over 32 KiB, which Go allocates at the start
// of a span of its own, 8 KiB-aligned: its first request is a few bytes
// past that start.
func TestReadPagesReusesMemory(t *testing.T) {
	const pages = 12
	f := newPagesFixture(t, 0, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-RateLimit-Remaining", "1")
			h.ServeHTTP(w, r)
		})
	})
	for i := range pages * 100 {
		resp, err := http.Post(f.client.BaseURL.String()+"/"+string(f.token), "text/plain", strings.NewReader(fmt.Sprintf("%04d%s", i, strings.Repeat("x", 400))))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	buffers := map[uintptr]bool{}
	read := 0
	err := f.client.ReadPages(context.Background(), f.listing(100), func(p *Page) (int, error) {
		if len(p.Data) != 100 || !strings.Contains(string(p.Data[0]), fmt.Sprintf("%04d", read)) {
			return 0, fmt.Errorf("page %d holds %d requests, the first %.60s", p.Page, len(p.Data), p.Data[0])
		}
		read += len(p.Data)
		buffers[uintptr(unsafe.Pointer(unsafe.SliceData(p.Data[0])))&^8191] = true
		return pages, nil
	})
	if err != nil || read != pages*100 {
		t.Fatalf("read %d requests: %v", read, err)
	}
	if len(buffers) > 2 {
		t.Errorf("%d pages read one at a time were read into %d buffers, want at most 2", pages, len(buffers))
	}
}

// TestReadPagesRateLimit: fewer pages are read at once as
// X-RateLimit-Remaining falls, one when it is under 16.
func TestReadPagesRateLimit(t *testing.T) {
	for _, tc := range []struct {
		remaining string
		want      int
	}{{"", 4}, {"119", 4}, {"24", 3}, {"16", 2}, {"15", 1}, {"0", 1}, {"soon", 4}} {
		t.Run("remaining="+tc.remaining, func(t *testing.T) {
			g := newInFlight(tc.want, tc.remaining)
			f := newPagesFixture(t, 60, g.wrap)
			c := &collect{ahead: 100}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := f.client.ReadPages(ctx, f.listing(10), c.take); err != nil {
				t.Fatal(err)
			}
			if len(c.contents) != 60 || g.most != tc.want {
				t.Errorf("%d requests, at most %d pages at once; want 60, %d", len(c.contents), g.most, tc.want)
			}
		})
	}
}

// TestReadPagesAhead: pages are read only as far ahead as take asks, and
// none after take says it has enough.
func TestReadPagesAhead(t *testing.T) {
	g := newInFlight(0, "")
	f := newPagesFixture(t, 100, g.wrap)
	c := &collect{ahead: 1}
	stopAt3 := func(p *Page) (int, error) {
		c.take(p)
		if p.Page == 3 {
			return 0, nil
		}
		return 1, nil
	}
	if err := f.client.ReadPages(context.Background(), f.listing(10), stopAt3); err != nil {
		t.Fatal(err)
	}
	if want := []int{1, 2, 3}; !slices.Equal(c.pages, want) || !slices.Equal(f.pagesRead(), want) || g.most != 1 {
		t.Errorf("take got %v, the fake served %v, %d at once; want %v, one at a time", c.pages, f.pagesRead(), g.most, want)
	}
}

// TestReadPagesFailure: a page that fails ends the read with its error once
// the pages before it are taken, as a read of one page at a time does; a
// 429 with Retry-After is retried as Do retries it.
func TestReadPagesFailure(t *testing.T) {
	failing := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("page") == "3" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				io.WriteString(w, `{"success":false,"error":{"message":"page 3 broke","id":null}}`)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	f := newPagesFixture(t, 100, failing)
	c := &collect{ahead: 100}
	err := f.client.ReadPages(context.Background(), f.listing(10), c.take)
	if err == nil || !strings.Contains(err.Error(), "page 3 broke") || !strings.Contains(err.Error(), "Listing the requests of token "+string(f.token)) {
		t.Errorf("err = %v, want page 3's", err)
	}
	if !slices.Equal(c.pages, []int{1, 2}) {
		t.Errorf("take got %v, want 1 and 2", c.pages)
	}

	f = newPagesFixture(t, 30, func(h http.Handler) http.Handler { return h })
	f.fake.Inject(fakehooksvc.Fault{Method: "GET", Status: http.StatusTooManyRequests, RetryAfter: "2", Times: 2})
	c = &collect{ahead: 100}
	if err := f.client.ReadPages(context.Background(), f.listing(10), c.take); err != nil {
		t.Fatal(err)
	}
	if len(c.contents) != 30 || !slices.Equal(f.sleeps, []time.Duration{2 * time.Second, 2 * time.Second}) {
		t.Errorf("%d requests after waits %v; want 30 after two waits of 2s", len(c.contents), f.sleeps)
	}
}

// TestReadPagesStopsWithTake: an error of take ends the read with it.
func TestReadPagesStopsWithTake(t *testing.T) {
	f := newPagesFixture(t, 30, func(h http.Handler) http.Handler { return h })
	boom := fmt.Errorf("no room")
	err := f.client.ReadPages(context.Background(), f.listing(10), func(*Page) (int, error) { return 1, boom })
	if err != boom {
		t.Errorf("err = %v, want take's", err)
	}
}

// handlerTransport serves requests with a handler in the caller's
// goroutine, so that a test in a synctest bubble has no network.
type handlerTransport struct{ handler http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.handler.ServeHTTP(rec, r)
	if err := r.Context().Err(); err != nil {
		return nil, err
	}
	return rec.Result(), nil
}

// handlerClient is a client of the API that handler serves, through
// handlerTransport.
func handlerClient(handler http.Handler) *Client {
	base, _ := url.Parse("http://hooks.test")
	return &Client{
		Caller:  &httpx.Caller{HTTP: &http.Client{Transport: handlerTransport{handler}}, Logger: slog.New(slog.DiscardHandler)},
		BaseURL: base, Timeout: time.Minute, Logger: slog.New(slog.DiscardHandler),
	}
}

// TestReadPagesCancel: when the call's context ends while pages are being
// read, ReadPages returns the end's error at once, and every read it
// started has ended (synctest fails a test that leaves a goroutine
// blocked).
func TestReadPagesCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		started, ended := 0, 0
		handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			page, _ := strconv.Atoi(r.URL.Query().Get("page"))
			if page > 1 {
				mu.Lock()
				started++
				mu.Unlock()
				<-r.Context().Done() // the API never answers the pages after the first
				mu.Lock()
				ended++
				mu.Unlock()
				return
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"data":[{"uuid":%q}],"total":50,"per_page":1,"current_page":1,"is_last_page":false}`, ExampleUUID)
		})
		cl := handlerClient(handler)
		ctx, cancel := context.WithCancel(context.Background())
		result := make(chan error, 1)
		taken := 0
		go func() {
			result <- cl.ReadPages(ctx, Listing{Token: ExampleUUID, PerPage: 1, MaxPages: 200}, func(*Page) (int, error) { taken++; return 100, nil })
		}()
		synctest.Wait() // page 1 taken, pages 2 to 5 waiting on the API
		mu.Lock()
		if started != MaxPagesInFlight || taken != 1 {
			t.Errorf("%d pages waiting, %d taken; want %d, 1", started, taken, MaxPagesInFlight)
		}
		mu.Unlock()
		cancel()
		err := <-result
		if err == nil || !strings.Contains(err.Error(), "Listing the requests of token "+ExampleUUID) {
			t.Errorf("err = %v, want the listing's cancellation", err)
		}
		mu.Lock()
		defer mu.Unlock()
		if ended != started {
			t.Errorf("%d of %d page reads ended when ReadPages returned", ended, started)
		}
	})
}

// TestReadPagesHoldsFewPages: while a page's answer is late, the pages
// after it are read only as far as MaxPagesInFlight past it, however fast
// they arrive and however far ahead take asks for: each page read ahead
// holds its memory until the late one is taken.
func TestReadPagesHoldsFewPages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var served []int
		handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			page, _ := strconv.Atoi(r.URL.Query().Get("page"))
			mu.Lock()
			served = append(served, page)
			mu.Unlock()
			if page == 2 {
				<-r.Context().Done() // page 2 never comes
				return
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"data":[{"uuid":%q}],"total":50,"per_page":1,"current_page":%d,"is_last_page":false}`, ExampleUUID, page)
		})
		cl := handlerClient(handler)
		ctx, cancel := context.WithCancel(context.Background())
		result := make(chan error, 1)
		go func() {
			result <- cl.ReadPages(ctx, Listing{Token: ExampleUUID, PerPage: 1, MaxPages: 200}, func(*Page) (int, error) { return 100, nil })
		}()
		synctest.Wait() // page 1 taken, page 2 late, the pages after it read and waiting
		mu.Lock()
		slices.Sort(served)
		var want []int // page 1, and page 2 with MaxPagesInFlight after it
		for page := 1; page <= 2+MaxPagesInFlight; page++ {
			want = append(want, page)
		}
		if !slices.Equal(served, want) {
			t.Errorf("pages read while page 2 is late: %v, want %v", served, want)
		}
		mu.Unlock()
		cancel()
		if err := <-result; err == nil {
			t.Error("ReadPages gave no error for the page that never came")
		}
	})
}

// TestReadPagesPanic: a panic in a page read is raised again on the
// caller's goroutine, with its value, where the server's recovery takes it.
func TestReadPagesPanic(t *testing.T) {
	cl := handlerClient(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("deep below") }))
	defer func() {
		p, ok := recover().(*pagePanic)
		if !ok || !strings.Contains(p.Error(), "deep below") || !strings.Contains(p.Error(), "goroutine") {
			t.Errorf("recovered %v, want the page read's panic with its stack", p)
		}
	}()
	cl.ReadPages(context.Background(), Listing{Token: ExampleUUID, PerPage: 1, MaxPages: 200}, func(*Page) (int, error) { return 1, nil })
	t.Error("ReadPages returned")
}

// pageSeeds are listings and answers that look like them, for the check of
// a page.
var pageSeeds = []string{
	`{"data":[{"uuid":"a"},{"uuid":"b"}],"total":2}`,
	`{"data":[],"total":0}`,
	`{"data":{},"total":0}`,
	`{"data":null}`,
	`{"data":"x"}`,
	`{"data":[{"uuid":""}]}`,
	`{"data":[{"uuid":null}]}`,
	`{"data":[{"uuid":1}]}`,
	`{"data":[{"UUID":"a"}]}`,
	`{"data":[{"Uuid":"a","uuid":""}]}`,
	`{"data":[{"uuid":"a","UUID":""}]}`,
	`{"data":[{"uuid":"","UUID":"a"}]}`,
	`{"data":[{"uu\u0069d":"a"}]}`,
	`{"data":[{"id":"a"}]}`,
	`{"data":[["uuid","a"]]}`,
	`{"data":[{"uuid":"a"}],"error":{"message":"no"}}`,
	`{"data":[{"uuid":"a"}],"success":false}`,
	`{"data":[{"uuid":"a"}],"message":"x"}`,
	`{"success":false,"error":{"message":"no","id":null}}`,
	`{"message":"The given data was invalid.","errors":{"page":["bad"]}}`,
	`{"total":3}`,
	`[{"uuid":"a"}]`,
	`<html><title>Hi</title></html>`,
	``,
	`{"data":[{"uuid":"a"}]} x`,
	`{"data":[{"uuid":"a"}],"data":[{"id":1}]}`,
	`{"data":[{"uuid":"a"}],"data":{}}`,
	" {\"data\":[{\"uuid\":\"a\"}]}\n",
}

// checkAgainstNotTheAPI holds checkedPage's verdict on body, as it
// arrived, to Do's check of a listing (notTheAPI, expectPage) on the body
// redacted as the Caller redacts every answer, and its page to DecodePage's
// of the redacted body, request for request, with a key and without.
func checkAgainstNotTheAPI(t *testing.T, body []byte, contentType string) {
	// checkedPage redacts what DecodePage takes as JSON, without the
	// redactor's own check (redact.ValidJSON): it must be JSON.
	if _, err := DecodePage(body); err == nil && !json.Valid(body) {
		t.Fatalf("DecodePage takes %q, which is not JSON", body)
	}
	base, _ := url.Parse("https://hooks.example")
	for _, key := range []string{"", pageKey} {
		cl := &Client{BaseURL: base, APIKey: key}
		c := Call{Method: http.MethodGet, Path: "/token/x/requests", What: "token x", Doing: "Listing the requests of token x", Key: key, expect: expectPage}
		redacted := cl.redactor(c).Bytes(body)
		want := cl.notTheAPI(c, &httpx.Answer{Status: 200, Header: http.Header{"Content-Type": {contentType}}, Body: redacted})
		wantPage, decodeErr := DecodePage(redacted)
		if want == nil {
			want = decodeErr
		}
		got, err := cl.checkedPage(c, &httpx.Answer{Status: 200, Header: http.Header{"Content-Type": {contentType}}, Body: bytes.Clone(body)})
		if (err == nil) != (want == nil) || err != nil && err.Error() != want.Error() {
			t.Fatalf("%q, key %q: checkedPage says %v, Do's check %v", body, key, err, want)
		}
		if err != nil {
			continue
		}
		if got.Total != wantPage.Total || len(got.Data) != len(wantPage.Data) {
			t.Fatalf("%q, key %q: checkedPage gave %d requests of %d, DecodePage %d of %d", body, key, len(got.Data), got.Total, len(wantPage.Data), wantPage.Total)
		}
		for i := range got.Data {
			if !bytes.Equal(got.Data[i], wantPage.Data[i]) {
				t.Fatalf("%q, key %q: request %d is %q, DecodePage's %q", body, key, i, got.Data[i], wantPage.Data[i])
			}
		}
	}
}

// pageKey is the key of checkAgainstNotTheAPI's keyed client, which some
// seeds of a page hold, in one spelling or another.
const pageKey = "page-key-0123456789"

// TestCheckedPage: ReadPages takes a listing exactly when Do's check of a
// listing does, with the same error when it does not, and the same
// requests, redacted, when it does.
func TestCheckedPage(t *testing.T) {
	seeds := append(slices.Clone(pageSeeds),
		`{"data":[{"uuid":"a","content":"`+pageKey+`"}],"total":1}`,
		`{"data":[{"uuid":"a","content":"\u0070age-key-0123456789","url":"\/x?k=`+strings.ToUpper(pageKey)+`"}],"total":1}`,
		`{"data":[{"uuid":"`+pageKey+`"}],"error":"`+pageKey+`"}`,
		`{"data":[{"id":"`+pageKey+`"}]}`,
		`<html><title>`+pageKey+`</title></html>`,
		`{"data":[{"uuid":"a"}] `+pageKey,
	)
	for _, seed := range seeds {
		for _, contentType := range []string{"application/json", "text/html"} {
			checkAgainstNotTheAPI(t, []byte(seed), contentType)
		}
	}
}

func FuzzCheckedPage(f *testing.F) {
	for _, seed := range pageSeeds {
		f.Add([]byte(seed))
	}
	f.Add([]byte(`{"data":[{"uuid":"a","content":"` + pageKey + `"}],"total":1}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		checkAgainstNotTheAPI(t, body, "application/json")
	})
}

// TestSplitArray: a valid array splits into the values decoding it gives.
func TestSplitArray(t *testing.T) {
	for _, array := range []string{`[]`, `[ ]`, `[1]`, "[ 1 , {\"a\" : [2, \"]\"]} ,\n\"x\\\"\" , null,true,-1.5e3 ]", `[[],{},""]`} {
		var want []json.RawMessage
		if err := json.Unmarshal([]byte(array), &want); err != nil {
			t.Fatal(err)
		}
		got := splitArray([]byte(array))
		if len(got) != len(want) {
			t.Fatalf("splitArray(%s) = %q, want %q", array, got, want)
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("splitArray(%s)[%d] = %s, want %s", array, i, got[i], want[i])
			}
		}
	}
}

func TestPagesOf(t *testing.T) {
	for _, tc := range []struct{ total, perPage, want int }{
		{0, 100, 0}, {1, 100, 1}, {100, 100, 1}, {101, 100, 2}, {10000, 100, 100}, {-5, 100, 0}, {5, 0, 0},
		{int(^uint(0) >> 1), 100, int(^uint(0)>>1)/100 + 1},
	} {
		if got := pagesOf(tc.total, tc.perPage); got != tc.want {
			t.Errorf("pagesOf(%d, %d) = %d, want %d", tc.total, tc.perPage, got, tc.want)
		}
	}
}

// FuzzUUIDMember holds uuidMember to hasUUID where it says yes, on any
// valid JSON: a yes that hasUUID would not give takes a page Do's check
// refuses.
func FuzzUUIDMember(f *testing.F) {
	for _, seed := range []string{
		`{"uuid":"a"}`, `{"UUID":"a"}`, `{"uuid":""}`, `{"uuid":null}`, `{"uuid":1,"uuid":"a"}`, `{"uuid":"a","Uuid":null}`,
		`{"uu\u0069d":"a"}`, "{\"uu\u0130d\":\"\",\"uuid\":\"a\"}", `{"uuid":"a","uuİd":""}`, `{ "a" : [1,{"uuid":""}], "uuid" : "\u0000" }`,
		`{"uuid":{"x":1}}`, `[{"uuid":"a"}]`, `"uuid"`, `null`, `{"a":"}","uuid":"b\""}`, `{"uuid":"a","b":true,"c":-1.5e3}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, item []byte) {
		if !json.Valid(item) {
			return
		}
		if got, want := uuidMember(item), hasUUID(item); got && !want {
			t.Fatalf("uuidMember(%q) = true, hasUUID false", item)
		}
	})
}

// TestUUIDMember: the requests the API sends are taken at once.
func TestUUIDMember(t *testing.T) {
	for item, want := range map[string]bool{
		`{"uuid":"9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d","content":"{\"a\":\"}\"}","headers":{"x":["y"]},"query":null,"size":3}`: true,
		` { "content" : "" , "uuid" : "x" } `: true,
		`{"UUID":"x"}`:                        true,
		`{"uuid":"x","uuid":null}`:            false,
		`{"uuid":""}`:                         false,
		`{"id":"x"}`:                          false,
		`{"uuid":1,"uuid":"x"}`:               false,
	} {
		if got := uuidMember([]byte(item)); got != want {
			t.Errorf("uuidMember(%s) = %v, want %v", item, got, want)
		}
	}
}
