package tools

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

// clock is the virtual time of a wait test, shared by the server and the
// fake (whose sorting cursor follows it). A pause moves it on at once,
// after onPause, which plays what happens meanwhile.
type clock struct {
	mu      sync.Mutex
	now     time.Time
	pauses  []time.Duration
	onPause func(ctx context.Context, n int) // n counts pauses from 1
}

func newClock() *clock {
	return &clock{now: time.Date(2026, 11, 26, 3, 0, 0, 0, time.UTC)}
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func (c *clock) Pause(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.pauses = append(c.pauses, d)
	n, hook := len(c.pauses), c.onPause
	c.mu.Unlock()
	if hook != nil {
		hook(ctx, n)
	}
	c.advance(d)
	return ctx.Err()
}

// send is a sender firing at the capture URL from another goroutine than
// the test's (a pause hook, a transport): a failure is reported, not fatal.
func (h *harness) send(t *testing.T, id, method, body string) {
	req, err := http.NewRequest(method, h.url+"/"+id, strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return
	}
	req.Header.Set("Content-Type", "text/plain")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("the sender: %v", err)
		return
	}
	resp.Body.Close()
}

func (c *clock) paused() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.pauses...)
}

// connectClock is connectFake on a virtual clock. wrap, when set, wraps
// the server's outbound transport.
func connectClock(t *testing.T, opts fakehooksvc.Options, c *clock, wrap func(http.RoundTripper) http.RoundTripper, client *mcp.ClientOptions) *harness {
	t.Helper()
	opts.APIKeys = []string{envKey, callKey}
	opts.Now = c.Now
	fake := fakehooksvc.New(opts)
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	apiURL, _ := url.Parse(srv.URL)
	h := &harness{fake: fake, url: srv.URL, logs: &mcptest.SyncBuffer{}}
	httpClient := NewHTTPClient("hookmcp-test")
	if wrap != nil {
		httpClient.Transport = wrap(httpClient.Transport)
	}
	server := NewServer(Options{
		Config:  config.Config{APIURL: apiURL, Timeout: 5 * time.Second},
		HTTP:    httpClient,
		Logger:  slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Version: "test",
		Sleep:   func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
		Now:     c.Now,
		Pause:   c.Pause,
	})
	h.session = mcptest.ConnectWith(t, server, client)
	return h
}

// TestWaitForRequestWoken: wait first, trigger second. The request the
// sender fires during the wait is returned after the poll that follows;
// the one the assistant had already seen is not.
func TestWaitForRequestWoken(t *testing.T) {
	t.Parallel()
	c := newClock()
	h := connectClock(t, fakehooksvc.Options{}, c, nil, nil)
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "seen before the call")
	h.ok(t, "get_latest_request", map[string]any{"token_id": id})
	c.onPause = func(_ context.Context, n int) {
		if n == 1 { // the sender fires during the first pause
			h.send(t, id, "POST", `{"event":"paid"}`)
		}
	}
	res := h.call(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 30})
	if res.IsError {
		t.Fatal(mcptest.Text(res))
	}
	out := mcptest.Structured(t, res)
	if out["body"] != `{"event":"paid"}` || out["captured"] != true || out["content_type"] != "text/plain" || out["waited_seconds"] != 1.0 {
		t.Errorf("structured: %v", out)
	}
	contains(t, mcptest.Text(res), "New request "+out["request_id"].(string)+": a web request captured at ", `"method":"POST"`)
	if got := c.paused(); len(got) != 1 || got[0] != firstPollInterval {
		t.Errorf("paused %v, want one pause of %s", got, firstPollInterval)
	}
}

// TestWaitForRequestTriggerFirst: send_test_request, then
// wait_for_request: the request sent is returned at once, without a
// pause (the one before it was shown), and a second wait does not return
// it again.
func TestWaitForRequestTriggerFirst(t *testing.T) {
	t.Parallel()
	c := newClock()
	h := connectClock(t, fakehooksvc.Options{}, c, nil, nil)
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "an older one")
	h.ok(t, "get_latest_request", map[string]any{"token_id": id})
	sent := h.ok(t, "send_test_request", map[string]any{"token_id": id, "body": "the test"})
	out := h.ok(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 30})
	if out["request_id"] != sent["request_id"] || out["body"] != "the test" || out["waited_seconds"] != nil {
		t.Errorf("got %v, want request %v at once", out, sent["request_id"])
	}
	if got := c.paused(); len(got) != 0 {
		t.Errorf("paused %v, want none", got)
	}
	again := h.ok(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 2})
	if again["captured"] != false {
		t.Errorf("the request already returned came back: %v", again)
	}
	// Unless asked: after_request_id keeps its meaning.
	older := h.ok(t, "list_requests", map[string]any{"token_id": id, "sorting": "oldest", "per_page": 1})["data"].([]any)[0].(map[string]any)["uuid"]
	if out := h.ok(t, "wait_for_request", map[string]any{"token_id": id, "after_request_id": older, "timeout_seconds": 1}); out["body"] != "the test" {
		t.Errorf("after_request_id %v: got %v", older, out["body"])
	}
}

