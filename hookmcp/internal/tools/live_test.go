package tools

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/hookmcp/internal/socketio"
	"github.com/mcpforge/servers/hookmcp/internal/socketio/pipenet"
	"github.com/mcpforge/servers/shared/mcptest"
)

// liveHarness is a server and the fake, with its socket, on an in-memory
// network inside a synctest bubble: the wait's clock is the bubble's, so
// a push's latency and a poll's pace are measured exactly.
type liveHarness struct {
	session *mcp.ClientSession
	fake    *fakehooksvc.Server
	web     *http.Client // to the fake
	logs    *mcptest.SyncBuffer

	mu      sync.Mutex
	senders []chan struct{} // closed as each scripted sender is answered
}

type liveSetup struct {
	fake   fakehooksvc.Options
	socket bool        // configure a socket URL (else the push is off)
	key    string      // HOOKSVC_API_KEY
	live   LiveOptions // HTTP is filled in
	client *mcp.ClientOptions
	// socketHandler, when set, serves /socket.io/ instead of the fake.
	socketHandler http.Handler
	// protocol, when set, is the MCP version the client asks for: before
	// 2026-07-28 a subscription is resources/subscribe, from it on a
	// subscriptions/listen stream.
	protocol string
}

func connectLive(t *testing.T, s liveSetup) *liveHarness {
	t.Helper()
	// Registered first, run last: the bubble's clock passes the linger,
	// so the socket subscriptions close and their goroutines end (the
	// bubble fails on any left).
	t.Cleanup(func() { time.Sleep(2 * defaultLinger) })
	s.fake.APIKeys = []string{envKey, callKey}
	fake := fakehooksvc.New(s.fake)
	h := &liveHarness{fake: fake, logs: &mcptest.SyncBuffer{}}
	var handler http.Handler = fake
	if s.socketHandler != nil {
		mux := http.NewServeMux()
		mux.Handle("/", fake)
		mux.Handle("/socket.io/", s.socketHandler)
		handler = mux
	}
	l, stop := pipenet.Serve(handler)
	t.Cleanup(stop)
	// Run before stop: a wait woken by the push returns before the fake
	// answers the sender's POST, which the end of the network would cut.
	t.Cleanup(func() {
		h.mu.Lock()
		senders := h.senders
		h.mu.Unlock()
		for _, done := range senders {
			<-done
		}
	})
	cfg := config.Config{APIURL: &url.URL{Scheme: "http", Host: "hooks.test"}, Timeout: 5 * time.Second, APIKey: s.key}
	if s.socket {
		cfg.SocketURL = &url.URL{Scheme: "ws", Host: "hooks.test"}
	}
	httpClient := NewHTTPClient("hookmcp-test")
	httpClient.Transport = l.Client().Transport
	s.live.HTTP = l.Client()
	h.web = l.Client()
	server := NewServer(Options{
		Config: cfg, HTTP: httpClient, Version: "test", Live: s.live,
		Logger: slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if s.protocol == "" {
		h.session = mcptest.ConnectWith(t, server, s.client)
		return h
	}
	ctx := context.Background()
	clientTransport, serverTransport := mcp.NewInMemoryTransports()
	serverSession, err := server.Connect(ctx, serverTransport, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, s.client)
	if h.session, err = client.Connect(ctx, clientTransport, &mcp.ClientSessionOptions{ProtocolVersion: s.protocol}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		h.session.Close()
		serverSession.Wait()
	})
	return h
}

func (h *liveHarness) call(t *testing.T, tool string, args map[string]any) map[string]any {
	t.Helper()
	res := mcptest.Call(t, context.Background(), h.session, tool, args)
	if res.IsError {
		t.Fatalf("%s: %s", tool, mcptest.Text(res))
	}
	return mcptest.Structured(t, res)
}

func (h *liveHarness) token(t *testing.T) string {
	t.Helper()
	return h.call(t, "create_token", nil)["token"].(map[string]any)["uuid"].(string)
}

// send captures a request; safe from any goroutine.
func (h *liveHarness) send(t *testing.T, id, body string) {
	resp, err := h.web.Post("http://hooks.test/"+id, "text/plain", strings.NewReader(body))
	if err != nil {
		t.Errorf("the sender: %v", err)
		return
	}
	resp.Body.Close()
}

// sendAt captures body at the bubble's time at, and reports when it did.
func (h *liveHarness) sendAt(t *testing.T, id, body string, at time.Duration) <-chan time.Time {
	sent, done := make(chan time.Time, 1), make(chan struct{})
	h.mu.Lock()
	h.senders = append(h.senders, done)
	h.mu.Unlock()
	go func() {
		defer close(done)
		time.Sleep(at) // the bubble's clock: a scripted sender, not a wait
		h.send(t, id, body)
		sent <- time.Now()
	}()
	return sent
}

// TestWaitWokenByPush: the service pushes the capture and the wait answers
// at once, not at its next poll; the note says so.
func TestWaitWokenByPush(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := connectLive(t, liveSetup{socket: true})
		id := h.token(t)
		sent := h.sendAt(t, id, "pushed", 2500*time.Millisecond)
		out := h.call(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 30})
		latency := time.Since(<-sent)
		if out["body"] != "pushed" || !strings.Contains(out["note"].(string), "Woken by the service's push (live socket).") {
			t.Errorf("result: %v", out)
		}
		if latency != 0 {
			t.Errorf("answered %s after the capture, want at once", latency)
		}
		// The next wait reuses the open subscription: pushed again.
		sent = h.sendAt(t, id, "again", 42*time.Second)
		out = h.call(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 60})
		if latency := time.Since(<-sent); out["body"] != "again" || latency != 0 || !strings.Contains(out["note"].(string), "Woken by the service's push") {
			t.Errorf("second wait: %v after %s", out, latency)
		}
	})
}

