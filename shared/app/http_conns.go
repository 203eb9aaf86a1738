package app

import (
	"context"
	"net"
	"net/http"
	"sync"
)

// connRegistry keeps the HTTP listener's connections under its cap without
// letting connections that never proved anything starve those that did.
//
// A cap that makes Accept wait (netutil.LimitListener) lets anyone who can
// open connections fill it with silent ones and hold every client, token or
// not, out until the header timeout, and again after each reconnect. So at
// the cap a new connection takes the place of the oldest one that is
// evictable: never admitted (no request on it carried the token, see admit)
// and not inside a request (no full header read, or idle between requests).
// A connection whose request is being served is never cut, and an admitted
// keep-alive connection stays until its idle timeout. Only when every
// connection is admitted or busy does Accept wait for one to close.
//
// The connection evicted is the oldest of the remote IP that holds the most
// unadmitted ones, and perAddr bounds one IP's unadmitted connections the
// same way: an address that floods the listener pushes out its own
// connections, not those of other clients that have not yet sent their
// header.
type connRegistry struct {
	cap, perAddr int
	// onEvict, when set, is told the remote address of every connection
	// closed to make room (tests wait on it).
	onEvict func(remote net.Addr)

	mu sync.Mutex
	// conns are the connections counted against the cap, oldest first.
	conns []*trackedConn
	// freed is signalled whenever a connection leaves conns or becomes
	// evictable.
	freed chan struct{}
}

func newConnRegistry(limits httpLimits) *connRegistry {
	return &connRegistry{cap: limits.conns, perAddr: limits.perAddr, onEvict: limits.onEvict, freed: make(chan struct{}, 1)}
}

// trackedConn is a connection the registry counts. Its fields after conn
// are guarded by the registry's mu.
type trackedConn struct {
	net.Conn
	reg  *connRegistry
	host string
	// admitted: a request on it was let through by the guard.
	admitted bool
	// busy: the server has read a request's header and not yet finished
	// its answer (http.StateActive), or handed the connection off.
	busy bool
	// counted: it is still in reg.conns.
	counted bool
}

// Close frees the descriptor before the slot, so that the listener never
// holds more than its cap and the one connection just accepted.
func (c *trackedConn) Close() error {
	err := c.Conn.Close()
	c.reg.release(c)
	return err
}

func (c *trackedConn) evictable() bool { return !c.admitted && !c.busy }

// admit marks the connection as having carried an admitted request.
func (c *trackedConn) admit() {
	c.reg.mu.Lock()
	c.admitted = true
	c.reg.mu.Unlock()
}

// listener wraps inner so that its connections are counted and capped.
func (r *connRegistry) listener(inner net.Listener) net.Listener {
	return &registryListener{Listener: inner, reg: r, closed: make(chan struct{})}
}

// release takes c out of the count; it is safe to call more than once.
func (r *connRegistry) release(c *trackedConn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.removeLocked(c)
}

func (r *connRegistry) removeLocked(c *trackedConn) {
	if !c.counted {
		return
	}
	c.counted = false
	for i, other := range r.conns {
		if other == c {
			r.conns = append(r.conns[:i], r.conns[i+1:]...)
			break
		}
	}
	r.signalLocked()
}

func (r *connRegistry) signalLocked() {
	select {
	case r.freed <- struct{}{}:
	default:
	}
}

// connState follows the server's view of each connection
// (http.Server.ConnState): a connection inside a request is not evicted.
func (r *connRegistry) connState(conn net.Conn, state http.ConnState) {
	c, ok := conn.(*trackedConn)
	if !ok {
		return
	}
	switch state {
	case http.StateClosed:
		r.release(c)
	default:
		r.mu.Lock()
		defer r.mu.Unlock()
		c.busy = state == http.StateActive || state == http.StateHijacked
		if c.counted && c.evictable() {
			// An Accept waiting at the cap may now make room.
			r.signalLocked()
		}
	}
}

type trackedConnKey struct{}

// connContext puts the connection in its requests' context, for admit.
func connContext(ctx context.Context, conn net.Conn) context.Context {
	if c, ok := conn.(*trackedConn); ok {
		return context.WithValue(ctx, trackedConnKey{}, c)
	}
	return ctx
}

// add counts conn, first closing what it takes its place of: the oldest
// evictable connection of its host when that host is at perAddr, and the
// oldest evictable one of all when the registry is at its cap. When
// nothing can be evicted it waits for a connection to close, or for
// stop (the listener closed), and then reports false.
func (r *connRegistry) add(conn net.Conn, stop <-chan struct{}) (*trackedConn, bool) {
	c := &trackedConn{Conn: conn, reg: r, host: remoteHost(conn.RemoteAddr())}
	var evicted []*trackedConn
	defer func() {
		for _, e := range evicted {
			_ = e.Conn.Close()
			if r.onEvict != nil {
				r.onEvict(e.RemoteAddr())
			}
		}
	}()
	r.mu.Lock()
	if r.perAddr > 0 && r.unadmittedLocked(c.host) >= r.perAddr {
		if oldest := r.oldestEvictableLocked(c.host); oldest != nil {
			r.removeLocked(oldest)
			evicted = append(evicted, oldest)
		}
	}
	for len(r.conns) >= r.cap {
		if oldest := r.oldestEvictableLocked(r.crowdedHostLocked()); oldest != nil {
			r.removeLocked(oldest)
			evicted = append(evicted, oldest)
			continue
		}
		r.mu.Unlock()
		select {
		case <-r.freed:
		case <-stop:
			return nil, false
		}
		r.mu.Lock()
	}
	c.counted = true
	r.conns = append(r.conns, c)
	r.mu.Unlock()
	return c, true
}

// oldestEvictableLocked is host's oldest evictable connection, if any.
func (r *connRegistry) oldestEvictableLocked(host string) *trackedConn {
	for _, c := range r.conns {
		if c.host == host && c.evictable() {
			return c
		}
	}
	return nil
}

func (r *connRegistry) unadmittedLocked(host string) int {
	n := 0
	for _, c := range r.conns {
		if c.host == host && !c.admitted {
			n++
		}
	}
	return n
}

// crowdedHostLocked is the host that holds the most connections never
// admitted, among those with one to evict: at the cap it gives up its
// oldest, so a flood from one address pushes out its own connections.
func (r *connRegistry) crowdedHostLocked() string {
	counts := map[string]int{}
	evictable := map[string]bool{}
	for _, c := range r.conns {
		if !c.admitted {
			counts[c.host]++
		}
		if c.evictable() {
			evictable[c.host] = true
		}
	}
	crowded, most := "", 0
	for host, n := range counts {
		if evictable[host] && (n > most || n == most && host < crowded) {
			crowded, most = host, n
		}
	}
	return crowded
}

func remoteHost(addr net.Addr) string {
	if tcp, ok := addr.(*net.TCPAddr); ok {
		return tcp.IP.String()
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return host
}

type registryListener struct {
	net.Listener
	reg       *connRegistry
	closeOnce sync.Once
	closed    chan struct{}
}

func (l *registryListener) Accept() (net.Conn, error) {
	conn, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	c, ok := l.reg.add(conn, l.closed)
	if !ok {
		_ = conn.Close()
		return nil, net.ErrClosed
	}
	return c, nil
}

func (l *registryListener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.Listener.Close()
}