// TestWaitForRequestWindow: a request fired before the first call of the
// server for the token is returned at once up to since_seconds later, and
// not after.
func TestWaitForRequestWindow(t *testing.T) {
	t.Parallel()
	c := newClock()
	h := connectClock(t, fakehooksvc.Options{}, c, nil, nil)
	early, late, zero := h.createToken(t, nil), h.createToken(t, nil), h.createToken(t, nil)
	for _, id := range []string{early, late, zero} {
		h.capture(t, id, "POST", "text/plain", "fired first")
	}
	c.advance(119 * time.Second)
	if out := h.ok(t, "wait_for_request", map[string]any{"token_id": early, "timeout_seconds": 5}); out["body"] != "fired first" || out["waited_seconds"] != nil {
		t.Errorf("119 s later, within the default window: %v", out)
	}
	if out := h.ok(t, "wait_for_request", map[string]any{"token_id": zero, "since_seconds": 0, "timeout_seconds": 1}); out["captured"] != false {
		t.Errorf("since_seconds 0: %v", out)
	}
	c.advance(2 * time.Second)
	if out := h.ok(t, "wait_for_request", map[string]any{"token_id": late, "timeout_seconds": 1}); out["captured"] != false {
		t.Errorf("121 s later, past the default window: %v", out)
	}
	if out := h.ok(t, "wait_for_request", map[string]any{"token_id": late, "since_seconds": 3600, "timeout_seconds": 1}); out["body"] != "fired first" {
		t.Errorf("since_seconds 3600: %v", out)
	}
	contains(t, h.failure(t, "wait_for_request", map[string]any{"token_id": late, "since_seconds": 3601}), "since_seconds must be a whole number from 0 to 3600")
}

// TestWaitForRequestAfterListing: what list_requests showed counts as
// seen; the wait returns the first request after it.
func TestWaitForRequestAfterListing(t *testing.T) {
	t.Parallel()
	c := newClock()
	h := connectClock(t, fakehooksvc.Options{}, c, nil, nil)
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "one")
	h.capture(t, id, "POST", "text/plain", "two")
	h.ok(t, "list_requests", map[string]any{"token_id": id})
	h.capture(t, id, "POST", "text/plain", "three")
	h.capture(t, id, "POST", "text/plain", "four")
	if got := h.waitBody(t, id); got != "three" {
		t.Errorf("got %v, want the first request after the listing", got)
	}
	if got := h.waitBody(t, id); got != "four" {
		t.Errorf("got %v, want the next one", got)
	}
}

// TestWaitForRequestOpenSource: a server that ignores the cursor filter
// (the open-source one) is read newest first down to the cursor.
func TestWaitForRequestOpenSource(t *testing.T) {
	t.Parallel()
	c := newClock()
	h := connectClock(t, fakehooksvc.Options{OpenSource: true}, c, nil, nil)
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "seen")
	h.ok(t, "get_latest_request", map[string]any{"token_id": id})
	for _, body := range []string{"next", "after next"} {
		h.capture(t, id, "POST", "text/plain", body)
	}
	if got := h.waitBody(t, id); got != "next" {
		t.Errorf("got %v, want the first request after the one seen", got)
	}
	if got := h.waitBody(t, id); got != "after next" {
		t.Errorf("got %v, want the next one", got)
	}
}

