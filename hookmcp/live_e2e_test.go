package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

// The built binary's live updates, against the fake's socket on loopback:
// the default socket URL of a local API is its own origin.

// liveClient connects over transport, with a handler that hears resource
// updates.
func liveClient(t *testing.T, transport mcp.Transport, protocol string) (*mcp.ClientSession, <-chan string) {
	t.Helper()
	heard := make(chan string, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { heard <- req.Params.URI },
	})
	session, err := client.Connect(context.Background(), transport, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	return session, heard
}

// pushedWait creates a token, subscribes to its requests, starts a wait,
// captures one request once the fake's socket has the subscription, and
// checks that the wait was woken by the push; it returns the token's
// resource URI and the fake.
func pushedWait(t *testing.T, session *mcp.ClientSession, fake *fakehooksvc.Server, captureBase string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a safety net
	defer cancel()
	created := mcptest.Structured(t, mcptest.Call(t, ctx, session, "create_token", map[string]any{}))
	id := created["token"].(map[string]any)["uuid"].(string)
	uri := "hooksvc://token/" + id + "/requests"
	if err := session.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	// The subscription is on the fake's socket before the wait begins, so
	// the wait finds the socket live from its first poll: one that comes
	// up during the wait makes it poll at once, and that poll could find
	// the capture before its push does.
	if err := fake.AwaitListened(ctx, "private-token."+id); err != nil {
		t.Fatalf("hookmcp never subscribed to the token's socket channel: %v", err)
	}
	outcome := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "wait_for_request", Arguments: map[string]any{"token_id": id, "timeout_seconds": 25}})
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
		}
		outcome <- res
	}()
	// The wait has polled once (the fake answers a listing whole under
	// its lock): a capture now is after that poll, and pushed.
	err := fake.Await(ctx, func(received []fakehooksvc.Received) bool {
		for _, r := range received {
			if r.Path == "/token/"+id+"/requests" && strings.Contains(r.Query.Get("query"), "sorting:>") {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("the wait never polled: %v", err)
	}
	resp, err := http.Post(captureBase+"/"+id, "text/plain", strings.NewReader("live"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	res := <-outcome
	out := mcptest.Structured(t, res)
	if res.IsError || out["body"] != "live" || !strings.Contains(out["note"].(string), "Woken by the service's push (live socket).") {
		t.Errorf("wait_for_request: %s", mcptest.Text(res))
	}
	return uri
}

func awaitUpdate(t *testing.T, heard <-chan string, uri string) {
	t.Helper()
	select {
	case got := <-heard:
		if got != uri {
			t.Errorf("heard an update of %s, want %s", got, uri)
		}
	case <-time.After(20 * time.Second):
		t.Errorf("no notifications/resources/updated for %s", uri)
	}
}

// TestLiveStdio: over stdio, the wait is woken by the push and a
// subscribed client is told of the capture, with either way of
// subscribing.
func TestLiveStdio(t *testing.T) {
	for _, protocol := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(protocol, func(t *testing.T) {
			fake := fakehooksvc.New(fakehooksvc.Options{})
			srv := httptest.NewServer(fake)
			t.Cleanup(srv.Close)
			cmd := exec.Command(binary, "--api-url", srv.URL)
			session, heard := liveClient(t, &mcp.CommandTransport{Command: cmd}, protocol)
			uri := pushedWait(t, session, fake, srv.URL)
			awaitUpdate(t, heard, uri)
		})
	}
}

// TestLiveHTTP: over Streamable HTTP, which this server serves stateless,
// the wait is woken by the push; a subscriptions/listen stream (MCP
// 2026-07-28) is told of captures for as long as it is open. A
// resources/subscribe of an older client would end with its request's
// session, so it is refused with what works instead.
func TestLiveHTTP(t *testing.T) {
	fake := fakehooksvc.New(fakehooksvc.Options{})
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	log := &mcptest.SyncBuffer{}
	cmd := exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "--api-url", srv.URL)
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := log.Await(ctx, "serving MCP over Streamable HTTP"); err != nil {
		t.Fatalf("%v; the log:\n%s", err, log.String())
	}
	endpoint := regexp.MustCompile(`url=(http://\S+)`).FindStringSubmatch(log.String())[1]
	session, heard := liveClient(t, &mcp.StreamableClientTransport{Endpoint: endpoint}, "2026-07-28")
	uri := pushedWait(t, session, fake, srv.URL)
	awaitUpdate(t, heard, uri)

	legacy, _ := liveClient(t, &mcp.StreamableClientTransport{Endpoint: endpoint}, "2025-11-25")
	err := legacy.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
	if err == nil || !strings.Contains(err.Error(), "this server's HTTP transport is stateless, so a resources/subscribe has no session left to notify; open a subscriptions/listen stream") {
		t.Errorf("resources/subscribe over HTTP: %v, want the refusal that says what works", err)
	}
}
