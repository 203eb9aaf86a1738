package fakehooksvc

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/coder/websocket"

	"github.com/mcpforge/servers/hookmcp/internal/socketio"
	"github.com/mcpforge/servers/hookmcp/internal/socketio/pipenet"
)

// socketHarness serves a fake in memory, inside a synctest bubble.
type socketHarness struct {
	t      *testing.T
	fake   *Server
	l      *pipenet.Listener
	client *http.Client
}

func startSocket(t *testing.T, opts Options) *socketHarness {
	opts.APIKeys = []string{"key-one-111", "key-two-222"}
	fake := New(opts)
	l, stop := pipenet.Serve(fake)
	t.Cleanup(stop)
	return &socketHarness{t: t, fake: fake, l: l, client: l.Client()}
}

func (h *socketHarness) do(method, path, key, body string) (int, http.Header, string) {
	h.t.Helper()
	req, _ := http.NewRequest(method, "http://fake"+path, strings.NewReader(body))
	if key != "" {
		req.Header.Set("Api-Key", key)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(raw)
}

func (h *socketHarness) token(key string) string {
	h.t.Helper()
	status, _, body := h.do("POST", "/token", key, `{}`)
	var tok struct{ UUID string }
	if json.Unmarshal([]byte(body), &tok); status != http.StatusCreated || tok.UUID == "" {
		h.t.Fatalf("create token: %d %s", status, body)
	}
	return tok.UUID
}

// subscriber is hookmcp's own socket client, pointed at the fake.
func (h *socketHarness) subscriber() *socketio.Client {
	c := socketio.NewClient(socketio.Options{URL: &url.URL{Scheme: "http", Host: "fake"}, HTTP: h.client})
	h.t.Cleanup(c.Close)
	return c
}

func awaitState(t *testing.T, sub *socketio.Subscription, want socketio.State) error {
	t.Helper()
	for {
		state, reason, changed := sub.Status()
		if state == want {
			return reason
		}
		if state == socketio.Refused || state == socketio.Closed {
			t.Fatalf("subscription is %s (%v), want %s", state, reason, want)
		}
		<-changed
	}
}

// A capture is pushed to the token's subscribers as request.created, with
// the request object the API lists, variables and runtime_variables; a
// subscription is checked as the API checks a read of the token.
func TestSocketPushesCaptures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startSocket(t, Options{})
		private, public := h.token("key-one-111"), h.token("")
		c := h.subscriber()
		mine, _ := c.Subscribe("private-token."+private, "key-one-111")
		open, _ := c.Subscribe("private-token."+public, "")
		// A refusal names only its channel, so each is tried on a
		// connection of its own.
		refusals := map[string]*socketio.Subscription{}
		for name, key := range map[string]string{"no key": "", "another account's key": "key-two-222", "an unknown key": "nope"} {
			refusals[name], _ = h.subscriber().Subscribe("private-token."+private, key)
		}
		unknown, _ := c.Subscribe("private-token."+newUUID(), "")
		notAToken, _ := c.Subscribe("presence-room", "")
		synctest.Wait()
		for name, sub := range refusals {
			if state, reason, _ := sub.Status(); state != socketio.Refused {
				t.Errorf("private token with %s: %s (%v), want refused", name, state, reason)
			}
		}
		for _, sub := range []*socketio.Subscription{unknown, notAToken} {
			if state, _, _ := sub.Status(); state != socketio.Refused {
				t.Errorf("%s: %s, want refused", sub.Channel(), state)
			}
		}
		awaitState(t, mine, socketio.Live)
		awaitState(t, open, socketio.Live)

		_, header, _ := h.do("POST", "/"+private+"/hook?x=1", "", `{"a":1}`)
		ev := <-mine.Events()
		var data struct {
			Request          map[string]any `json:"request"`
			Variables        map[string]any `json:"variables"`
			RuntimeVariables map[string]any `json:"runtime_variables"`
		}
		if err := json.Unmarshal(ev.Data, &data); err != nil {
			t.Fatalf("request.created data %s: %v", ev.Data, err)
		}
		if ev.Name != "request.created" || ev.Channel != "private-token."+private || data.Variables == nil || data.RuntimeVariables == nil {
			t.Errorf("event = %s %s %s", ev.Name, ev.Channel, ev.Data)
		}
		if data.Request["uuid"] != header.Get("X-Request-Id") || data.Request["content"] != `{"a":1}` || data.Request["token_id"] != private {
			t.Errorf("pushed request = %v, want the captured one (%s)", data.Request, header.Get("X-Request-Id"))
		}
		_, _, listed := h.do("GET", "/token/"+private+"/request/"+header.Get("X-Request-Id"), "key-one-111", "")
		var want map[string]any
		json.Unmarshal([]byte(listed), &want)
		if len(want) == 0 || len(want) != len(data.Request) {
			t.Errorf("pushed request has %d fields, the API's %d", len(data.Request), len(want))
		}
		synctest.Wait()
		select {
		case ev := <-open.Events():
			t.Errorf("another token's subscriber got %+v", ev)
		default:
		}
		// Unsubscribed, nothing more arrives.
		mine.Close()
		synctest.Wait()
		if h.fake.hub.listened("private-token." + private) {
			t.Errorf("the channel is still listened to after unsubscribe")
		}
	})
}

