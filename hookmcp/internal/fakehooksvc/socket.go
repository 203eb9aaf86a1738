package fakehooksvc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/mcpforge/servers/hookmcp/internal/socketio"
)

// The live push, as the hosted service's Socket.IO protocol 2 server
// (Engine.IO 3, laravel-echo-server's events) serves it at /socket.io/:
// the WebSocket transport directly, or HTTP long-polling upgraded to it,
// which is how socket.io-client 2 (webhook.site's own CLI) connects. A
// client subscribes to private-token.<uuid> with its Api-Key; each capture
// is pushed as request.created with the request object the API lists.

// Socket bounds: every session, queue and message is bounded, and a
// session whose client stops pinging is closed.
const (
	defaultPingInterval     = 25 * time.Second
	defaultPingTimeout      = 5 * time.Second
	maxSocketSessions       = 256
	maxSessionSubscriptions = 64
	sessionQueue            = 256     // frames waiting for a slow client; past it the session is closed
	maxSocketMessage        = 1 << 20 // one frame or polling body from a client
	channelPrefix           = "private-token."
)

// socketHub holds the open socket sessions and who listens to which
// channel. Its lock is taken after the Server's, never before it.
type socketHub struct {
	// Engine.IO pacing the open packet announces; tests shorten them.
	pingInterval, pingTimeout time.Duration

	mu       sync.Mutex
	sessions map[string]*sioSession
	channels map[string]map[*sioSession]bool
	changed  chan struct{} // closed, and replaced, when a channel is joined or left
}

func newSocketHub() *socketHub {
	return &socketHub{
		pingInterval: defaultPingInterval, pingTimeout: defaultPingTimeout,
		sessions: map[string]*sioSession{}, channels: map[string]map[*sioSession]bool{}, changed: make(chan struct{}),
	}
}

// sioSession is one Engine.IO session, on either transport.
type sioSession struct {
	sid  string
	hub  *socketHub
	out  chan string   // frames to the client
	done chan struct{} // closed when the session ends
	// active is signalled on every packet the client sends (a ping, or
	// anything else), not on a bare polling GET, as engine.io 3 resets its
	// ping timeout: a polling client that never pings loses its session.
	active chan struct{}
	once   sync.Once

	joined map[string]bool // guarded by hub.mu

	mu        sync.Mutex
	polling   bool // a long-poll GET is held
	websocket bool // the session runs on a WebSocket (opened on one, or upgraded)
	upgrading bool // a WebSocket is probing to take over the polling session
}