// TestWaitForRequestQuery: only a matching request ends the wait, and with
// several new ones the first captured is returned; the cursor is sent as
// the service's own sorting filter.
func TestWaitForRequestQuery(t *testing.T) {
	t.Parallel()
	c := newClock()
	h := connectClock(t, fakehooksvc.Options{}, c, nil, nil)
	id := h.createToken(t, nil)
	c.onPause = func(_ context.Context, n int) {
		if n == 1 {
			h.send(t, id, "POST", "not this one")
			h.send(t, id, "PUT", "first put")
			h.send(t, id, "PUT", "second put")
		}
	}
	h.fake.Reset()
	res := h.call(t, "wait_for_request", map[string]any{"token_id": id, "query": "method:PUT", "timeout_seconds": 30})
	if out := mcptest.Structured(t, res); res.IsError || out["body"] != "first put" {
		t.Errorf("got %s", mcptest.Text(res))
	}
	cursor := c.Now().Add(-time.Second - 120*time.Second).UnixMicro()
	want := "sorting:>" + itoa(cursor) + " AND (method:PUT)"
	polled := false
	for _, r := range h.fake.Received() {
		if strings.HasSuffix(r.Path, "/requests") && r.Query.Get("sorting") == "oldest" {
			polled = true
			if r.Query.Get("query") != want {
				t.Errorf("a poll asked for %q, want %q", r.Query.Get("query"), want)
			}
		}
	}
	if !polled {
		t.Error("no poll listed the requests oldest first after the cursor")
	}
}

// TestWaitForRequestAfterID: after_request_id returns what came after that
// request, even when it arrived before the call.
func TestWaitForRequestAfterID(t *testing.T) {
	t.Parallel()
	c := newClock()
	h := connectClock(t, fakehooksvc.Options{}, c, nil, nil)
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "seen")
	seen := h.ok(t, "get_latest_request", map[string]any{"token_id": id})["request_id"]
	h.capture(t, id, "POST", "text/plain", "next")
	h.capture(t, id, "POST", "text/plain", "after next")
	out := h.ok(t, "wait_for_request", map[string]any{"token_id": id, "after_request_id": seen, "timeout_seconds": 5})
	if out["body"] != "next" {
		t.Errorf("got %v, want the request right after %v", out["body"], seen)
	}
}

// TestWaitForRequestNothing: a clean timeout is a result, not an error;
// the pauses add up to the limit, the last poll falling on it.
func TestWaitForRequestNothing(t *testing.T) {
	t.Parallel()
	c := newClock()
	h := connectClock(t, fakehooksvc.Options{}, c, nil, nil)
	id := h.createToken(t, nil)
	res := h.call(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 3})
	if res.IsError {
		t.Fatalf("a timeout is not an error: %s", mcptest.Text(res))
	}
	out := mcptest.Structured(t, res)
	if out["captured"] != false || out["waited_seconds"] != 3.0 || out["capture_url"] != h.url+"/"+id {
		t.Errorf("structured: %v", out)
	}
	contains(t, mcptest.Text(res), "No request arrived at token "+id+" within 3 seconds", "Send one to "+h.url+"/"+id)
	var total time.Duration
	for _, d := range c.paused() {
		total += d
	}
	if total != 3*time.Second {
		t.Errorf("paused %v in all (%v), want the 3 s limit", total, c.paused())
	}
}

// TestWaitForRequestCancelled: cancelling the call ends the wait at once.
func TestWaitForRequestCancelled(t *testing.T) {
	t.Parallel()
	c := newClock()
	h := connectClock(t, fakehooksvc.Options{}, c, nil, nil)
	id := h.createToken(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	pausing := make(chan struct{}, 1)
	c.onPause = func(ctx context.Context, _ int) {
		pausing <- struct{}{}
		<-ctx.Done() // a long pause, ended only by the cancel
	}
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := h.session.CallTool(ctx, &mcp.CallToolParams{Name: "wait_for_request", Arguments: map[string]any{"token_id": id, "timeout_seconds": 300}})
		if err != nil {
			res = &mcp.CallToolResult{IsError: true}
		}
		done <- res
	}()
	<-pausing
	cancel()
	<-done
	wait, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	if err := h.logs.Await(wait, "wait_for_request stopped: the call was cancelled"); err != nil {
		t.Fatal(err)
	}
	if got := c.paused(); len(got) != 1 {
		t.Errorf("paused %v, want the one pause the cancel ended", got)
	}
}

// TestWaitForRequestRateLimited: a 429 slows the polling down (at least
// its Retry-After) instead of failing the wait.
func TestWaitForRequestRateLimited(t *testing.T) {
	t.Parallel()
	c := newClock()
	h := connectClock(t, fakehooksvc.Options{}, c, nil, nil)
	id := h.createToken(t, nil)
	h.fake.Inject(fakehooksvc.Fault{Method: "GET", Status: 429, RetryAfter: "7"})
	c.onPause = func(_ context.Context, n int) {
		if n == 1 {
			h.send(t, id, "POST", "through the limit")
		}
	}
	res := h.call(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 60})
	if out := mcptest.Structured(t, res); res.IsError || out["body"] != "through the limit" {
		t.Fatalf("got %s", mcptest.Text(res))
	}
	if got := c.paused(); len(got) != 1 || got[0] != 7*time.Second {
		t.Errorf("paused %v, want 7 s as Retry-After asked", got)
	}
	contains(t, h.logs.String(), "wait_for_request slowing down", "status=429")
}

