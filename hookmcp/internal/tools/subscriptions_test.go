package tools

import (
	"context"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
)

// updates collects the notifications/resources/updated a client hears.
func updates() (chan string, *mcp.ClientOptions) {
	heard := make(chan string, 16)
	return heard, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
		heard <- req.Params.URI
	}}
}

func quiet(t *testing.T, heard chan string, when string) {
	t.Helper()
	synctest.Wait()
	select {
	case uri := <-heard:
		t.Errorf("%s: heard an update of %s", when, uri)
	default:
	}
}

// The two ways a client subscribes: resources/subscribe (MCP before
// 2026-07-28), and a subscriptions/listen stream (from it on).
const (
	subscribeProtocol = "2025-11-25"
	listenProtocol    = "2026-07-28"
)

func subscribeProtocols() map[string]string {
	return map[string]string{"resources/subscribe": subscribeProtocol, "subscriptions/listen": listenProtocol}
}

// TestResourceSubscriptionPushed: a subscribed client is told of a capture
// the moment the service pushes it; after unsubscribing it is not.
func TestResourceSubscriptionPushed(t *testing.T) {
	for name, protocol := range subscribeProtocols() {
		t.Run(name, func(t *testing.T) { testResourceSubscriptionPushed(t, protocol) })
	}
}

func testResourceSubscriptionPushed(t *testing.T, protocol string) {
	synctest.Test(t, func(t *testing.T) {
		heard, client := updates()
		h := connectLive(t, liveSetup{socket: true, client: client, protocol: protocol})
		id, other := h.token(t), h.token(t)
		uri := requestsURI(id)
		ctx := context.Background()
		if err := h.session.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
		sent := h.sendAt(t, id, "one", 3*time.Second)
		if got := <-heard; got != uri {
			t.Errorf("heard %s, want %s", got, uri)
		}
		if latency := time.Since(<-sent); latency != 0 {
			t.Errorf("told %s after the capture, want at once", latency)
		}
		h.send(t, other, "another token")
		quiet(t, heard, "a capture of a token not subscribed to")
		if err := h.session.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
		// A listen stream ends when the server has taken its
		// cancellation, after Unsubscribe returns.
		synctest.Wait()
		h.send(t, id, "after unsubscribing")
		time.Sleep(time.Minute) // the bubble's clock: past any poll
		quiet(t, heard, "after unsubscribing")
	})
}

// TestResourceSubscriptionPolled: with no socket, a subscribed client is
// told by the poll that follows the capture.
func TestResourceSubscriptionPolled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		heard, client := updates()
		h := connectLive(t, liveSetup{socket: true, fake: fakehooksvc.Options{NoSocket: true}, client: client})
		id := h.token(t)
		h.send(t, id, "before subscribing")
		uri := requestsURI(id)
		if err := h.session.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
		quiet(t, heard, "a request captured before subscribing")
		sent := h.sendAt(t, id, "polled", 2*time.Second)
		if got := <-heard; got != uri {
			t.Errorf("heard %s, want %s", got, uri)
		}
		if latency := time.Since(<-sent); latency != subscriptionPoll-2*time.Second {
			t.Errorf("told %s after the capture, want at the next poll (%s)", latency, subscriptionPoll-2*time.Second)
		}
		time.Sleep(time.Minute)
		quiet(t, heard, "no new capture")
	})
}

// TestResourceSubscriptionEndsWithSession: a session that ends without
// unsubscribing stops the watch: the bubble fails on goroutines left
// behind, and a capture after it notifies no one.
func TestResourceSubscriptionEndsWithSession(t *testing.T) {
	for name, protocol := range subscribeProtocols() {
		t.Run(name, func(t *testing.T) { testResourceSubscriptionEndsWithSession(t, protocol) })
	}
}

