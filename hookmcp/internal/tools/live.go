package tools

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/hookmcp/internal/socketio"
)

// Live updates: the service pushes each capture over its socket
// (Socket.IO, see package socketio). The push is only a wake-up: a
// wait_for_request woken by it still lists the requests after its cursor,
// so the push never changes which request is returned, and a push lost or
// never sent costs a poll's delay, not a request.

// LiveOptions configure live updates. The socket's URL is the
// configuration's (config.Config.SocketURL); none turns the push off.
type LiveOptions struct {
	// HTTP dials the socket; a client that follows no redirect when nil.
	HTTP *http.Client
	// MaxWatched bounds the tokens watched at once, by waits and resource
	// subscriptions together.
	MaxWatched int
	// MaxSubscriptions bounds the resource subscriptions (a session and a
	// URI) held at once.
	MaxSubscriptions int
	// Linger keeps a token's socket subscription after its last wait ends,
	// so that the next wait in a debugging loop finds it open.
	Linger time.Duration
}

const (
	defaultMaxWatched       = 64
	defaultMaxSubscriptions = 256
	defaultLinger           = 2 * time.Minute
	// subscriptionPoll paces the polls of a subscribed token while its
	// socket is not live: the wait's slowest pace.
	subscriptionPoll = maxPollInterval
	// notifyEvery paces the notifications of one token's subscribers: a
	// flood of captures (anyone with the capture URL can send them) is told
	// at once, then at most once per notifyEvery, the last one trailing.
	notifyEvery = time.Second
)

// live holds the service's push of new requests, per token, and the
// subscriptions to the requests resource.
type live struct {
	h          *handlers
	client     *socketio.Client // nil when the push is off
	linger     time.Duration
	maxWatched int
	maxSubs    int
	server     *mcp.Server

	mu       sync.Mutex
	watched  map[hooksvc.TokenID]*watched
	subs     map[resourceSub]*watched
	sessions map[*mcp.ServerSession]bool // sessions whose end is watched
}

func (h *handlers) newLive(opts Options) *live {
	l := &live{
		h:          h,
		linger:     opts.Live.Linger,
		maxWatched: opts.Live.MaxWatched,
		maxSubs:    opts.Live.MaxSubscriptions,
		watched:    map[hooksvc.TokenID]*watched{},
		subs:       map[resourceSub]*watched{},
		sessions:   map[*mcp.ServerSession]bool{},
	}
	if l.linger <= 0 {
		l.linger = defaultLinger
	}
	if l.maxWatched <= 0 {
		l.maxWatched = defaultMaxWatched
	}
	if l.maxSubs <= 0 {
		l.maxSubs = defaultMaxSubscriptions
	}
	if u := opts.Config.SocketURL; u != nil {
		l.client = socketio.NewClient(socketio.Options{
			URL: u, HTTP: opts.Live.HTTP, Logger: opts.Logger, MaxSubscriptions: l.maxWatched,
		})
	}
	return l
}

// serverOptions sets what live updates need in the server's options.
func (l *live) serverOptions(o *mcp.ServerOptions) {
	o.SubscribeHandler = l.subscribe
	o.UnsubscribeHandler = l.unsubscribe
}

// attach gives live updates the server they notify through.
func (l *live) attach(s *mcp.Server) { l.server = s }

// watched is one token's push: its socket subscription (none when the push
// is off), who holds it, and the wake-up it broadcasts.
type watched struct {
	l      *live
	token  hooksvc.TokenID
	ctx    context.Context // ends when the token is no longer watched
	cancel context.CancelFunc

	// Guarded by l.mu.
	key         string
	sub         *socketio.Subscription
	waits       int         // wait_for_request calls holding it
	subscribers int         // resource subscriptions holding it
	idle        *time.Timer // ends it after the linger, once unheld
	idleSince   time.Time   // when it became unheld
	// The newest request's cursor the subscribers know of: read before
	// the first subscribe returns, then moved by each poll that finds a
	// newer one (and notifies). Unknown (known false) without subscribers.
	cursor int64
	known  bool

	kick chan struct{} // a subscriber came or went: run looks again

	// mu may be taken under l.mu (hold does), never l.mu under it.
	mu     sync.Mutex
	pushes uint64        // request.created events received
	woken  chan struct{} // closed, and replaced, at each push, and when the socket stops being live
	// The socket's failures (down or refused) run has seen, counted, and
	// the latest, with the subscription it ended: a wait's note tells one
	// that came and went between two polls, which a look at the state
	// when the wait ends may not see (a socket that drops as it opens is
	// live for an instant each time it reconnects).
	failures  uint64
	failure   error
	failedSub *socketio.Subscription
}