func TestSocketNoSocket(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startSocket(t, Options{NoSocket: true})
		for _, path := range []string{"/socket.io/?EIO=3&transport=websocket", "/socket.io/?EIO=3&transport=polling"} {
			if status, _, _ := h.do("GET", path, "", ""); status != http.StatusNotFound {
				t.Errorf("GET %s = %d, want 404", path, status)
			}
		}
		sub, _ := h.subscriber().Subscribe("private-token."+h.token(""), "")
		if reason := awaitState(t, sub, socketio.Down); !strings.Contains(reason.Error(), "HTTP 404") {
			t.Errorf("reason = %v", reason)
		}
	})
}

// The long-polling transport and its upgrade, as socket.io-client 2 (the
// official CLI) drives them: handshake poll, POSTed packets, held polls,
// then probe, noop to the held poll, and upgrade.
func TestSocketPollingAndUpgrade(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startSocket(t, Options{})
		tok := h.token("")
		poll := func(query string) []socketio.Packet {
			t.Helper()
			status, header, body := h.do("GET", "/socket.io/?EIO=3&transport=polling"+query, "", "")
			packets, err := socketio.DecodePayload(body)
			if status != http.StatusOK || err != nil || !strings.HasPrefix(header.Get("Content-Type"), "text/plain") {
				t.Fatalf("poll: %d %q %v", status, body, err)
			}
			return packets
		}
		post := func(sid string, packets ...socketio.Packet) {
			t.Helper()
			if status, _, body := h.do("POST", "/socket.io/?EIO=3&transport=polling&sid="+sid, "", socketio.EncodePayload(packets...)); status != http.StatusOK || body != "ok" {
				t.Fatalf("post: %d %s", status, body)
			}
		}
		first := poll("&b64=1")
		if len(first) != 2 || first[0].Type != socketio.Open || first[1].String() != "40" {
			t.Fatalf("handshake poll = %v", first)
		}
		hs, err := socketio.DecodeHandshake(first[0].Data)
		if err != nil || len(hs.Upgrades) != 1 || hs.Upgrades[0] != "websocket" || hs.PingInterval != 25000 || hs.PingTimeout != 5000 {
			t.Fatalf("handshake = %+v, %v", hs, err)
		}
		sid := "&sid=" + hs.SID
		subscribe, _ := socketio.EncodeEvent("subscribe", map[string]any{"channel": "private-token." + tok, "auth": map[string]any{"headers": map[string]any{}}})
		post(hs.SID, socketio.Packet{Type: socketio.Ping}, socketio.Packet{Type: socketio.Message, Data: subscribe[1:]})
		if got := poll(sid); len(got) != 1 || got[0].Type != socketio.Pong {
			t.Errorf("poll after a ping = %v, want a pong", got)
		}
		h.do("PUT", "/"+tok, "", "captured")
		if got := poll(sid); len(got) != 1 || !strings.HasPrefix(got[0].Data, `2["request.created","private-token.`+tok+`",{"request":{`) {
			t.Errorf("poll after a capture = %v", got)
		}
		// An idle poll is answered with a noop after the ping interval.
		start := time.Now()
		if got := poll(sid); len(got) != 1 || got[0].Type != socketio.Noop || time.Since(start) != 25*time.Second {
			t.Errorf("idle poll = %v after %s", got, time.Since(start))
		}

		// The upgrade: a poll is held while the WebSocket probes.
		held := make(chan []socketio.Packet)
		go func() { held <- poll(sid) }()
		synctest.Wait()
		ctx := context.Background()
		ws, _, err := websocket.Dial(ctx, "ws://fake/socket.io/?EIO=3&transport=websocket"+sid, &websocket.DialOptions{HTTPClient: h.client})
		if err != nil {
			t.Fatal(err)
		}
		defer ws.CloseNow()
		ws.Write(ctx, websocket.MessageText, []byte("2probe"))
		if _, b, _ := ws.Read(ctx); string(b) != "3probe" {
			t.Errorf("probe answered %q", b)
		}
		if got := <-held; len(got) != 1 || got[0].Type != socketio.Noop {
			t.Errorf("held poll = %v, want a noop", got)
		}
		ws.Write(ctx, websocket.MessageText, []byte("5"))
		synctest.Wait()
		if status, _, _ := h.do("GET", "/socket.io/?EIO=3&transport=polling"+sid, "", ""); status != http.StatusBadRequest {
			t.Errorf("poll after the upgrade = %d, want 400", status)
		}
		h.do("PUT", "/"+tok, "", "again")
		if _, b, _ := ws.Read(ctx); !strings.HasPrefix(string(b), `42["request.created"`) {
			t.Errorf("after the upgrade the socket got %q", b)
		}
		ws.Write(ctx, websocket.MessageText, []byte("2"))
		if _, b, _ := ws.Read(ctx); string(b) != "3" {
			t.Errorf("ping answered %q", b)
		}
	})
}

