package socketio

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/coder/websocket"

	"github.com/mcpforge/servers/hookmcp/internal/socketio/pipenet"
)

// peer is a Socket.IO protocol 2 server scripted by a test: it opens each
// connection with the handshake and the namespace's connect, hands the
// test what the client sends, and sends what the test gives it.
type peer struct {
	t         *testing.T
	interval  time.Duration
	timeout   time.Duration
	pong      atomic.Bool   // answer pings
	received  chan string   // frames from the client
	send      chan string   // frames to the client
	connected chan struct{} // one per connection
	refuse    int           // answer the next dials with this HTTP status
}

func newPeer(t *testing.T) *peer {
	p := &peer{
		t: t, interval: 25 * time.Second, timeout: 5 * time.Second,
		received: make(chan string, 64), send: make(chan string), connected: make(chan struct{}, 8),
	}
	p.pong.Store(true)
	return p
}

func (p *peer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p.refuse != 0 {
		http.Error(w, "no socket here", p.refuse)
		return
	}
	if r.URL.Path != "/socket.io/" || r.URL.Query().Get("EIO") != "3" || r.URL.Query().Get("transport") != "websocket" {
		p.t.Errorf("client dialled %s, want /socket.io/?EIO=3&transport=websocket", r.URL)
	}
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer conn.CloseNow()
	ctx := r.Context()
	conn.Write(ctx, websocket.MessageText, []byte(EncodeHandshake(Handshake{SID: "sid", PingInterval: p.interval.Milliseconds(), PingTimeout: p.timeout.Milliseconds()})))
	conn.Write(ctx, websocket.MessageText, []byte("40"))
	p.connected <- struct{}{}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for {
			select {
			case frame := <-p.send:
				conn.Write(ctx, websocket.MessageText, []byte(frame))
			case <-ctx.Done():
				return
			}
		}
	}()
	for {
		_, b, err := conn.Read(ctx)
		if err != nil {
			return
		}
		if string(b) == "2" && p.pong.Load() {
			conn.Write(ctx, websocket.MessageText, []byte("3"))
			continue
		}
		p.received <- string(b)
	}
}

// start serves p in memory and returns a client of it; both end with the
// test.
func (p *peer) start(t *testing.T, opts Options) *Client {
	l, stop := pipenet.Serve(p)
	opts.URL = &url.URL{Scheme: "http", Host: "push.example"}
	opts.HTTP = l.Client()
	c := NewClient(opts)
	t.Cleanup(func() {
		c.Close()
		stop()
	})
	return c
}

// await waits for sub to reach state; the bubble's clock runs meanwhile.
func await(t *testing.T, sub *Subscription, want State) error {
	t.Helper()
	for {
		state, reason, changed := sub.Status()
		if state == want {
			return reason
		}
		if state == Closed || state == Refused {
			t.Fatalf("subscription is %s (%v), want %s", state, reason, want)
		}
		select {
		case <-changed:
		case <-time.After(10 * time.Minute):
			t.Fatalf("subscription still %s (%v) after 10 minutes, want %s", state, reason, want)
		}
	}
}

func TestClientSubscribesAndReceives(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPeer(t)
		c := p.start(t, Options{})
		private, err := c.Subscribe("private-token.a", "secret-key")
		if err != nil {
			t.Fatal(err)
		}
		public, _ := c.Subscribe("private-token.b", "")
		got := map[string]bool{<-p.received: true, <-p.received: true}
		for _, want := range []string{
			`42["subscribe",{"auth":{"headers":{"Api-Key":"secret-key"}},"channel":"private-token.a"}]`,
			`42["subscribe",{"auth":{"headers":{}},"channel":"private-token.b"}]`,
		} {
			if !got[want] {
				t.Errorf("server got %v, want %s", got, want)
			}
		}
		await(t, private, Live)
		p.send <- `42["request.created","private-token.b",{"request":{"uuid":"r1"},"variables":{},"runtime_variables":{}}]`
		ev := <-public.Events()
		if ev.Name != "request.created" || ev.Channel != "private-token.b" || !strings.Contains(string(ev.Data), `"uuid":"r1"`) {
			t.Errorf("event = %+v", ev)
		}
		synctest.Wait()
		select {
		case ev := <-private.Events():
			t.Errorf("the other channel's subscription got %+v", ev)
		default:
		}
		// Leaving the channel unsubscribes from it.
		public.Close()
		if got, want := <-p.received, `42["unsubscribe",{"channel":"private-token.b"}]`; got != want {
			t.Errorf("after Close the server got %s, want %s", got, want)
		}
	})
}

func TestClientRefusedSubscription(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPeer(t)
		c := p.start(t, Options{})
		sub, _ := c.Subscribe("private-token.a", "wrong-key")
		<-p.received
		p.send <- `42["subscription_error","private-token.a",403]`
		reason := await(t, sub, Refused)
		if reason == nil || !strings.Contains(reason.Error(), "refused the subscription to private-token.a") || strings.Contains(reason.Error(), "wrong-key") {
			t.Errorf("reason = %v", reason)
		}
	})
}