// TestWaitForRequestProgress: a client that asks for progress hears how
// long the wait has gone on, in the wait's own time.
func TestWaitForRequestProgress(t *testing.T) {
	t.Parallel()
	// The client takes notifications apart from results, so the
	// notifications sent before the result may be heard after it.
	progress := make(chan *mcp.ProgressNotificationParams, 16)
	c := newClock()
	h := connectClock(t, fakehooksvc.Options{}, c, nil, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress <- req.Params
		},
	})
	id := h.createToken(t, nil)
	params := &mcp.CallToolParams{Name: "wait_for_request", Arguments: map[string]any{"token_id": id, "timeout_seconds": 3}}
	params.SetProgressToken("wait-1")
	res, err := h.session.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("%v %v", err, res)
	}
	for i, want := range []float64{0, 1} {
		select {
		case p := <-progress:
			if p.Progress != want || p.Total != 3 {
				t.Errorf("progress %d: %v of %v, want %v of 3", i, p.Progress, p.Total, want)
			}
		case <-time.After(10 * time.Second): // a safety net: the notification was sent before the result
			t.Fatalf("progress %d never heard; want 0, 1, ... of 3", i)
		}
	}
}

// TestWaitForRequestIgnoredQuery: a server that ignores filters cannot
// wait for a match: refused before waiting.
func TestWaitForRequestIgnoredQuery(t *testing.T) {
	t.Parallel()
	h := connectFake(t, fakehooksvc.Options{OpenSource: true}, config.Config{})
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "any")
	contains(t, h.failure(t, "wait_for_request", map[string]any{"token_id": id, "query": "method:PUT"}),
		"does not apply query filters", "call it without query")
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestWaitForRequestLastPoll: a request captured during the last pause
// is returned by a poll at the limit, not reported as none.
func TestWaitForRequestLastPoll(t *testing.T) {
	t.Parallel()
	c := newClock()
	h := connectClock(t, fakehooksvc.Options{}, c, nil, nil)
	id := h.createToken(t, nil)
	var pauses atomic.Int32
	c.onPause = func(_ context.Context, n int) {
		pauses.Store(int32(n))
		if n == 3 {
			h.send(t, id, "POST", "late")
		}
	}
	out := h.ok(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 3})
	if out["captured"] != true || out["body"] != "late" {
		t.Errorf("a request captured in the last pause of a 3 s wait: %v", out)
	}
	var total time.Duration
	for _, d := range c.paused() {
		total += d
	}
	if total != 3*time.Second || pauses.Load() != 3 {
		t.Errorf("paused %v, want 3 pauses ending at the limit", c.paused())
	}
}

// TestWaitForRequestClockOnly: on an injected clock the limit is the
// clock's alone, so an API answering slower than timeout_seconds in real
// time (a loaded CI) does not end the wait: no poll's context carries a
// wall-clock deadline as near as the wait's 1 s limit (only the API
// timeout's 5 s), which is what would cut a slow answer short.
func TestWaitForRequestClockOnly(t *testing.T) {
	t.Parallel()
	c := newClock()
	var polls, cut atomic.Int32
	h := connectClock(t, fakehooksvc.Options{}, c, func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if strings.HasPrefix(r.URL.Query().Get("query"), "sorting:>") {
				polls.Add(1)
				if deadline, ok := r.Context().Deadline(); ok && time.Until(deadline) < 3*time.Second {
					cut.Add(1)
				}
			}
			return next.RoundTrip(r)
		})
	}, nil)
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "there")
	if out := h.ok(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 1}); out["body"] != "there" {
		t.Errorf("got %v, want the request captured before the call", out)
	}
	if polls.Load() == 0 || cut.Load() != 0 {
		t.Errorf("%d of %d polls ran under a wall-clock deadline within 3 s; want none on an injected clock", cut.Load(), polls.Load())
	}
}