// serveSocket serves /socket.io/: Engine.IO 3 only, as the hosted service.
func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request) {
	if s.noSocket || r.URL.Path != "/socket.io/" {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	if q.Get("EIO") != "3" {
		engineError(w, 5, "Unsupported protocol version")
		return
	}
	sid := q.Get("sid")
	var sess *sioSession
	if sid != "" {
		if sess = s.hub.session(sid); sess == nil {
			engineError(w, 1, "Session ID unknown")
			return
		}
	}
	transport := q.Get("transport")
	if sess != nil && !sess.accepts(transport) {
		// As engine.io: a session's requests use its transport, and only a
		// polling session can be upgraded, once.
		engineError(w, 3, "Bad request")
		return
	}
	switch {
	case transport == "websocket" && sess == nil:
		s.serveWebSocket(w, r, nil)
	case transport == "websocket":
		s.serveWebSocket(w, r, sess)
	case transport == "polling" && q.Get("j") != "":
		engineError(w, 3, "Bad request") // JSONP: not served
	case transport == "polling" && sess == nil && r.Method == http.MethodGet:
		sess, err := s.hub.open(false)
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		go sess.watch()
		writePayload(w, socketio.Packet{Type: socketio.Open, Data: s.hub.handshake(sess, true)[1:]},
			socketio.Packet{Type: socketio.Message, Data: string(socketio.Connect)})
	case transport == "polling" && sess != nil && r.Method == http.MethodGet:
		s.poll(w, r, sess)
	case transport == "polling" && sess != nil && r.Method == http.MethodPost:
		body, err := io.ReadAll(io.LimitReader(r.Body, maxSocketMessage+1))
		if err != nil || len(body) > maxSocketMessage {
			engineError(w, 3, "Bad request")
			return
		}
		packets, err := socketio.DecodePayload(string(body))
		if err != nil {
			engineError(w, 3, "Bad request")
			return
		}
		if len(packets) > 0 {
			sess.touch()
		}
		for _, p := range packets {
			s.handlePacket(sess, p)
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "ok")
	default:
		engineError(w, 0, "Transport unknown")
	}
}

// engineError answers as engine.io does to a request it refuses.
func engineError(w http.ResponseWriter, code int, message string) {
	writeJSON(w, http.StatusBadRequest, map[string]any{"code": code, "message": message})
}

func writePayload(w http.ResponseWriter, packets ...socketio.Packet) {
	w.Header().Set("Content-Type", "text/plain; charset=UTF-8")
	io.WriteString(w, socketio.EncodePayload(packets...))
}

// poll holds a long-poll GET until frames are queued, the session ends or
// a ping interval passes (then a noop answers it).
func (s *Server) poll(w http.ResponseWriter, r *http.Request, sess *sioSession) {
	sess.mu.Lock()
	busy := sess.polling || sess.websocket
	if !busy {
		sess.polling = true
	}
	sess.mu.Unlock()
	if busy {
		engineError(w, 3, "Bad request") // overlapping polls, or polling after the upgrade
		return
	}
	defer func() {
		sess.mu.Lock()
		sess.polling = false
		sess.mu.Unlock()
	}()
	timer := time.NewTimer(s.hub.pingInterval)
	defer timer.Stop()
	var packets []socketio.Packet
	select {
	case frame := <-sess.out:
		packets = append(packets, socketio.Packet{Type: frame[0], Data: frame[1:]})
	case <-sess.done:
		packets = append(packets, socketio.Packet{Type: socketio.Close})
	case <-timer.C:
		packets = append(packets, socketio.Packet{Type: socketio.Noop})
	case <-r.Context().Done():
		return
	}
more:
	for len(packets) < socketio.MaxPayloadPackets {
		select {
		case frame := <-sess.out:
			packets = append(packets, socketio.Packet{Type: frame[0], Data: frame[1:]})
		default:
			break more
		}
	}
	writePayload(w, packets...)
}

// serveWebSocket runs a session on a WebSocket: a new one, or, with sess,
// the upgrade of a polling session (probe, then the upgrade packet).
func (s *Server) serveWebSocket(w http.ResponseWriter, r *http.Request, sess *sioSession) {
	if sess != nil {
		sess.mu.Lock()
		busy := sess.websocket || sess.upgrading
		sess.upgrading = !busy
		sess.mu.Unlock()
		if busy {
			engineError(w, 3, "Bad request")
			return
		}
		defer func() {
			sess.mu.Lock()
			sess.upgrading = false
			sess.mu.Unlock()
		}()
	}
	fresh := sess == nil
	if fresh {
		var err error
		if sess, err = s.hub.open(true); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		go sess.watch()
	}
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		if fresh {
			sess.close()
		}
		return
	}
	defer conn.CloseNow()
	conn.SetReadLimit(maxSocketMessage)
	ctx := r.Context()
	if fresh {
		if conn.Write(ctx, websocket.MessageText, []byte(s.hub.handshake(sess, false))) != nil ||
			conn.Write(ctx, websocket.MessageText, []byte{socketio.Message, socketio.Connect}) != nil {
			sess.close()
			return
		}
	} else if !s.upgrade(ctx, conn, sess) {
		return // the session goes on polling
	}
	defer sess.close()
	go func() {
		// The writer: the session's frames, until it ends; then the
		// connection closes, which ends the reader below.
		defer conn.CloseNow()
		for {
			select {
			case frame := <-sess.out:
				wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				err := conn.Write(wctx, websocket.MessageText, []byte(frame))
				cancel()
				if err != nil {
					sess.close()
					return
				}
			case <-sess.done:
				return
			}
		}
	}()
	for {
		typ, b, err := conn.Read(ctx)
		if err != nil {
			return
		}
		sess.touch()
		if typ != websocket.MessageText {
			continue
		}
		if p, err := socketio.DecodePacket(string(b)); err == nil {
			s.handlePacket(sess, p)
		}
	}
}

