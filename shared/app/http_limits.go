package app

import (
	"context"
	"net"
	"net/http"
	"time"
)

// httpLimits bound what a client can hold of the Streamable HTTP listener,
// token or not: a connection costs a file descriptor, and a process that
// has none left serves no one, its own operator included.
type httpLimits struct {
	// readHeader bounds a request's line and headers: on a new connection
	// from its accept, so it is also the time to the first byte; on a
	// kept-alive one (only an admitted connection is kept alive) from the
	// request's first byte, which idle bounds.
	readHeader time.Duration
	// idle closes a kept-alive connection that sends no request for that
	// long.
	idle time.Duration
	// body bounds the time an admitted request's body takes to arrive (an
	// unadmitted request's body is never read).
	body time.Duration
	// conns caps the connections open at once. At the cap a new one takes
	// the place of the oldest never admitted and not inside a request;
	// only when there is none do new ones wait in the kernel's queue (see
	// connRegistry).
	conns int
	// perAddr caps the connections of one remote IP never admitted: past
	// it, a new one from there takes the place of that IP's oldest not
	// inside a request. 0 sets no such cap.
	perAddr int
	// onEvict, when set, is told of every connection closed to make room.
	onEvict func(remote net.Addr)
}

// Defaults of httpLimits. Calls last long (a 300 s wait_for_request), but
// only while a request is active, which idle does not cut. A client sends
// its request line and headers as soon as it connects, a few hundred bytes
// that take a round trip or two; readHeaderTimeout leaves room for a lost
// packet's retransmission and frees a silent connection's slot soon.
const (
	readHeaderTimeout = 3 * time.Second
	idleTimeout       = 20 * time.Second
	maxConnections    = 1024
	minConnections    = 16
)

func defaultHTTPLimits() httpLimits {
	conns := connectionCap()
	return httpLimits{readHeader: readHeaderTimeout, idle: idleTimeout, body: maxBodyReadTime, conns: conns, perAddr: perAddrCap(conns)}
}

// perAddrCap is the share of conns one remote IP may hold unadmitted: a
// quarter, so that one address flooding the listener pushes out its own
// connections before other clients' fresh ones.
func perAddrCap(conns int) int { return max(conns/4, 1) }

// connectionCap is maxConnections, or half the process's descriptors when
// that is fewer: the other half is for outbound requests, logs and files.
func connectionCap() int {
	limit, ok := descriptorLimit()
	if !ok || limit/2 >= maxConnections {
		return maxConnections
	}
	return max(int(limit/2), minConnections)
}

// admission marks a request the guard let through (its token checked, or
// none asked for). It travels in the request's context and is written and
// read on the request's own goroutine.
type admission struct{ admitted bool }

type admissionKey struct{}

// hangUpUnadmitted closes the connection of every request that is not
// admitted (a refusal, /healthz, a path that does not exist, a preflight):
// whoever has no token keeps no connection open by asking for nothing.
// The answer says "Connection: close", and a body still arriving is not
// waited for: once a handler is done, the server reads what is left of an
// unread body (up to 256 KiB, at the sender's pace) before it closes or
// reuses the connection. An admitted request's leftover body (a GET that
// came with one) gets bodyTime, as a POST's body does.
func hangUpUnadmitted(next http.Handler, bodyTime time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mark := &admission{}
		w.Header().Set("Connection", "close")
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), admissionKey{}, mark)))
		// The server replaces this deadline with its idle one before the
		// connection waits for its next request. A handler that answered
		// "Connection: close" (a body too large or too slow) is not
		// waiting for the rest of the body either.
		deadline := time.Now()
		if mark.admitted && w.Header().Get("Connection") != "close" {
			deadline = deadline.Add(bodyTime)
		}
		_ = http.NewResponseController(w).SetReadDeadline(deadline)
	})
}

// admit marks r admitted: its connection may be kept alive, and is not
// closed to make room for new ones (connRegistry).
func admit(w http.ResponseWriter, r *http.Request) {
	if mark, ok := r.Context().Value(admissionKey{}).(*admission); ok {
		mark.admitted = true
		w.Header().Del("Connection")
	}
	if conn, ok := r.Context().Value(trackedConnKey{}).(*trackedConn); ok {
		conn.admit()
	}
}