// TestWaitForRequestQueryLeavesUnshown: a filtered wait shows its match,
// not the requests it passed over: an unfiltered wait after it still
// returns the one the filter left out.
func TestWaitForRequestQueryLeavesUnshown(t *testing.T) {
	t.Parallel()
	c := newClock()
	h := connectClock(t, fakehooksvc.Options{}, c, nil, nil)
	id := h.createToken(t, nil)
	h.capture(t, id, "GET", "text/plain", "unshown get")
	h.capture(t, id, "POST", "text/plain", "post")
	if out := h.ok(t, "wait_for_request", map[string]any{"token_id": id, "query": "method:POST", "timeout_seconds": 1}); out["body"] != "post" {
		t.Errorf("filtered: %v", out)
	}
	if out := h.ok(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 1}); out["body"] != "unshown get" {
		t.Errorf("unfiltered after a filtered wait: got %q (captured %v), want the request the filter left out", out["body"], out["captured"])
	}
}

// TestWaitForRequestOpenSourcePageCap: on a server that ignores the
// cursor filter, more new requests than the walk reads: the oldest read
// is returned, the note says older ones may remain, and the memory does
// not move past them (the same request comes back).
func TestWaitForRequestOpenSourcePageCap(t *testing.T) {
	t.Parallel()
	c := newClock()
	h := connectClock(t, fakehooksvc.Options{OpenSource: true}, c, nil, nil)
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "seen")
	h.ok(t, "get_latest_request", map[string]any{"token_id": id})
	extra := 5
	for i := range maxCatchUpPages*pollPerPage + extra {
		h.capture(t, id, "POST", "text/plain", "n"+strconv.Itoa(i))
	}
	want := "n" + strconv.Itoa(extra)
	for range 2 {
		out := h.ok(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 1})
		if out["body"] != want {
			t.Errorf("got %v, want %s, the oldest read", out["body"], want)
		}
		note, _ := out["note"].(string)
		contains(t, note, "Older requests after the last one shown may remain unread", "list_requests reads them")
	}
}

// TestWaitForRequestNewestFirstAnswer: a service that answers a cursor
// query newest first despite sorting=oldest still gives the oldest new
// request first, and the next one after it.
func TestWaitForRequestNewestFirstAnswer(t *testing.T) {
	t.Parallel()
	c := newClock()
	h := connectClock(t, fakehooksvc.Options{}, c, func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if q := r.URL.Query(); q.Get("query") != "" {
				q.Set("sorting", "newest")
				r.URL.RawQuery = q.Encode()
			}
			return next.RoundTrip(r)
		})
	}, nil)
	id := h.createToken(t, nil)
	c.onPause = func(_ context.Context, n int) {
		if n == 1 {
			h.send(t, id, "POST", "first")
			h.send(t, id, "POST", "second")
		}
	}
	for _, want := range []string{"first", "second"} {
		if out := h.ok(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 5}); out["body"] != want {
			t.Errorf("got %q (captured %v), want %q", out["body"], out["captured"], want)
		}
	}
}

// TestWaitForRequestWallClockLastPoll: on the wall clock, a poll that the
// limit cuts short (the API hangs) is followed by the poll at the limit,
// which returns the request captured meanwhile. Real time is what is under
// test here: the wait lasts its 2 s.
func TestWaitForRequestWallClockLastPoll(t *testing.T) {
	t.Parallel()
	fake := fakehooksvc.New(fakehooksvc.Options{APIKeys: []string{envKey, callKey}})
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	apiURL, _ := url.Parse(srv.URL)
	h := &harness{fake: fake, url: srv.URL, logs: &mcptest.SyncBuffer{}}
	var id string
	var polls atomic.Int32
	httpClient := NewHTTPClient("hookmcp-test")
	next := httpClient.Transport
	httpClient.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if strings.HasPrefix(r.URL.Query().Get("query"), "sorting:>") && polls.Add(1) == 2 {
			h.send(t, id, "POST", "during the cut poll")
			<-r.Context().Done()
			return nil, r.Context().Err()
		}
		return next.RoundTrip(r)
	})
	server := NewServer(Options{
		Config:  config.Config{APIURL: apiURL, Timeout: 30 * time.Second},
		HTTP:    httpClient,
		Logger:  slog.New(slog.NewTextHandler(h.logs, nil)),
		Version: "test",
	})
	h.session = mcptest.ConnectWith(t, server, nil)
	id = h.createToken(t, nil)
	out := h.ok(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 2})
	if out["body"] != "during the cut poll" || polls.Load() != 3 {
		t.Errorf("after %d polls: %v", polls.Load(), out)
	}
}
