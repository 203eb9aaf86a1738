package socketio

import (
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

// rawPeer is a server that opens each connection with a raw open packet a
// test writes (so it can be hostile) and "40", answers pings, and counts
// connections and pings.
type rawPeer struct {
	open     string
	conns    atomic.Int64
	pings    atomic.Int64
	received chan string
	send     chan string
}

func newRawPeer(open string) *rawPeer {
	return &rawPeer{open: open, received: make(chan string, 64), send: make(chan string)}
}

func (p *rawPeer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer conn.CloseNow()
	p.conns.Add(1)
	ctx := r.Context()
	conn.Write(ctx, websocket.MessageText, []byte(p.open))
	conn.Write(ctx, websocket.MessageText, []byte("40"))
	go func() {
		for {
			select {
			case f := <-p.send:
				conn.Write(ctx, websocket.MessageText, []byte(f))
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
		if string(b) == "2" {
			p.pings.Add(1)
			conn.Write(ctx, websocket.MessageText, []byte("3"))
			continue
		}
		select {
		case p.received <- string(b):
		default:
		}
	}
}

func (p *rawPeer) start(t *testing.T, opts Options) *Client {
	l, stop := pipenet.Serve(p)
	opts.URL, opts.HTTP = &url.URL{Scheme: "http", Host: "push.example"}, l.Client()
	c := NewClient(opts)
	t.Cleanup(func() { c.Close(); stop() })
	return c
}

// A pingTimeout past what time.Duration holds once in nanoseconds (1e13
// ms) is capped at a minute, not wrapped negative: a server that answers
// every ping keeps its one connection.
func TestClientHugePingTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newRawPeer(`0{"sid":"s","upgrades":[],"pingInterval":1000,"pingTimeout":10000000000000}`)
		c := p.start(t, Options{})
		sub, _ := c.Subscribe("private-token.a", "")
		<-p.received
		time.Sleep(30 * time.Second) // the bubble's clock: 30 pings' worth
		if n := p.conns.Load(); n != 1 {
			state, reason, _ := sub.Status()
			t.Errorf("a server answering every ping was connected %d times in 30s (now %s: %v); want 1", n, state, reason)
		}
		if n := p.pings.Load(); n < 25 || n > 30 {
			t.Errorf("%d pings in 30s at a pingInterval of 1s; want about 30", n)
		}
	})
}

// A huge pingInterval is capped at a minute, not wrapped into a negative
// one that pings in a tight loop.
func TestClientHugePingInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newRawPeer(`0{"sid":"s","upgrades":[],"pingInterval":10000000000000,"pingTimeout":5000}`)
		c := p.start(t, Options{})
		c.Subscribe("private-token.a", "")
		<-p.received
		synctest.Wait() // everything that can run without the clock moving has
		if n := p.pings.Load(); n != 0 {
			t.Errorf("client sent %d pings without the clock moving; want none before the capped interval", n)
		}
		start := time.Now()
		time.Sleep(59 * time.Second) // the bubble's clock: just short of the cap
		synctest.Wait()
		if n := p.pings.Load(); n != 0 {
			t.Errorf("client pinged %d times within %s; want its first ping at the 1 minute cap", n, time.Since(start))
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if n := p.pings.Load(); n != 1 {
			t.Errorf("client pinged %d times by 61s; want 1 (at the 1 minute cap)", n)
		}
	})
}

// laravel-echo-server sends subscription_error for any failure of its auth
// call: only 401, 403 and 404 are final; a 500, a 429 or no status is tried
// again after a backoff that doubles, on the same connection and after a
// reconnection.
func TestClientRetriesPassingRefusal(t *testing.T) {
	for _, status := range []string{"500", "429", "0", `"x"`} {
		t.Run(status, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := newRawPeer(`0{"sid":"s","upgrades":[],"pingInterval":25000,"pingTimeout":5000}`)
				c := p.start(t, Options{MinBackoff: time.Second, MaxBackoff: 4 * time.Second})
				sub, _ := c.Subscribe("private-token.a", "k")
				<-p.received
				start := time.Now()
				var resent []time.Duration
				for range 4 {
					p.send <- `42["subscription_error","private-token.a",` + status + `]`
					reason := await(t, sub, Down)
					if !strings.Contains(reason.Error(), "subscribing again") {
						t.Errorf("reason = %v", reason)
					}
					if got := <-p.received; !strings.HasPrefix(got, `42["subscribe"`) {
						t.Fatalf("client sent %s, want its subscribe again", got)
					}
					resent = append(resent, time.Since(start))
					await(t, sub, Live)
				}
				if want := []time.Duration{1 * time.Second, 3 * time.Second, 7 * time.Second, 11 * time.Second}; !equal(resent, want) {
					t.Errorf("subscribed again at %v, want %v (backoff doubling to 4s)", resent, want)
				}
				if n := p.conns.Load(); n != 1 {
					t.Errorf("%d connections; a refusal must not drop the connection", n)
				}
				// After a reconnection the subscription is sent again.
				p.send <- `1`
				if got := <-p.received; !strings.HasPrefix(got, `42["subscribe"`) {
					t.Fatalf("after reconnecting the client sent %s, want its subscribe", got)
				}
				await(t, sub, Live)
			})
		})
	}
	for _, status := range []string{"401", "403", "404"} {
		t.Run(status, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := newRawPeer(`0{"sid":"s","upgrades":[],"pingInterval":25000,"pingTimeout":5000}`)
				c := p.start(t, Options{})
				sub, _ := c.Subscribe("private-token.a", "k")
				<-p.received
				p.send <- `42["subscription_error","private-token.a",` + status + `]`
				reason := await(t, sub, Refused)
				if !strings.Contains(reason.Error(), "status "+status) {
					t.Errorf("reason = %v", reason)
				}
				p.send <- `1`
				time.Sleep(5 * time.Minute) // the bubble's clock: past any backoff
				synctest.Wait()
				select {
				case got := <-p.received:
					t.Errorf("after a final refusal the client sent %s", got)
				default:
				}
				if state, _, _ := sub.Status(); state != Refused {
					t.Errorf("state %s, want refused", state)
				}
			})
		})
	}
}

