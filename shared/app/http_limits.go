package app

import (
	"context"
	"net/http"
	"time"
)

// httpLimits bound what a client can hold of the Streamable HTTP listener,
// token or not: a connection costs a file descriptor, and a process that
// has none left serves no one, its own operator included.
type httpLimits struct {
	// readHeader bounds a request's line and headers, from the first byte
	// of the connection or the end of the request before.
	readHeader time.Duration
	// idle closes a kept-alive connection that sends no request for that
	// long.
	idle time.Duration
	// body bounds the time an admitted request's body takes to arrive (an
	// unadmitted request's body is never read).
	body time.Duration
	// conns caps the connections open at once; those past it wait in the
	// kernel's queue until one closes.
	conns int
}

// Defaults of httpLimits. Calls last long (a 300 s wait_for_request), but
// only while a request is active, which idle does not cut.
const (
	readHeaderTimeout = 10 * time.Second
	idleTimeout       = 20 * time.Second
	maxConnections    = 1024
	minConnections    = 16
)

func defaultHTTPLimits() httpLimits {
	return httpLimits{readHeader: readHeaderTimeout, idle: idleTimeout, body: maxBodyReadTime, conns: connectionCap()}
}

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

// admit marks r admitted: its connection may be kept alive.
func admit(w http.ResponseWriter, r *http.Request) {
	if mark, ok := r.Context().Value(admissionKey{}).(*admission); ok {
		mark.admitted = true
		w.Header().Del("Connection")
	}
}