// Bad frames and payloads neither crash the fake nor stop it serving the
// session; a client that stops pinging loses its session.
func TestSocketBadInputAndPingTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startSocket(t, Options{})
		tok := h.token("")
		for _, path := range []string{
			"/socket.io/?EIO=4&transport=websocket", "/socket.io/?EIO=3&transport=flash",
			"/socket.io/?EIO=3&transport=polling&sid=nope", "/socket.io/?EIO=3&transport=polling&j=0",
		} {
			if status, _, body := h.do("GET", path, "", ""); status != http.StatusBadRequest || !strings.Contains(body, `"code"`) {
				t.Errorf("GET %s = %d %s, want engine.io's 400", path, status, body)
			}
		}
		ctx := context.Background()
		ws, _, err := websocket.Dial(ctx, "ws://fake/socket.io/?EIO=3&transport=websocket", &websocket.DialOptions{HTTPClient: h.client})
		if err != nil {
			t.Fatal(err)
		}
		defer ws.CloseNow()
		_, open, _ := ws.Read(ctx)
		hs, _ := socketio.DecodeHandshake(string(open[1:]))
		if _, b, _ := ws.Read(ctx); string(b) != "40" {
			t.Fatalf("after open: %q", b)
		}
		for _, bad := range []string{"", "9", "4", "49", "42", "42[", `42[1]`, `42["subscribe"]`, `42["subscribe",7]`, `42["subscribe",{"channel":7}]`,
			`451-["subscribe",{"_placeholder":true,"num":0}]`, "\xff\xfe", `42["subscribe",{"channel":"private-token.` + tok + `","auth":{"headers":[]}}]`} {
			ws.Write(ctx, websocket.MessageText, []byte(bad))
		}
		ws.Write(ctx, websocket.MessageBinary, []byte{4, 0xff})
		for _, body := range []string{"x", "5:42", "99999:4", "1:9"} {
			if status, _, _ := h.do("POST", "/socket.io/?EIO=3&transport=polling&sid="+hs.SID, "", body); status != http.StatusBadRequest {
				t.Errorf("POST %q = %d, want 400", body, status)
			}
		}
		subscribe, _ := socketio.EncodeEvent("subscribe", map[string]any{"channel": "private-token." + tok, "auth": map[string]any{"headers": map[string]any{}}})
		ws.Write(ctx, websocket.MessageText, []byte(subscribe))
		synctest.Wait()
		h.do("GET", "/"+tok, "", "")
		if _, b, err := ws.Read(ctx); !strings.HasPrefix(string(b), `42["request.created"`) {
			t.Errorf("after bad frames the socket got %q, %v", b, err)
		}
		// Silent past pingInterval + pingTimeout: the session ends.
		start := time.Now()
		if _, _, err := ws.Read(ctx); err == nil {
			t.Errorf("the session outlived its silent client")
		}
		if waited := time.Since(start); waited != 30*time.Second {
			t.Errorf("session closed after %s of silence, want 30s", waited)
		}
		if h.fake.hub.session(hs.SID) != nil || h.fake.hub.listened("private-token."+tok) {
			t.Errorf("the closed session is still held")
		}
	})
}