// Packets of another namespace neither end the default one's connection
// nor reach its subscriptions.
func TestClientIgnoresOtherNamespaces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newRawPeer(`0{"sid":"s","upgrades":[],"pingInterval":25000,"pingTimeout":5000}`)
		c := p.start(t, Options{})
		sub, _ := c.Subscribe("private-token.a", "")
		<-p.received
		await(t, sub, Live)
		for _, f := range []string{`41/admin`, `44/admin,"nope"`, `42/admin,["request.created","private-token.a",{}]`, `42/admin,["subscription_error","private-token.a",403]`} {
			p.send <- f
		}
		p.send <- `42["request.created","private-token.a",{"n":1}]`
		ev := <-sub.Events()
		if string(ev.Data) != `{"n":1}` {
			t.Errorf("first event delivered: %+v; want the default namespace's", ev)
		}
		if state, reason, _ := sub.Status(); state != Live || p.conns.Load() != 1 {
			t.Errorf("after other namespaces' packets: %s (%v), %d connections", state, reason, p.conns.Load())
		}
	})
}

// During the handshake too, another namespace's error or connect is not
// the default namespace's.
func TestClientHandshakeIgnoresOtherNamespaces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		got := make(chan string, 1)
		l, stop := pipenet.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			conn, err := websocket.Accept(w, r, nil)
			if err != nil {
				return
			}
			defer conn.CloseNow()
			ctx := r.Context()
			for _, f := range []string{`0{"sid":"s","upgrades":[],"pingInterval":25000,"pingTimeout":5000}`, `44/admin,"not allowed"`, `40/admin`, `40`} {
				conn.Write(ctx, websocket.MessageText, []byte(f))
			}
			for { // the subscribe, then until the client closes
				_, b, err := conn.Read(ctx)
				if err != nil {
					return
				}
				select {
				case got <- string(b):
				default:
				}
			}
		}))
		defer stop()
		c := NewClient(Options{URL: &url.URL{Scheme: "http", Host: "push.example"}, HTTP: l.Client()})
		defer c.Close()
		c.Subscribe("private-token.a", "")
		select {
		case f := <-got:
			if !strings.HasPrefix(f, `42["subscribe"`) {
				t.Errorf("client sent %s, want its subscribe", f)
			}
		case <-time.After(time.Minute):
			t.Errorf("no subscribe within a minute: the handshake took another namespace's packets for its own")
		}
	})
}

// The default HTTP client follows no redirect of the dial, so the
// subscribe (with its key) never reaches another host.
func TestClientDialRedirectNotFollowed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var evil atomic.Int64
		l, stop := pipenet.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Host == "evil.example" {
				evil.Add(1)
				http.Error(w, "no", http.StatusNotFound)
				return
			}
			http.Redirect(w, r, "ws://evil.example/socket.io/?EIO=3&transport=websocket", http.StatusFound)
		}))
		defer stop()
		c := NewClient(Options{URL: &url.URL{Scheme: "ws", Host: "push.example"}})
		c.opts.HTTP.Transport = l.Client().Transport // the default client's redirect policy, over pipes
		defer c.Close()
		sub, _ := c.Subscribe("private-token.a", "k")
		reason := await(t, sub, Down)
		if evil.Load() != 0 || !strings.Contains(reason.Error(), "HTTP 302") {
			t.Errorf("evil dialled %d times; reason %v", evil.Load(), reason)
		}
	})
}