// A server that stops answering pings is dropped after pingTimeout, and
// the client reconnects after its backoff and subscribes again.
func TestClientPingTimeoutAndReconnect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPeer(t)
		p.interval, p.timeout = 10*time.Second, 3*time.Second
		c := p.start(t, Options{MinBackoff: 2 * time.Second})
		sub, _ := c.Subscribe("private-token.a", "")
		<-p.received
		await(t, sub, Live)
		p.pong.Store(false)
		start := time.Now()
		if got := <-p.received; got != "2" {
			t.Fatalf("client sent %q, want a ping", got)
		}
		if waited := time.Since(start); waited != p.interval {
			t.Errorf("first ping after %s, want pingInterval %s", waited, p.interval)
		}
		reason := await(t, sub, Down)
		if !strings.Contains(reason.Error(), "did not answer a ping within 3s") {
			t.Errorf("reason = %v", reason)
		}
		if waited := time.Since(start); waited != p.interval+p.timeout {
			t.Errorf("dropped after %s, want %s", waited, p.interval+p.timeout)
		}
		p.pong.Store(true)
		if got := <-p.received; !strings.HasPrefix(got, `42["subscribe"`) {
			t.Errorf("after reconnecting the client sent %s, want its subscribe", got)
		}
		if waited := time.Since(start); waited != p.interval+p.timeout+2*time.Second {
			t.Errorf("reconnected after %s, want the backoff of 2s after the drop", waited)
		}
		await(t, sub, Live)
	})
}

// A server with no socket answers 404: the subscription is Down with the
// reason, and the retries back off, doubling up to MaxBackoff.
func TestClientNoSocket(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPeer(t)
		p.refuse = http.StatusNotFound
		c := p.start(t, Options{MinBackoff: time.Second, MaxBackoff: 4 * time.Second})
		start := time.Now()
		sub, _ := c.Subscribe("private-token.a", "the-key")
		reason := await(t, sub, Down)
		want := "cannot open the socket at ws://push.example/socket.io/?EIO=3&transport=websocket: it answered HTTP 404"
		if reason == nil || reason.Error() != want || strings.Contains(reason.Error(), "the-key") {
			t.Errorf("reason = %v, want %s", reason, want)
		}
		var dials []time.Duration
		for len(dials) < 5 {
			await(t, sub, Connecting)
			dials = append(dials, time.Since(start))
			await(t, sub, Down)
		}
		if want := []time.Duration{1 * time.Second, 3 * time.Second, 7 * time.Second, 11 * time.Second, 15 * time.Second}; !equal(dials, want) {
			t.Errorf("redials at %v, want %v", dials, want)
		}
		// A new subscription while the client waits is told at once.
		other, _ := c.Subscribe("private-token.b", "")
		if state, reason, _ := other.Status(); state != Down || reason == nil {
			t.Errorf("new subscription during the backoff: %s, %v", state, reason)
		}
	})
}

func equal[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestClientBounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPeer(t)
		c := p.start(t, Options{MaxSubscriptions: 2, ReadLimit: 1024})
		a, _ := c.Subscribe("private-token.a", "")
		c.Subscribe("private-token.b", "")
		if _, err := c.Subscribe("private-token.c", ""); err == nil || !strings.Contains(err.Error(), "at most 2") {
			t.Errorf("third subscription: %v, want the bound", err)
		}
		<-p.received
		<-p.received
		await(t, a, Live)
		// A message past the read limit drops the connection.
		p.send <- `42["request.created","private-token.a",{"request":{"content":"` + strings.Repeat("x", 2048) + `"}}]`
		if reason := await(t, a, Down); !strings.Contains(reason.Error(), "dropped") {
			t.Errorf("reason = %v", reason)
		}
		// The client's own Close ends its goroutines (synctest.Test fails
		// on any left blocked).
		c.Close()
		if state, _, _ := a.Status(); state != Closed {
			t.Errorf("after Close: %s", state)
		}
		if _, err := c.Subscribe("private-token.a", ""); err != ErrClosed {
			t.Errorf("Subscribe after Close: %v", err)
		}
	})
}

// Closing the last subscription closes the connection; a new one opens
// another.
func TestClientClosesWhenIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPeer(t)
		c := p.start(t, Options{})
		a, _ := c.Subscribe("private-token.a", "")
		<-p.connected
		<-p.received
		await(t, a, Live)
		a.Close()
		synctest.Wait()
		c.mu.Lock()
		running := c.running
		c.mu.Unlock()
		if running {
			t.Errorf("the connection runs with no subscription")
		}
		b, _ := c.Subscribe("private-token.b", "")
		<-p.connected
		<-p.received
		await(t, b, Live)
	})
}