// A polling client that holds polls open but never pings loses its
// session after pingInterval + pingTimeout, as engine.io 3 resets its
// timeout only on packets from the client; one that pings keeps it.
func TestSocketPollingNeedsPings(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startSocket(t, Options{})
		open := func() string {
			_, _, body := h.do("GET", "/socket.io/?EIO=3&transport=polling", "", "")
			packets, err := socketio.DecodePayload(body)
			if err != nil || len(packets) == 0 {
				t.Fatalf("handshake poll: %q %v", body, err)
			}
			hs, err := socketio.DecodeHandshake(packets[0].Data)
			if err != nil {
				t.Fatal(err)
			}
			return hs.SID
		}
		silent, pinging := open(), open()
		start := time.Now()
		for range 3 { // three held polls, 25 s each, the last ending the session
			done := make(chan struct{})
			go func() {
				defer close(done)
				h.do("GET", "/socket.io/?EIO=3&transport=polling&sid="+silent, "", "")
			}()
			go h.do("POST", "/socket.io/?EIO=3&transport=polling&sid="+pinging, "", socketio.EncodePayload(socketio.Packet{Type: socketio.Ping}))
			<-done
			h.do("GET", "/socket.io/?EIO=3&transport=polling&sid="+pinging, "", "") // takes the pong
		}
		synctest.Wait()
		if h.fake.hub.session(silent) != nil {
			t.Errorf("a client that only polled for %s kept its session", time.Since(start))
		}
		if h.fake.hub.session(pinging) == nil {
			t.Errorf("a client that pinged lost its session")
		}
		// The client closes its session; its watchdog ends with it.
		h.do("POST", "/socket.io/?EIO=3&transport=polling&sid="+pinging, "", socketio.EncodePayload(socketio.Packet{Type: socketio.Close}))
	})
}

// A session keeps its transport: one opened on a WebSocket takes no
// polling request and no second WebSocket; a polling session is upgraded
// once.
func TestSocketSessionTransport(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := startSocket(t, Options{})
		ctx := context.Background()
		ws, _, err := websocket.Dial(ctx, "ws://fake/socket.io/?EIO=3&transport=websocket", &websocket.DialOptions{HTTPClient: h.client})
		if err != nil {
			t.Fatal(err)
		}
		defer ws.CloseNow()
		_, open, _ := ws.Read(ctx)
		hs, err := socketio.DecodeHandshake(string(open[1:]))
		if err != nil {
			t.Fatal(err)
		}
		sid := "&sid=" + hs.SID
		if status, _, body := h.do("GET", "/socket.io/?EIO=3&transport=polling"+sid, "", ""); status != http.StatusBadRequest || !strings.Contains(body, `"code":3`) {
			t.Errorf("polling GET on a WebSocket session = %d %s, want 400", status, body)
		}
		if status, _, _ := h.do("POST", "/socket.io/?EIO=3&transport=polling"+sid, "", socketio.EncodePayload(socketio.Packet{Type: socketio.Ping})); status != http.StatusBadRequest {
			t.Errorf("polling POST on a WebSocket session = %d, want 400", status)
		}
		if _, resp, err := websocket.Dial(ctx, "ws://fake/socket.io/?EIO=3&transport=websocket"+sid, &websocket.DialOptions{HTTPClient: h.client}); err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
			t.Errorf("a second WebSocket for a WebSocket session: %v", err)
		}
		// The first WebSocket still serves its session.
		ws.Write(ctx, websocket.MessageText, []byte("2"))
		for {
			_, b, err := ws.Read(ctx)
			if err != nil {
				t.Fatalf("the session's WebSocket: %v", err)
			}
			if string(b) == "3" {
				break
			}
		}
	})
}