func testResourceSubscriptionEndsWithSession(t *testing.T, protocol string) {
	synctest.Test(t, func(t *testing.T) {
		heard, client := updates()
		h := connectLive(t, liveSetup{socket: true, client: client, protocol: protocol})
		id := h.token(t)
		if err := h.session.Subscribe(context.Background(), &mcp.SubscribeParams{URI: requestsURI(id)}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		h.session.Close()
		synctest.Wait()
		if h.fake.Listened("private-token." + id) {
			t.Errorf("the socket subscription outlived the session")
		}
		h.send(t, id, "after the session")
		quiet(t, heard, "after the session ended")
	})
}

// TestResourceSubscriptionRefusals: resources/subscribe answers its
// refusals (a subscriptions/listen stream ends with them, which the SDK's
// client does not report).
func TestResourceSubscriptionRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := connectLive(t, liveSetup{live: LiveOptions{MaxSubscriptions: 1}, protocol: subscribeProtocol})
		ctx := context.Background()
		for uri, want := range map[string]string{
			"hooksvc://token/my-alias/requests": "subscribing to hooksvc://token/my-alias/requests: token_id must be a token UUID",
			"https://example.com/":              "only hooksvc://token/{token_id}/requests can be subscribed to",
		} {
			if err := h.session.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("subscribe %s: %v, want %q", uri, err, want)
			}
		}
		first := requestsURI(h.token(t))
		if err := h.session.Subscribe(ctx, &mcp.SubscribeParams{URI: first}); err != nil {
			t.Fatal(err)
		}
		if err := h.session.Subscribe(ctx, &mcp.SubscribeParams{URI: first}); err != nil {
			t.Errorf("subscribing twice: %v", err)
		}
		err := h.session.Subscribe(ctx, &mcp.SubscribeParams{URI: requestsURI(h.token(t))})
		if err == nil || !strings.Contains(err.Error(), "this server holds its most resource subscriptions (1); unsubscribe from one first") {
			t.Errorf("past the bound: %v", err)
		}
	})
}

// TestResourceSubscriptionPastedToken: a URI that names the token as a
// user pastes it subscribes as the resource reads it, and is notified
// under the URI it subscribed with.
func TestResourceSubscriptionPastedToken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		heard, client := updates()
		h := connectLive(t, liveSetup{socket: true, client: client, protocol: subscribeProtocol})
		id := h.token(t)
		uris := map[string]bool{
			"hooksvc://token/" + strings.ToUpper(id) + "/requests":                          true,
			"hooksvc://token/" + url.PathEscape(id+"@emailhook.site") + "/requests":         true,
			"hooksvc://token/" + url.PathEscape("http://hooks.test/"+id+"/x") + "/requests": true,
		}
		for uri := range uris {
			if err := h.session.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}); err != nil {
				t.Fatalf("subscribe %s: %v", uri, err)
			}
		}
		h.send(t, id, "for all three")
		for range uris {
			if uri := <-heard; !uris[uri] {
				t.Errorf("heard an update of %s, want one of %v", uri, uris)
			}
		}
	})
}

// TestResourceSubscriptionCaptureRightAfter: a request captured the moment
// resources/subscribe returns (the protocol whose subscribe is answered)
// notifies, whether the push is not there
// (the baseline was read before the subscribe returned, so the poll sees
// it as new) or still connecting (once live, the watch polls to catch up).
func TestResourceSubscriptionCaptureRightAfter(t *testing.T) {
	for name, setup := range map[string]liveSetup{
		"no socket":  {socket: true, fake: fakehooksvc.Options{NoSocket: true}, protocol: subscribeProtocol},
		"socket":     {socket: true, protocol: subscribeProtocol},
		"socket off": {protocol: subscribeProtocol},
	} {
		t.Run(name, func(t *testing.T) {
			for range 5 {
				synctest.Test(t, func(t *testing.T) {
					var heard atomic.Int64
					setup.client = &mcp.ClientOptions{ResourceUpdatedHandler: func(context.Context, *mcp.ResourceUpdatedNotificationRequest) { heard.Add(1) }}
					h := connectLive(t, setup)
					id := h.token(t)
					h.send(t, id, "before subscribing")
					if err := h.session.Subscribe(context.Background(), &mcp.SubscribeParams{URI: requestsURI(id)}); err != nil {
						t.Fatal(err)
					}
					h.send(t, id, "right after subscribing")
					time.Sleep(time.Minute) // the bubble's clock: past any poll
					synctest.Wait()
					// Two when the catch-up poll and the push both saw it: a
					// notification only says "read again".
					if n := heard.Load(); n < 1 || n > 2 {
						t.Errorf("a capture right after subscribing gave %d notifications, want 1 (or 2)", n)
					}
					h.session.Unsubscribe(context.Background(), &mcp.UnsubscribeParams{URI: requestsURI(id)})
				})
			}
		})
	}
}

