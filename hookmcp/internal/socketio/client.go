package socketio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Defaults of Options.
const (
	DefaultDialTimeout      = 5 * time.Second
	DefaultReadLimit        = 1 << 20
	DefaultMaxSubscriptions = 64
	DefaultMinBackoff       = time.Second
	DefaultMaxBackoff       = time.Minute
	// maxPingInterval and maxPingTimeout bound what a server's open packet
	// may ask for: a dead connection is noticed within their sum.
	maxPingInterval = time.Minute
	maxPingTimeout  = time.Minute
)

// Options configure a Client.
type Options struct {
	// URL is the server's base: ws, wss, http or https, its path the
	// prefix of /socket.io/.
	URL *url.URL
	// HTTP dials the WebSocket; one that follows no redirect when nil.
	HTTP   *http.Client
	Logger *slog.Logger
	// DialTimeout bounds a connection's dial and handshake (the open
	// packet and the namespace's connect) and every write.
	DialTimeout time.Duration
	// ReadLimit bounds one message from the server, in bytes.
	ReadLimit int64
	// MaxSubscriptions bounds the subscriptions open at once.
	MaxSubscriptions int
	// MinBackoff and MaxBackoff bound the wait before a reconnection: it
	// doubles from the first to the second after each failure.
	MinBackoff, MaxBackoff time.Duration
}

// State is where a subscription stands.
type State int

const (
	// Connecting: the connection is being opened; no event can arrive yet.
	Connecting State = iota
	// Live: the subscribe was sent on an open connection; events arrive.
	Live
	// Refused: the server answered subscription_error with 401, 403 or
	// 404 (no such token, or a key that cannot read it). Final.
	Refused
	// Down: the connection failed or dropped, or the server refused the
	// subscription with another status (its auth call failed: 5xx, 429);
	// the client reconnects, or subscribes again, after a backoff.
	Down
	// Closed: the subscription or the client was closed. Final.
	Closed
)

func (s State) String() string {
	return [...]string{"connecting", "live", "refused", "down", "closed"}[s]
}

// ErrTooManySubscriptions is Subscribe's error past Options.MaxSubscriptions.
var ErrTooManySubscriptions = errors.New("too many socket subscriptions open")

// ErrClosed is Subscribe's error after Close.
var ErrClosed = errors.New("socket client closed")

// PushEvent is one event the server pushed on a subscribed channel.
type PushEvent struct {
	Name    string
	Channel string
	Data    json.RawMessage // the argument after the channel; may be empty
}

// Client keeps one connection to a Socket.IO protocol 2 server while it has
// subscriptions, reconnecting with a backoff when it drops, and closes it
// when the last subscription closes.
type Client struct {
	opts   Options
	ctx    context.Context // ends at Close
	cancel context.CancelFunc

	mu      sync.Mutex
	subs    map[*Subscription]bool
	running bool               // the connection's goroutine runs
	done    chan struct{}      // closed when that goroutine ends
	stop    context.CancelFunc // ends the current connection, when one is open
	kick    chan struct{}      // a subscription was added or closed
	lastErr error              // why the last connection ended
	conns   uint64             // connections opened, numbering them from 1
	backoff bool               // waiting before reconnecting
}