// upgrade moves a polling session to conn: the client probes (2probe),
// the server answers (3probe) and releases the held poll with a noop, and
// the client's upgrade packet (5) completes it.
func (s *Server) upgrade(ctx context.Context, conn *websocket.Conn, sess *sioSession) bool {
	ctx, cancel := context.WithTimeout(ctx, s.hub.pingInterval+s.hub.pingTimeout)
	defer cancel()
	for probed := false; ; {
		_, b, err := conn.Read(ctx)
		if err != nil {
			return false
		}
		switch frame := string(b); {
		case frame == "2probe":
			if conn.Write(ctx, websocket.MessageText, []byte("3probe")) != nil {
				return false
			}
			probed = true
			sess.send(string(socketio.Noop))
		case frame == string(socketio.Upgrade) && probed:
			sess.mu.Lock()
			sess.websocket = true
			sess.mu.Unlock()
			sess.touch()
			return true
		default:
			return false
		}
	}
}

// handlePacket acts on one packet from a client.
func (s *Server) handlePacket(sess *sioSession, p socketio.Packet) {
	switch p.Type {
	case socketio.Ping:
		sess.send(string(socketio.Pong) + p.Data)
	case socketio.Close:
		sess.close()
	case socketio.Message:
		m, err := socketio.DecodeMsg(p.Data)
		if err != nil || m.Type != socketio.Event || m.Namespace != "/" || len(m.Args) == 0 {
			return
		}
		var arg struct {
			Channel string `json:"channel"`
			Auth    struct {
				Headers map[string]string `json:"headers"`
			} `json:"auth"`
		}
		if json.Unmarshal(m.Args[0], &arg) != nil {
			return
		}
		switch m.Event {
		case "subscribe":
			if status := s.authorize(arg.Channel, arg.Auth.Headers); status != 0 {
				frame, _ := socketio.EncodeEvent("subscription_error", arg.Channel, status)
				sess.send(frame)
				return
			}
			s.hub.join(sess, arg.Channel)
		case "unsubscribe":
			s.hub.leave(sess, arg.Channel)
		}
	}
}

// authorize checks a subscription as the API checks a read of the token:
// 0 when allowed, else the HTTP status the auth check answers.
func (s *Server) authorize(channel string, headers map[string]string) int {
	id, ok := strings.CutPrefix(channel, channelPrefix)
	if !ok || !uuidPattern.MatchString(id) {
		return http.StatusNotFound
	}
	key := ""
	for name, value := range headers {
		if strings.EqualFold(name, "Api-Key") {
			key = value
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tokens[id]
	switch {
	case t == nil || t.expired(s.now()):
		return http.StatusNotFound
	case key != "" && !s.keys[key], t.owner != "" && key != t.owner:
		return http.StatusForbidden
	}
	return 0
}

// announce tells the token's subscribers of a capture. It is called with
// s.mu held, so it must not block: a session that cannot take the frame
// is closed.
func (s *Server) announce(t *token, req *request) {
	channel := channelPrefix + t.UUID
	if s.noSocket || !s.hub.listened(channel) {
		return
	}
	frame, err := socketio.EncodeEvent("request.created", channel, map[string]any{
		"request": requestJSON(t, req), "variables": map[string]any{}, "runtime_variables": map[string]any{},
	})
	if err != nil {
		return
	}
	s.hub.publish(channel, frame)
}

// accepts reports whether a request with sess's sid may use transport:
// polling only while the session polls, a WebSocket only to upgrade it.
func (sess *sioSession) accepts(transport string) bool {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return !sess.websocket && (transport == "polling" || transport == "websocket")
}

// open starts a session, on a WebSocket or polling.
func (h *socketHub) open(websocket bool) (*sioSession, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.sessions) >= maxSocketSessions {
		return nil, fmt.Errorf("too many socket sessions (at most %d)", maxSocketSessions)
	}
	sess := &sioSession{
		sid: newUUID(), hub: h, out: make(chan string, sessionQueue), done: make(chan struct{}),
		active: make(chan struct{}, 1), joined: map[string]bool{}, websocket: websocket,
	}
	h.sessions[sess.sid] = sess
	return sess, nil
}

func (h *socketHub) session(sid string) *sioSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[sid]
}

