package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/mcpforge/servers/shared/httpx"
)

// Readiness of a server: how often and how long /readyz asks the upstream.
const (
	// readyCacheFor is how long an answer stands: a load balancer probing
	// every second from many places costs the upstream one request in
	// this time.
	readyCacheFor = 5 * time.Second
	// readyCheckWait bounds one check, below the usual probe timeouts
	// (Kubernetes' default is 1 s but operators raise it for this).
	readyCheckWait = 3 * time.Second
	// readyMaxBytes bounds what a check reads of the upstream's answer.
	readyMaxBytes = 64 << 10
)

// addProbes serves the probes a process supervisor or load balancer asks.
// Neither needs a token, and neither tells anything a caller could use:
// /healthz says the process is alive; /readyz says whether the upstream
// the server needs (its GraphQL endpoint, its capture API) answers, as
// "ready" (200) or "not ready" (503), with the reason in the log only.
func addProbes(mux *http.ServeMux, ready *Readiness) {
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if err := ready.state(r.Context()); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("not ready\n"))
			return
		}
		_, _ = w.Write([]byte("ready\n"))
	})
}

// Readiness answers /readyz. A server's Build sets its check (Set); until
// then, and over stdio, a server is ready as soon as it is alive. Answers
// are cached for readyCacheFor and each check is bounded by
// readyCheckWait; probes that arrive while one runs wait for it rather
// than start their own.
type Readiness struct {
	logger *slog.Logger

	mu      sync.Mutex
	check   func(context.Context) error
	last    error
	fresh   time.Time     // last stands until then
	running chan struct{} // closed when the check under way ends; nil when none is
	known   bool          // a check has ended, so a change is worth a log line
}

// NewReadiness returns a Readiness with no check, which logs its changes
// to logger.
func NewReadiness(logger *slog.Logger) *Readiness {
	return &Readiness{logger: logger}
}

// Set makes check the server's readiness check. check must return within
// its context's deadline; its error is logged, never shown to the prober,
// and must hold no secret (UpstreamCheck's do not).
func (r *Readiness) Set(check func(ctx context.Context) error) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.check = check
	r.fresh = time.Time{}
}

// state returns nil when the server is ready, else why not.
func (r *Readiness) state(ctx context.Context) error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	if r.check == nil {
		r.mu.Unlock()
		return nil
	}
	if time.Now().Before(r.fresh) {
		defer r.mu.Unlock()
		return r.last
	}
	if r.running == nil {
		r.running = make(chan struct{})
		go r.run(context.WithoutCancel(ctx), r.check, r.running)
	}
	running := r.running
	r.mu.Unlock()
	select {
	case <-running:
	case <-ctx.Done():
		return ctx.Err()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// run runs one check, which no prober's going away cuts short, and keeps
// its answer.
func (r *Readiness) run(ctx context.Context, check func(context.Context) error, done chan struct{}) {
	ctx, cancel := context.WithTimeout(ctx, readyCheckWait)
	err := check(ctx)
	cancel()
	r.mu.Lock()
	changed := !r.known || (err == nil) != (r.last == nil)
	r.last, r.fresh, r.running, r.known = err, time.Now().Add(readyCacheFor), nil, true
	r.mu.Unlock()
	// Logged before the waiting probes are answered, so that a line
	// saying why precedes the answer that says so.
	if changed && r.logger != nil {
		if err != nil {
			r.logger.Warn("not ready: the upstream does not answer", "reason", shortened(err.Error()))
		} else {
			r.logger.Info("ready: the upstream answers")
		}
	}
	close(done)
}

// UpstreamCheck returns a readiness check that sends the request out makes
// through caller and counts the upstream reachable when it answers with a
// status below 500: a 4xx (no credentials on the probe, a method the root
// does not take) is the upstream answering. A 5xx, a refused connection, a
// name that does not resolve or no answer within the check's time are not.
// Its errors are httpx's, which hold no URL and no secret. out should
// carry no credentials: reachability needs none.
func UpstreamCheck(caller *httpx.Caller, out func() httpx.Outbound) func(context.Context) error {
	return func(ctx context.Context) error {
		request := out()
		if request.MaxBytes == 0 {
			request.MaxBytes = readyMaxBytes
		}
		answer, err := caller.Do(ctx, request)
		if _, tooLarge := err.(*httpx.TooLargeError); tooLarge {
			return nil // it answered, at length
		}
		if err != nil {
			return err
		}
		if answer.Status >= 500 {
			return fmt.Errorf("the upstream answered with status %d", answer.Status)
		}
		return nil
	}
}