// TestResourceSubscriptionCoalesced: a flood of captures (anyone with the
// capture URL can send one) is told once at once and once more a second
// later, not once per capture.
func TestResourceSubscriptionCoalesced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		heard := make(chan time.Time, 200)
		client := &mcp.ClientOptions{ResourceUpdatedHandler: func(context.Context, *mcp.ResourceUpdatedNotificationRequest) { heard <- time.Now() }}
		h := connectLive(t, liveSetup{socket: true, client: client})
		id := h.token(t)
		if err := h.session.Subscribe(context.Background(), &mcp.SubscribeParams{URI: requestsURI(id)}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second) // the bubble's clock: the socket is live
		start := time.Now()
		for range 100 {
			h.send(t, id, "flood")
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		close(heard)
		var at []time.Duration
		for when := range heard {
			at = append(at, when.Sub(start))
		}
		if len(at) != 2 || at[0] != 0 || at[1] != notifyEvery {
			t.Errorf("100 captures at once were told at %v; want at once and once more %s later", at, notifyEvery)
		}
	})
}

// TestResourceSubscriptionBoundAtOnce: resources/subscribe calls made at
// once cannot pass MaxSubscriptions between its check and the insertion.
func TestResourceSubscriptionBoundAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := connectLive(t, liveSetup{socket: true, live: LiveOptions{MaxSubscriptions: 1}, protocol: subscribeProtocol})
		var ids []string
		for range 8 {
			ids = append(ids, h.token(t))
		}
		var ok atomic.Int64
		done := make(chan struct{})
		for _, id := range ids {
			go func() {
				defer func() { done <- struct{}{} }()
				if h.session.Subscribe(context.Background(), &mcp.SubscribeParams{URI: requestsURI(id)}) == nil {
					ok.Add(1)
				}
			}()
		}
		for range ids {
			<-done
		}
		if n := ok.Load(); n != 1 {
			t.Errorf("%d of 8 subscriptions made at once were accepted with MaxSubscriptions 1; want 1", n)
		}
		for _, id := range ids {
			h.session.Unsubscribe(context.Background(), &mcp.UnsubscribeParams{URI: requestsURI(id)})
		}
	})
}

// TestSubscribedKeyNotLogged: a subscribed URI that holds the API key (a
// pasted capture URL with the key in its query) reaches the go-sdk, which
// logs it at debug level on subscribe and on every notification; the key
// is in no log line.
func TestSubscribedKeyNotLogged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := connectLive(t, liveSetup{socket: true, key: envKey, protocol: "2025-11-25"})
		id := h.token(t)
		pasted := "http://hooks.test/" + id + "/x?api_key=" + envKey
		uri := "hooksvc://token/" + url.PathEscape(pasted) + "/requests"
		if err := h.session.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		h.send(t, id, "one")
		synctest.Wait()
		logs := h.logs.String()
		if !strings.Contains(logs, "subscribed") {
			t.Fatalf("no subscription was logged at debug level, so this test shows nothing: %s", logs)
		}
		for _, line := range strings.Split(logs, "\n") {
			if strings.Contains(strings.ToLower(line), strings.ToLower(envKey)) {
				t.Errorf("the API key is in a log line: %s", line)
			}
		}
		h.session.Unsubscribe(context.Background(), &mcp.UnsubscribeParams{URI: uri})
	})
}