// handshake is the open packet of sess.
func (h *socketHub) handshake(sess *sioSession, polling bool) string {
	upgrades := []string{}
	if polling {
		upgrades = []string{"websocket"}
	}
	return socketio.EncodeHandshake(socketio.Handshake{
		SID: sess.sid, Upgrades: upgrades,
		PingInterval: h.pingInterval.Milliseconds(), PingTimeout: h.pingTimeout.Milliseconds(),
	})
}

func (h *socketHub) join(sess *sioSession, channel string) {
	h.mu.Lock()
	select {
	case <-sess.done:
		h.mu.Unlock()
		return
	default:
	}
	if len(sess.joined) >= maxSessionSubscriptions && !sess.joined[channel] {
		h.mu.Unlock()
		// Sent without the lock: a full queue closes the session, which
		// takes it.
		frame, _ := socketio.EncodeEvent("subscription_error", channel, http.StatusTooManyRequests)
		sess.send(frame)
		return
	}
	defer h.mu.Unlock()
	sess.joined[channel] = true
	if h.channels[channel] == nil {
		h.channels[channel] = map[*sioSession]bool{}
	}
	h.channels[channel][sess] = true
	h.change()
}

// change wakes AwaitListened; h.mu is held.
func (h *socketHub) change() {
	close(h.changed)
	h.changed = make(chan struct{})
}

func (h *socketHub) leave(sess *sioSession, channel string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.leaveLocked(sess, channel)
}

func (h *socketHub) leaveLocked(sess *sioSession, channel string) {
	delete(sess.joined, channel)
	delete(h.channels[channel], sess)
	if len(h.channels[channel]) == 0 {
		delete(h.channels, channel)
	}
	h.change()
}

func (h *socketHub) listened(channel string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.channels[channel]) > 0
}

func (h *socketHub) publish(channel, frame string) {
	h.mu.Lock()
	listeners := make([]*sioSession, 0, len(h.channels[channel]))
	for sess := range h.channels[channel] {
		listeners = append(listeners, sess)
	}
	h.mu.Unlock()
	for _, sess := range listeners {
		sess.send(frame)
	}
}

// send queues a frame without blocking; a client too slow to take its
// queue loses its session, as a real server drops one.
func (sess *sioSession) send(frame string) {
	select {
	case <-sess.done:
	case sess.out <- frame:
	default:
		sess.close()
	}
}

func (sess *sioSession) touch() {
	select {
	case sess.active <- struct{}{}:
	default:
	}
}

// close ends the session and forgets its subscriptions.
func (sess *sioSession) close() {
	sess.once.Do(func() {
		close(sess.done)
		h := sess.hub
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.sessions, sess.sid)
		for channel := range sess.joined {
			h.leaveLocked(sess, channel)
		}
	})
}

// watch closes the session when its client sends no packet for a ping
// interval and timeout: one that only holds polls open is silent.
func (sess *sioSession) watch() {
	limit := sess.hub.pingInterval + sess.hub.pingTimeout
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for {
		select {
		case <-sess.active:
			timer.Reset(limit)
		case <-timer.C:
			sess.close()
			return
		case <-sess.done:
			return
		}
	}
}

// Listened reports whether any socket session is subscribed to channel
// (private-token.<uuid>), for tests of the clients that subscribe.
func (s *Server) Listened(channel string) bool { return s.hub.listened(channel) }

// AwaitListened returns once a socket session is subscribed to channel,
// or when ctx ends; a test waits on it before a capture it wants pushed.
func (s *Server) AwaitListened(ctx context.Context, channel string) error {
	for {
		s.hub.mu.Lock()
		ok, changed := len(s.hub.channels[channel]) > 0, s.hub.changed
		s.hub.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