// acquire holds token's watch, creating it (and its socket subscription
// with key) when needed. It fails past MaxWatched.
func (l *live) acquire(token hooksvc.TokenID, key string, subscriber bool) (*watched, error) {
	w, _, err := l.hold(token, key, subscriber)
	return w, err
}

// hold is acquire, and returns the count of the socket's failures as the
// hold is taken: read later, a socket that opens and drops at once could
// have failed in between, and that failure would pass for one before the
// wait.
func (l *live) hold(token hooksvc.TokenID, key string, subscriber bool) (*watched, uint64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.watched[token]
	if w == nil {
		if len(l.watched) >= l.maxWatched {
			l.dropOldestIdle()
		}
		if len(l.watched) >= l.maxWatched {
			return nil, 0, fmt.Errorf("too many tokens watched at once (at most %d)", l.maxWatched)
		}
		ctx, cancel := context.WithCancel(context.Background())
		w = &watched{l: l, token: token, ctx: ctx, cancel: cancel, woken: make(chan struct{}), kick: make(chan struct{}, 1)}
		l.watched[token] = w
		w.resubscribe(key)
		go w.run()
	} else if w.sub != nil && key != w.key {
		// A refusal names only the channel: a subscription refused for
		// one key is tried again with another.
		if state, _, _ := w.sub.Status(); state == socketio.Refused {
			w.resubscribe(key)
		}
	}
	if w.idle != nil {
		w.idle.Stop()
		w.idle = nil
	}
	if subscriber {
		w.subscribers++
		w.poke()
	} else {
		w.waits++
	}
	failures, _ := w.failuresSince(0)
	return w, failures, nil
}

// dropOldestIdle ends the watch that has lingered unheld the longest, if
// any: a lingering watch only saves the next wait a reconnect, and must not
// keep a new token from being watched. l.mu is held.
func (l *live) dropOldestIdle() {
	var oldest *watched
	for _, w := range l.watched {
		if w.idle != nil && (oldest == nil || w.idleSince.Before(oldest.idleSince)) {
			oldest = w
		}
	}
	if oldest != nil {
		oldest.idle.Stop()
		oldest.end()
	}
}

// end stops watching w's token; l.mu is held.
func (w *watched) end() {
	delete(w.l.watched, w.token)
	w.cancel()
	if w.sub != nil {
		w.sub.Close()
	}
}

// baseline reads the token's newest request, for a subscription about to
// be confirmed, unless its subscribers already know one: requests from
// then on notify, even one captured the moment the subscribe returns.
// When it cannot be read, every request is new to the first poll that
// can, so a capture may notify twice but never not at all.
func (w *watched) baseline() {
	l := w.l
	l.mu.Lock()
	known := w.known
	l.mu.Unlock()
	if known {
		return
	}
	newest, ok := w.newest(0)
	l.mu.Lock()
	defer l.mu.Unlock()
	if !w.known && w.subscribers > 0 {
		w.cursor, w.known = newest, true
		if !ok {
			w.cursor = 0
		}
	}
}

// advance moves the subscribers' cursor to newest and reports whether that
// is a new request to tell them of.
func (w *watched) advance(newest int64) bool {
	w.l.mu.Lock()
	defer w.l.mu.Unlock()
	if w.subscribers == 0 {
		return false
	}
	if !w.known {
		w.cursor, w.known = newest, true
		return false
	}
	if newest <= w.cursor {
		return false
	}
	w.cursor = newest
	return true
}