// TestWaitPollsWithoutSocket: where the service runs no socket (404), the
// wait polls at its usual pace and says why.
func TestWaitPollsWithoutSocket(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := connectLive(t, liveSetup{socket: true, fake: fakehooksvc.Options{NoSocket: true}})
		id := h.token(t)
		sent := h.sendAt(t, id, "polled", 2500*time.Millisecond)
		out := h.call(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 30})
		latency := time.Since(<-sent)
		want := "Polled the capture API (socket: cannot open the socket at ws://hooks.test/socket.io/?EIO=3&transport=websocket: it answered HTTP 404)."
		if out["body"] != "polled" || !strings.Contains(out["note"].(string), want) {
			t.Errorf("note %q, want %q", out["note"], want)
		}
		// Polls at 0, 1 s, 2.25 s, 3.8125 s: found 1.3125 s after it landed.
		if latency != 1312500*time.Microsecond {
			t.Errorf("answered %s after the capture, want at the next poll (1.3125s)", latency)
		}
	})
}

// TestWaitPushOff: --socket-url off polls, and says so.
func TestWaitPushOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := connectLive(t, liveSetup{})
		id := h.token(t)
		h.sendAt(t, id, "x", time.Second/2)
		out := h.call(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 5})
		if !strings.Contains(out["note"].(string), "Polled the capture API (socket: off") {
			t.Errorf("note %q", out["note"])
		}
	})
}

// scriptedSocket is a Socket.IO server that answers a subscribe as
// script says: "refuse" with subscription_error, "drop" by closing,
// "drop once" by closing the first connection only (later ones take the
// subscribe and push nothing).
type scriptedSocket struct {
	script string
	mu     sync.Mutex
	dials  int
}

func (s *scriptedSocket) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.dials++
	script := s.script
	if script == "drop once" && s.dials > 1 {
		script = "hold"
	}
	s.mu.Unlock()
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer conn.CloseNow()
	ctx := r.Context()
	conn.Write(ctx, websocket.MessageText, []byte(socketio.EncodeHandshake(socketio.Handshake{SID: "s", PingInterval: 25000, PingTimeout: 5000})))
	conn.Write(ctx, websocket.MessageText, []byte("40"))
	for {
		_, b, err := conn.Read(ctx)
		if err != nil {
			return
		}
		p, _ := socketio.DecodePacket(string(b))
		m, _ := socketio.DecodeMsg(p.Data)
		if m.Event != "subscribe" {
			continue
		}
		var channel struct{ Channel string }
		jsonUnmarshal(m.Args[0], &channel)
		switch script {
		case "refuse":
			frame, _ := socketio.EncodeEvent("subscription_error", channel.Channel, 403)
			conn.Write(ctx, websocket.MessageText, []byte(frame))
		case "drop", "drop once":
			return
		}
	}
}

