package tools

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

// listings counts the listings of a token's requests the fake received
// with per_page n.
func listings(received []fakehooksvc.Received, perPage string) int {
	n := 0
	for _, r := range received {
		if strings.HasSuffix(r.Path, "/requests") && r.Query.Get("per_page") == perPage {
			n++
		}
	}
	return n
}

// awaitListings waits until the fake has served n listings of per_page.
func (h *harness) awaitListings(t *testing.T, perPage string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.fake.Await(ctx, func(r []fakehooksvc.Received) bool { return listings(r, perPage) >= n }); err != nil {
		t.Fatalf("waiting for %d listings of per_page %s: %v", n, perPage, err)
	}
}

// startWait calls wait_for_request in the background and returns where its
// result will arrive.
func (h *harness) startWait(t *testing.T, ctx context.Context, args map[string]any) <-chan *mcp.CallToolResult {
	t.Helper()
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := h.session.CallTool(ctx, &mcp.CallToolParams{Name: "wait_for_request", Arguments: args})
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "protocol error: " + err.Error()}}}
		}
		done <- res
	}()
	return done
}

// TestWaitForRequestWoken: a request captured a second after the call
// starts is returned within 2 s of its capture; one captured before the
// call is not.
func TestWaitForRequestWoken(t *testing.T) {
	t.Parallel()
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "before the call")
	h.fake.Reset()
	done := h.startWait(t, context.Background(), map[string]any{"token_id": id, "timeout_seconds": 30})
	h.awaitListings(t, "1", 1) // the boundary is read: the call has started
	time.Sleep(time.Second)    // the scenario: the sender fires a second later
	captured := time.Now()
	h.capture(t, id, "POST", "application/json", `{"event":"paid"}`)
	res := <-done
	elapsed := time.Since(captured)
	if res.IsError {
		t.Fatal(mcptest.Text(res))
	}
	out := mcptest.Structured(t, res)
	if out["body"] != `{"event":"paid"}` || out["captured"] != true || out["content_type"] != "application/json" {
		t.Errorf("structured: %v", out)
	}
	if elapsed > 2*time.Second {
		t.Errorf("the result came %s after the capture, want within 2 s", elapsed)
	}
	contains(t, mcptest.Text(res), "New request "+out["request_id"].(string)+": POST")
	for _, r := range h.fake.Received() {
		if strings.HasSuffix(r.Path, "/requests") && r.Query.Get("per_page") == "10" && r.Query.Get("sorting") != "newest" {
			t.Errorf("a poll listed %v, want the newest first", r.Query)
		}
	}
}

// TestWaitForRequestQuery: only a matching request ends the wait, and with
// several new ones the first captured is returned.
func TestWaitForRequestQuery(t *testing.T) {
	t.Parallel()
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	done := h.startWait(t, context.Background(), map[string]any{"token_id": id, "query": "method:PUT", "timeout_seconds": 30})
	h.awaitListings(t, "1", 2) // the filter probe, then the boundary
	h.capture(t, id, "POST", "text/plain", "not this one")
	h.capture(t, id, "PUT", "text/plain", "first put")
	h.capture(t, id, "PUT", "text/plain", "second put")
	res := <-done
	if out := mcptest.Structured(t, res); res.IsError || out["body"] != "first put" {
		t.Errorf("got %s", mcptest.Text(res))
	}
}

// TestWaitForRequestAfterID: after_request_id returns what came after that
// request, even when it arrived before the call.
func TestWaitForRequestAfterID(t *testing.T) {
	t.Parallel()
	h := connect(t, config.Config{})
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

// TestWaitForRequestNothing: a clean timeout is a result, not an error.
func TestWaitForRequestNothing(t *testing.T) {
	t.Parallel()
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	res := h.call(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 1})
	if res.IsError {
		t.Fatalf("a timeout is not an error: %s", mcptest.Text(res))
	}
	out := mcptest.Structured(t, res)
	if out["captured"] != false || out["waited_seconds"] != 1.0 || out["capture_url"] != h.url+"/"+id {
		t.Errorf("structured: %v", out)
	}
	contains(t, mcptest.Text(res), "No request arrived at token "+id+" within 1 seconds", "Send one to "+h.url+"/"+id)
}

// TestWaitForRequestCancelled: cancelling the call ends the wait at once;
// no listing is sent after it.
func TestWaitForRequestCancelled(t *testing.T) {
	t.Parallel()
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := h.startWait(t, ctx, map[string]any{"token_id": id, "timeout_seconds": 300})
	h.awaitListings(t, "10", 1) // polling
	cancel()
	<-done
	wait, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	if err := h.logs.Await(wait, "wait_for_request stopped: the call was cancelled"); err != nil {
		t.Fatal(err)
	}
	polls := listings(h.fake.Received(), "10")
	// The handler has returned: a listing after this point would come from
	// a wait still running. A running one would poll within 1.25 s.
	quiet, stopQuiet := context.WithTimeout(context.Background(), 2500*time.Millisecond)
	defer stopQuiet()
	if err := h.fake.Await(quiet, func(r []fakehooksvc.Received) bool { return listings(r, "10") > polls }); err == nil {
		t.Errorf("a listing was sent after the cancelled call returned")
	}
}

// TestWaitForRequestRateLimited: 429s slow the polling down instead of
// failing the wait.
func TestWaitForRequestRateLimited(t *testing.T) {
	t.Parallel()
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	done := h.startWait(t, context.Background(), map[string]any{"token_id": id, "timeout_seconds": 60})
	h.awaitListings(t, "1", 1)
	h.fake.Inject(fakehooksvc.Fault{Method: "GET", Status: 429, RetryAfter: "1"})
	h.capture(t, id, "POST", "text/plain", "through the limit")
	res := <-done
	if out := mcptest.Structured(t, res); res.IsError || out["body"] != "through the limit" {
		t.Fatalf("got %s", mcptest.Text(res))
	}
	contains(t, h.logs.String(), "wait_for_request slowing down", "status=429")
}

// TestWaitForRequestProgress: a client that asks for progress hears how
// long the wait has gone on.
func TestWaitForRequestProgress(t *testing.T) {
	t.Parallel()
	var heard atomic.Int32
	var total atomic.Value
	plain := connect(t, config.Config{})
	h := serveWith(t, plain.fake, plain.url, config.Config{}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			heard.Add(1)
			total.Store(req.Params.Total)
		},
	})
	id := h.createToken(t, nil)
	params := &mcp.CallToolParams{Name: "wait_for_request", Arguments: map[string]any{"token_id": id, "timeout_seconds": 3}}
	params.SetProgressToken("wait-1")
	res, err := h.session.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("%v %v", err, res)
	}
	if heard.Load() < 1 || total.Load() != 3.0 {
		t.Errorf("heard %d progress notifications, total %v", heard.Load(), total.Load())
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