func (w *watched) poke() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// resubscribe replaces the socket subscription; l.mu is held.
func (w *watched) resubscribe(key string) {
	if w.l.client == nil {
		return
	}
	if w.sub != nil {
		// Closed first, so that the client's bound, which MaxWatched
		// keeps, is not passed for a moment; closing wakes run, which
		// then reads the new one.
		w.sub.Close()
	}
	w.key = key
	// An error is that bound: the token is then polled.
	w.sub, _ = w.l.client.Subscribe("private-token."+string(w.token), key)
}

// release lets go of one hold; the last one starts the linger, after which
// the socket subscription is closed.
func (w *watched) release(subscriber bool) {
	l := w.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if subscriber {
		w.subscribers--
		if w.subscribers == 0 {
			w.known = false
		}
		w.poke()
	} else {
		w.waits--
	}
	if w.waits > 0 || w.subscribers > 0 {
		return
	}
	w.idleSince = time.Now()
	linger := l.linger
	if subscriber {
		linger = 0 // a subscription ended: nothing waits to reuse it soon
	}
	w.idle = time.AfterFunc(linger, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if w.waits > 0 || w.subscribers > 0 || l.watched[w.token] != w {
			return
		}
		w.end()
	})
}

// status is the socket's state for this token, and why it is not live.
func (w *watched) status() (socketio.State, string, <-chan struct{}) {
	w.l.mu.Lock()
	sub := w.sub
	w.l.mu.Unlock()
	if sub == nil {
		if w.l.client == nil {
			return socketio.Closed, "off", nil
		}
		return socketio.Closed, "too many socket subscriptions", nil
	}
	state, err, changed := sub.Status()
	reason := state.String()
	if err != nil {
		reason = err.Error()
	}
	if state == socketio.Connecting {
		// Connecting again after this subscription failed: the failure is
		// why it is not live.
		w.mu.Lock()
		if w.failedSub == sub {
			reason = w.failure.Error() + "; reconnecting"
		}
		w.mu.Unlock()
	}
	return state, reason, changed
}