// TestWaitFallsBack: a refused subscription and a socket that drops both
// leave the wait polling, and the note names the reason.
func TestWaitFallsBack(t *testing.T) {
	for script, want := range map[string]string{
		// The subscribe was sent (live) before the refusal or the drop:
		// the note may say so first.
		"refuse": "the socket server refused the subscription to private-token.",
		"drop":   "socket at ws://hooks.test/socket.io/?EIO=3&transport=websocket dropped",
	} {
		t.Run(script, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := connectLive(t, liveSetup{socket: true, socketHandler: &scriptedSocket{script: script}})
				id := h.token(t)
				sent := h.sendAt(t, id, "fallback", 2500*time.Millisecond)
				out := h.call(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 30})
				if note := out["note"].(string); out["body"] != "fallback" || !strings.HasPrefix(note, "Polled the capture API (socket: ") || !strings.Contains(note, want) {
					t.Errorf("note %q, want %q", out["note"], want)
				}
				if latency := time.Since(<-sent); latency == 0 || latency > maxPollInterval {
					t.Errorf("found %s after the capture, want by a poll", latency)
				}
			})
		})
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// TestWaitNoteSocketDroppedThenLive: a socket that dropped during the wait
// and was live again by its end is told as dropped, not as one that was
// only slow to come up: the drop is why no push came. (The note once read
// only the state at the end, so a socket that drops each time it opens
// was told as connecting or live, by the moment the wait ended in.)
func TestWaitNoteSocketDroppedThenLive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := connectLive(t, liveSetup{socket: true, socketHandler: &scriptedSocket{script: "drop once"}})
		id := h.token(t)
		// Dropped at 0 s, live again at 1 s (the client's backoff), and
		// still live when the safety-net poll at 6 s finds the capture.
		sent := h.sendAt(t, id, "while live again", 2500*time.Millisecond)
		out := h.call(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 30})
		want := "Polled the capture API (socket: socket at ws://hooks.test/socket.io/?EIO=3&transport=websocket dropped: "
		wantEnd := ", then live later in the wait; no push came for this request)."
		if note := out["note"].(string); out["body"] != "while live again" || !strings.HasPrefix(note, want) || !strings.HasSuffix(note, wantEnd) {
			t.Errorf("result %v; want the note %q…%q", out, want, wantEnd)
		}
		if latency := time.Since(<-sent); latency != 3500*time.Millisecond {
			t.Errorf("found %s after the capture, want 3.5s (at the safety-net poll, 5 s after the socket went live)", latency)
		}
	})
}

// TestWaitPastWatchBound: past MaxWatched tokens held at once (here by a
// resource subscription), a wait polls and says why; a token's watch that
// only lingers after its last wait gives way to a new token.
func TestWaitPastWatchBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := connectLive(t, liveSetup{socket: true, live: LiveOptions{MaxWatched: 1}})
		first, second, third := h.token(t), h.token(t), h.token(t)
		ctx := context.Background()
		if err := h.session.Subscribe(ctx, &mcp.SubscribeParams{URI: requestsURI(first)}); err != nil {
			t.Fatal(err)
		}
		// The subscription takes its watch as its own goroutine starts:
		// let it, so that the slot is held before the wait asks.
		synctest.Wait()
		h.sendAt(t, second, "b", 2*time.Second)
		out := h.call(t, "wait_for_request", map[string]any{"token_id": second, "timeout_seconds": 10})
		if want := "Polled the capture API (socket: too many tokens watched at once (at most 1))."; !strings.Contains(out["note"].(string), want) {
			t.Errorf("second token, the first held by a subscription: note %q, want %q", out["note"], want)
		}
		if err := h.session.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: requestsURI(first)}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		h.sendAt(t, second, "b2", 2*time.Second)
		if out := h.call(t, "wait_for_request", map[string]any{"token_id": second, "timeout_seconds": 10}); !strings.Contains(out["note"].(string), "Woken by the service's push") {
			t.Errorf("second token once the first is unsubscribed: %v", out["note"])
		}
		// The second token's watch lingers, held by nothing: the third
		// takes its place.
		h.sendAt(t, third, "c", 2*time.Second)
		if out := h.call(t, "wait_for_request", map[string]any{"token_id": third, "timeout_seconds": 10}); !strings.Contains(out["note"].(string), "Woken by the service's push") {
			t.Errorf("third token while the second's watch lingers: %v", out["note"])
		}
	})
}