// NewClient returns a client; it connects on the first Subscribe.
func NewClient(opts Options) *Client {
	if opts.HTTP == nil {
		opts.HTTP = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	opts.DialTimeout = defaultTo(opts.DialTimeout, DefaultDialTimeout)
	opts.ReadLimit = defaultTo(opts.ReadLimit, DefaultReadLimit)
	opts.MaxSubscriptions = defaultTo(opts.MaxSubscriptions, DefaultMaxSubscriptions)
	opts.MinBackoff = defaultTo(opts.MinBackoff, DefaultMinBackoff)
	opts.MaxBackoff = max(defaultTo(opts.MaxBackoff, DefaultMaxBackoff), opts.MinBackoff)
	ctx, cancel := context.WithCancel(context.Background())
	return &Client{opts: opts, ctx: ctx, cancel: cancel, subs: map[*Subscription]bool{}, kick: make(chan struct{}, 1)}
}

func defaultTo[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Endpoint is the WebSocket URL the client dials.
func (c *Client) Endpoint() string {
	u := *c.opts.URL
	switch u.Scheme {
	case "http":
		u.Scheme = "ws"
	case "https":
		u.Scheme = "wss"
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/socket.io/"
	u.RawPath, u.RawQuery, u.Fragment = "", "EIO=3&transport=websocket", ""
	return u.String()
}

// Subscription is one channel subscribed to with its credentials.
type Subscription struct {
	c       *Client
	channel string
	key     string // sent as the Api-Key auth header; "" sends none
	events  chan PushEvent

	// Guarded by c.mu.
	state   State
	reason  error
	changed chan struct{} // closed, and replaced, when state changes
	sentOn  uint64        // the connection the subscribe was sent on
	// After a refusal that may pass, the subscribe is sent again (on
	// whatever connection is open) no sooner than retryAt; retryWait
	// doubles from MinBackoff to MaxBackoff with each such refusal.
	retryAt   time.Time
	retryWait time.Duration
}

// subscriptionBuffer is how many events wait for a slow reader; later
// ones are dropped (a reader that fell behind lists what it missed).
const subscriptionBuffer = 16

// Subscribe joins channel, sending key (when not empty) as its Api-Key
// auth header, and connects if no connection is open.
func (c *Client) Subscribe(channel, key string) (*Subscription, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctx.Err() != nil {
		return nil, ErrClosed
	}
	if len(c.subs) >= c.opts.MaxSubscriptions {
		return nil, fmt.Errorf("%w (at most %d)", ErrTooManySubscriptions, c.opts.MaxSubscriptions)
	}
	s := &Subscription{c: c, channel: channel, key: key, events: make(chan PushEvent, subscriptionBuffer), changed: make(chan struct{})}
	if c.backoff {
		s.state, s.reason = Down, c.lastErr
	}
	c.subs[s] = true
	if !c.running {
		c.running, c.done = true, make(chan struct{})
		go c.run()
	}
	c.poke()
	return s, nil
}

// Events are the events pushed on the channel.
func (s *Subscription) Events() <-chan PushEvent { return s.events }

// Channel is the subscribed channel's name.
func (s *Subscription) Channel() string { return s.channel }

// Status is the subscription's state, why it is Down or Refused, and a
// channel closed at its next change.
func (s *Subscription) Status() (State, error, <-chan struct{}) {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	return s.state, s.reason, s.changed
}

// Close leaves the channel; the last subscription's Close closes the
// connection.
func (s *Subscription) Close() {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.subs[s] {
		return
	}
	delete(c.subs, s)
	s.set(Closed, nil)
	if len(c.subs) == 0 && c.stop != nil {
		c.stop()
	}
	c.poke()
}

// Close ends every subscription and the connection, and waits for its
// goroutine to end.
func (c *Client) Close() {
	c.cancel()
	c.mu.Lock()
	for s := range c.subs {
		s.set(Closed, ErrClosed)
	}
	clear(c.subs)
	done := c.done
	c.mu.Unlock()
	if done != nil {
		<-done
	}
}

// set changes the state; c.mu is held.
func (s *Subscription) set(state State, reason error) {
	if s.state == state && errors.Is(reason, s.reason) || s.state == Closed || s.state == Refused && state != Closed {
		return
	}
	s.state, s.reason = state, reason
	close(s.changed)
	s.changed = make(chan struct{})
}

// poke tells the connection's goroutine that the subscriptions changed;
// c.mu is held.
func (c *Client) poke() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// run connects, reconnects after failures, and ends when no subscription
// is left or the client is closed.
func (c *Client) run() {
	defer func() {
		c.mu.Lock()
		c.running, c.backoff = false, false
		close(c.done)
		c.mu.Unlock()
	}()
	wait := c.opts.MinBackoff
	for {
		c.mu.Lock()
		if len(c.subs) == 0 || c.ctx.Err() != nil {
			c.mu.Unlock()
			return
		}
		ctx, stop := context.WithCancel(c.ctx)
		c.stop, c.backoff = stop, false
		for s := range c.subs {
			if s.state == Down && !s.waitsRetry(time.Now()) {
				s.set(Connecting, nil)
			}
		}
		c.mu.Unlock()
		began := time.Now()
		opened, err := c.connect(ctx)
		// Stopped because the last subscription closed: a Subscribe since
		// then reconnects at once.
		stopped := ctx.Err() != nil
		stop()
		if opened && time.Since(began) >= c.opts.MaxBackoff {
			// A connection that held starts the backoff afresh; one that
			// opens and drops at once keeps slowing down.
			wait = c.opts.MinBackoff
		}
		c.mu.Lock()
		c.stop = nil
		if len(c.subs) == 0 || c.ctx.Err() != nil {
			c.mu.Unlock()
			return
		}
		if stopped {
			c.mu.Unlock()
			continue
		}
		c.lastErr = err
		c.backoff = true
		for s := range c.subs {
			s.set(Down, err)
		}
		c.mu.Unlock()
		c.opts.Logger.Debug("socket down; reconnecting later", "endpoint", c.Endpoint(), "error", err, "after", wait)
		timer := time.NewTimer(wait)
		select {
		case <-timer.C:
		case <-c.ctx.Done():
			timer.Stop()
			return
		}
		wait = min(wait*2, c.opts.MaxBackoff)
	}
}

// connect runs one connection until it fails or ctx ends, and reports
// whether it opened.
func (c *Client) connect(ctx context.Context) (bool, error) {
	dialCtx, cancel := context.WithTimeout(ctx, c.opts.DialTimeout)
	defer cancel()
	conn, resp, err := websocket.Dial(dialCtx, c.Endpoint(), &websocket.DialOptions{HTTPClient: c.opts.HTTP})
	if err != nil {
		if resp != nil {
			return false, fmt.Errorf("cannot open the socket at %s: it answered HTTP %d", c.Endpoint(), resp.StatusCode)
		}
		return false, fmt.Errorf("cannot open the socket at %s: %w", c.Endpoint(), unwrapDial(ctx, err))
	}
	defer conn.CloseNow()
	conn.SetReadLimit(c.opts.ReadLimit)
	frames := make(chan string)
	readErr := make(chan error, 1)
	go func() {
		for {
			typ, b, err := conn.Read(ctx)
			if err != nil {
				readErr <- err
				return
			}
			if typ != websocket.MessageText {
				continue // binary attachments: the push sends none
			}
			select {
			case frames <- string(b):
			case <-ctx.Done():
				readErr <- ctx.Err()
				return
			}
		}
	}()
	hs, err := c.handshake(dialCtx, frames, readErr)
	if err != nil {
		return false, err
	}
	return true, c.serve(ctx, conn, hs, frames, readErr)
}

func unwrapDial(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return errors.New("no answer in time")
	}
	return err
}

// handshake reads the open packet and the default namespace's connect.
func (c *Client) handshake(ctx context.Context, frames <-chan string, readErr <-chan error) (Handshake, error) {
	var hs Handshake
	for opened := false; ; {
		var frame string
		select {
		case frame = <-frames:
		case err := <-readErr:
			return Handshake{}, fmt.Errorf("socket at %s closed during its handshake: %w", c.Endpoint(), err)
		case <-ctx.Done():
			return Handshake{}, fmt.Errorf("socket at %s did not finish its handshake within %s", c.Endpoint(), c.opts.DialTimeout)
		}
		p, err := DecodePacket(frame)
		if err != nil {
			return Handshake{}, fmt.Errorf("socket at %s: %w", c.Endpoint(), err)
		}
		switch {
		case !opened && p.Type != Open:
			return Handshake{}, fmt.Errorf("socket at %s did not start with an Engine.IO open packet", c.Endpoint())
		case !opened:
			if hs, err = DecodeHandshake(p.Data); err != nil {
				return Handshake{}, fmt.Errorf("socket at %s: %w", c.Endpoint(), err)
			}
			opened = true
		case p.Type == Message:
			m, err := DecodeMsg(p.Data)
			if err == nil && m.Type == Connect && m.Namespace == "/" {
				return hs, nil
			}
			if err == nil && m.Type == Error && m.Namespace == "/" {
				return Handshake{}, fmt.Errorf("socket at %s refused the connection", c.Endpoint())
			}
		}
	}
}

// serve subscribes, pings and reads events until the connection fails or
// ctx ends.
func (c *Client) serve(ctx context.Context, conn *websocket.Conn, hs Handshake, frames <-chan string, readErr <-chan error) error {
	interval, timeout := hs.Interval(maxPingInterval), hs.Timeout(maxPingTimeout)
	c.mu.Lock()
	c.conns++
	session := c.conns
	c.mu.Unlock()
	write := func(frame string) error {
		wctx, cancel := context.WithTimeout(ctx, c.opts.DialTimeout)
		defer cancel()
		return conn.Write(wctx, websocket.MessageText, []byte(frame))
	}
	pingAt := time.NewTimer(interval)
	defer pingAt.Stop()
	pongTimer := time.NewTimer(timeout)
	pongTimer.Stop()
	defer pongTimer.Stop()
	var pongBy <-chan time.Time // pongTimer's channel while a ping awaits its pong
	retryTimer := time.NewTimer(time.Hour)
	retryTimer.Stop()
	defer retryTimer.Stop()
	joined := map[string]bool{} // channels subscribed on this connection
	for {
		next, err := c.sync(session, joined, write)
		if err != nil {
			return fmt.Errorf("socket at %s: cannot write: %w", c.Endpoint(), err)
		}
		var retryAt <-chan time.Time // fires when a refused subscribe may be sent again
		if next.IsZero() {
			retryTimer.Stop()
		} else {
			retryTimer.Reset(time.Until(next))
			retryAt = retryTimer.C
		}
		select {
		case <-retryAt:
		case <-ctx.Done():
			conn.Close(websocket.StatusNormalClosure, "")
			return ctx.Err()
		case <-c.kick:
		case err := <-readErr:
			return fmt.Errorf("socket at %s dropped: %w", c.Endpoint(), err)
		case <-pingAt.C:
			if err := write(string(Ping)); err != nil {
				return fmt.Errorf("socket at %s: cannot ping: %w", c.Endpoint(), err)
			}
			pongTimer.Reset(timeout)
			pongBy = pongTimer.C
		case <-pongBy:
			return fmt.Errorf("socket at %s did not answer a ping within %s", c.Endpoint(), timeout)
		case frame := <-frames:
			p, err := DecodePacket(frame)
			if err != nil {
				c.opts.Logger.Debug("socket: frame ignored", "error", err)
				continue
			}
			switch p.Type {
			case Pong:
				if pongBy != nil {
					pongTimer.Stop()
					pongBy = nil
					pingAt.Reset(interval)
				}
			case Ping:
				// Protocol 4 servers ping; answering costs nothing.
				if err := write(string(Pong) + p.Data); err != nil {
					return fmt.Errorf("socket at %s: cannot answer a ping: %w", c.Endpoint(), err)
				}
			case Close:
				return fmt.Errorf("socket at %s was closed by the server", c.Endpoint())
			case Message:
				if err := c.dispatch(p.Data); err != nil {
					return fmt.Errorf("socket at %s: %w", c.Endpoint(), err)
				}
			}
		}
	}
}

// waitsRetry reports whether s was refused for a reason that may pass and
// its backoff runs until after now; c.mu is held.
func (s *Subscription) waitsRetry(now time.Time) bool {
	return !s.retryAt.IsZero() && now.Before(s.retryAt)
}

// sync sends subscribe for each subscription not yet sent on this
// connection, and unsubscribe for channels no subscription holds any more.
// It returns when the next refused subscription may be sent again (zero
// when none waits).
func (c *Client) sync(session uint64, joined map[string]bool, write func(string) error) (time.Time, error) {
	c.mu.Lock()
	var frames []string
	var next time.Time
	held := map[string]bool{}
	now := time.Now()
	for s := range c.subs {
		held[s.channel] = true
		if s.sentOn == session || s.state == Refused {
			continue
		}
		if s.waitsRetry(now) {
			if next.IsZero() || s.retryAt.Before(next) {
				next = s.retryAt
			}
			continue
		}
		headers := map[string]string{}
		if s.key != "" {
			headers["Api-Key"] = s.key
		}
		frame, err := EncodeEvent("subscribe", map[string]any{"channel": s.channel, "auth": map[string]any{"headers": headers}})
		if err != nil {
			c.mu.Unlock()
			return time.Time{}, err
		}
		frames = append(frames, frame)
		s.sentOn = session
		joined[s.channel] = true
		s.set(Live, nil)
	}
	c.mu.Unlock()
	for channel := range joined {
		if held[channel] {
			continue
		}
		frame, err := EncodeEvent("unsubscribe", map[string]any{"channel": channel})
		if err != nil {
			return time.Time{}, err
		}
		frames = append(frames, frame)
		delete(joined, channel)
	}
	for _, f := range frames {
		if err := write(f); err != nil {
			return time.Time{}, err
		}
	}
	return next, nil
}

// dispatch handles one Socket.IO packet from the server.
func (c *Client) dispatch(data string) error {
	m, err := DecodeMsg(data)
	if err != nil {
		c.opts.Logger.Debug("socket: packet ignored", "error", err)
		return nil
	}
	if m.Namespace != "/" {
		// The push lives on the default namespace; a packet for another
		// (a server's other namespaces) neither ends this one nor is an
		// event of its channels.
		return nil
	}
	switch m.Type {
	case Disconnect:
		return errors.New("the server disconnected the namespace")
	case Error:
		return errors.New("the server sent an error packet")
	case Event:
	default:
		return nil
	}
	var channel string
	if len(m.Args) == 0 || json.Unmarshal(m.Args[0], &channel) != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for s := range c.subs {
		if s.channel != channel {
			continue
		}
		if m.Event == "subscription_error" {
			c.refused(s, m.Args[1:])
			continue
		}
		s.retryWait = 0 // an event proves the subscription holds
		ev := PushEvent{Name: m.Event, Channel: channel}
		if len(m.Args) > 1 {
			ev.Data = m.Args[1]
		}
		select {
		case s.events <- ev:
		default:
			// The reader is behind; it lists what it missed.
		}
	}
	return nil
}

// refused handles subscription_error for s; args follow the channel, the
// first the status of laravel-echo-server's auth call. c.mu is held.
func (c *Client) refused(s *Subscription, args []json.RawMessage) {
	status := -1 // none, or not a small number: the auth call never answered
	if len(args) > 0 {
		var n int
		if json.Unmarshal(args[0], &n) == nil && n >= 0 && n < 1000 {
			status = n
		}
	}
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		// The key cannot read the token, or there is no such token: no
		// retry changes that.
		s.set(Refused, fmt.Errorf("the socket server refused the subscription to %s (status %d)", s.channel, status))
		return
	}
	// The echo server sends the same event when its auth call failed
	// (5xx, 429, no answer): that passes, so subscribe again later.
	s.retryWait = min(max(s.retryWait*2, c.opts.MinBackoff), c.opts.MaxBackoff)
	s.retryAt = time.Now().Add(s.retryWait)
	s.sentOn = 0
	what := "no status"
	if status >= 0 {
		what = fmt.Sprintf("status %d", status)
	}
	s.set(Down, fmt.Errorf("the socket server could not check the subscription to %s (%s); subscribing again in %s", s.channel, what, s.retryWait))
	c.poke()
}