// failed records the socket's state as run sees it: a new failure is
// counted, once however often it is seen.
func (w *watched) failed(sub *socketio.Subscription, state socketio.State, err error) {
	if err == nil || state != socketio.Down && state != socketio.Refused {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if sub == w.failedSub && errors.Is(err, w.failure) {
		return
	}
	w.failures++
	w.failure, w.failedSub = err, sub
}

// failuresSince is the count of failures, and the latest if there were
// more than n.
func (w *watched) failuresSince(n uint64) (uint64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failures > n {
		return w.failures, w.failure
	}
	return w.failures, nil
}

// signal returns a channel closed at the next push or when the socket
// stops being live, and the count of pushes so far.
func (w *watched) signal() (<-chan struct{}, uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.woken, w.pushes
}

func (w *watched) pushesSince(n uint64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pushes > n
}

func (w *watched) wake(push bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if push {
		w.pushes++
	}
	close(w.woken)
	w.woken = make(chan struct{})
}

// run relays the socket's pushes and changes to the token's waits and
// resource subscribers, and polls for the subscribers while the socket is
// not live, and once each time it becomes live (a capture while it was not
// may have been neither pushed nor polled yet), until the token is no
// longer watched.
func (w *watched) run() {
	poll := time.NewTimer(subscriptionPoll)
	defer poll.Stop()
	trail := time.NewTimer(notifyEvery)
	trail.Stop()
	defer trail.Stop()
	var lastNotify time.Time
	pending := false // a notification waits for trail
	tell := func() {
		if since := time.Since(lastNotify); !lastNotify.IsZero() && since < notifyEvery {
			if !pending {
				pending = true
				trail.Reset(notifyEvery - since)
			}
			return
		}
		lastNotify = time.Now()
		w.l.notify(w)
	}
	check := func() {
		if newest, ok := w.newest(0); ok && w.advance(newest) {
			tell()
		}
	}
	for {
		w.l.mu.Lock()
		sub, subscribed := w.sub, w.subscribers > 0
		w.l.mu.Unlock()
		var events <-chan socketio.PushEvent
		var changed <-chan struct{}
		state := socketio.Closed
		if sub != nil {
			var err error
			state, err, changed = sub.Status()
			events = sub.Events()
			// Seen here after every change: a failure lasts at least the
			// client's backoff, so none passes unseen.
			w.failed(sub, state, err)
		}
		var tick <-chan time.Time
		if subscribed && state != socketio.Live {
			tick = poll.C
		}
		select {
		case <-w.ctx.Done():
			return
		case ev := <-events:
			if ev.Name != "request.created" {
				continue
			}
			w.wake(true)
			if subscribed {
				tell()
			}
		case <-changed:
			// A socket that stops being live wakes the waits, which poll
			// at once (a push may have been lost) and at the polling pace
			// after. One that becomes live is caught up with once: a
			// capture between the last poll and the subscribe was pushed
			// to no one.
			now, _, _ := sub.Status()
			switch {
			case state == socketio.Live && now != socketio.Live:
				w.wake(false)
			case state != socketio.Live && now == socketio.Live:
				w.wake(false)
				if subscribed {
					check()
				}
			}
		case <-w.kick:
		case <-trail.C:
			if pending {
				pending = false
				lastNotify = time.Now()
				w.l.notify(w)
			}
		case <-tick:
			check()
			poll.Reset(subscriptionPoll)
		}
	}
}

// newest is the token's newest request's cursor (at least floor), read
// with the configured key as the resource is, and whether it was read.
func (w *watched) newest(floor int64) (int64, bool) {
	ctx, cancel := context.WithTimeout(w.ctx, w.l.h.cfg.Timeout)
	defer cancel()
	newest, _, err := w.l.h.newestCursor(ctx, w.l.h.cfg.APIKey, w.token)
	if err != nil {
		w.l.h.logger.Debug("resource subscription: poll failed", "token", w.token, "error", err)
		return floor, false
	}
	return max(floor, newest), true
}

// notify tells the sessions subscribed to w's token's requests resource,
// under each URI they subscribed with (a UUID's case may differ).
func (l *live) notify(w *watched) {
	if l.server == nil {
		return
	}
	uris := map[string]bool{}
	l.mu.Lock()
	for key, held := range l.subs {
		if held == w {
			uris[key.uri] = true
		}
	}
	l.mu.Unlock()
	ctx, cancel := context.WithTimeout(w.ctx, 10*time.Second)
	defer cancel()
	for uri := range uris {
		l.server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
	}
}

// liveWait is one wait_for_request's view of the push.
type liveWait struct {
	w   *watched // nil when the token is polled only
	why string   // why, when w is nil
	// failures is the socket's count of failures when the wait began.
	failures uint64
}

// wait holds token's push for one wait_for_request call; release it when
// the call ends.
func (l *live) wait(token hooksvc.TokenID, key string) liveWait {
	if l.client == nil {
		return liveWait{why: "off (--socket-url off, or none for this API)"}
	}
	w, failures, err := l.hold(token, key, false)
	if err != nil {
		return liveWait{why: err.Error()}
	}
	return liveWait{w: w, failures: failures}
}

func (lw liveWait) release() {
	if lw.w != nil {
		lw.w.release(false)
	}
}

// state says whether the push is live, and why not.
func (lw liveWait) state() (bool, string) {
	if lw.w == nil {
		return false, lw.why
	}
	state, reason, _ := lw.w.status()
	return state == socketio.Live, reason
}

// live says whether the push is live, with a channel closed when that
// state changes (nil when the token is polled only).
func (lw liveWait) live() (bool, <-chan struct{}) {
	if lw.w == nil {
		return false, nil
	}
	state, _, changed := lw.w.status()
	return state == socketio.Live, changed
}

// signal is watched.signal, or a channel that never closes.
func (lw liveWait) signal() (<-chan struct{}, uint64) {
	if lw.w == nil {
		return nil, 0
	}
	return lw.w.signal()
}

func (lw liveWait) pushedSince(n uint64) bool { return lw.w != nil && lw.w.pushesSince(n) }

// failure is why the socket last failed (dropped, could not open, or
// refused the subscription) since the wait began; nil if it did not.
func (lw liveWait) failure() error {
	if lw.w == nil {
		return nil
	}
	_, err := lw.w.failuresSince(lw.failures)
	return err
}