// TestWaitNoteSocketReconnecting: a socket that dropped and is
// reconnecting when the wait ends is told by its drop, not as merely
// connecting.
func TestWaitNoteSocketReconnecting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		socket := &scriptedSocket{script: "drop once"}
		var dials atomic.Int32
		slowSecond := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if dials.Add(1) == 2 {
				time.Sleep(3 * time.Second) // the bubble's clock: a slow handshake, 1 s to 4 s
			}
			socket.ServeHTTP(w, r)
		})
		h := connectLive(t, liveSetup{socket: true, socketHandler: slowSecond})
		id := h.token(t)
		// Found by the poll at 2.25 s, while the second dial hangs.
		sent := h.sendAt(t, id, "while reconnecting", 1500*time.Millisecond)
		out := h.call(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 30})
		want, wantEnd := "socket at ws://hooks.test/socket.io/?EIO=3&transport=websocket dropped: ", "; reconnecting)."
		if note := out["note"].(string); out["body"] != "while reconnecting" || !strings.Contains(note, want) || !strings.HasSuffix(note, wantEnd) {
			t.Errorf("result %v; want the note to name the drop, %q…%q", out, want, wantEnd)
		}
		if latency := time.Since(<-sent); latency != 750*time.Millisecond {
			t.Errorf("found %s after the capture, want 750ms (at the poll at 2.25 s)", latency)
		}
	})
}

// TestWaitNoteSocketLate: the note tells the wait as it went. A socket
// that opens only after the wait began (its first dial takes 1.5 s) did
// not push a request captured before it was subscribed; the wait polls
// once the socket is live (it cannot know what was pushed to no one), and
// says the socket came up late, not that it was live all along.
func TestWaitNoteSocketLate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fake http.Handler
		var dials atomic.Int32
		slowFirst := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if dials.Add(1) == 1 {
				time.Sleep(1500 * time.Millisecond) // the bubble's clock: a slow handshake
			}
			fake.ServeHTTP(w, r)
		})
		h := connectLive(t, liveSetup{socket: true, socketHandler: slowFirst})
		fake = h.fake
		id := h.token(t)
		sent := h.sendAt(t, id, "before the socket", 1200*time.Millisecond)
		out := h.call(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 30})
		want := "Polled the capture API (socket: connecting at first, live only later in the wait; no push came for this request)."
		if out["body"] != "before the socket" || out["note"] != want {
			t.Errorf("result %v; want the note %q", out, want)
		}
		// Found when the socket went live (1.5 s), not at the next poll (2.25 s).
		if latency := time.Since(<-sent); latency != 300*time.Millisecond {
			t.Errorf("found %s after the capture, want 300ms (when the socket went live)", latency)
		}
	})
}

// TestWaitPushFloodBudget: a flood of captures that the wait's query does
// not match wakes it many times, but it lists no faster than its push
// budget (three at once, then one a second).
func TestWaitPushFloodBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := connectLive(t, liveSetup{socket: true})
		id := h.token(t)
		go func() {
			time.Sleep(2 * time.Second) // the bubble's clock: when the flood comes
			for range 30 {
				h.send(t, id, "not a match")
			}
		}()
		polls := func() int {
			n := 0
			for _, r := range h.fake.Received() {
				if r.Path == "/token/"+id+"/requests" && strings.Contains(r.Query.Get("query"), "sorting:>") {
					n++
				}
			}
			return n
		}
		out := h.call(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 4, "query": "method:PUT"})
		if out["captured"] != false {
			t.Fatalf("result: %v", out)
		}
		// Polls at 0 and 1 s (the socket not yet live), then at most 3 at
		// once on the flood and one a second after: at most 7 by the limit,
		// not one per capture.
		if n := polls(); n > 7 {
			t.Errorf("%d listings for 30 pushes in a 4 s wait; want at most 7", n)
		}
	})
}
