package httpx

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

type ruleKey struct{}

// ruleByContext is a Guard whose rule the request's context names: "none"
// (no rule, as for an endpoint the operator named), "lax" (a rule that
// lets loopback through) or "strict" (one that refuses everything; its
// target, metadata.test, stands for a name of a metadata address and is
// loopback here).
func ruleByContext(ctx context.Context) AddressRule {
	switch ctx.Value(ruleKey{}) {
	case "none":
		return nil
	case "lax":
		return func(netip.Addr) error { return nil }
	}
	return func(netip.Addr) error { return errors.New("refused by the strict rule") }
}

// TestGuardedRequestsNeverReuseAConnection: a connection dialled for a
// request under no rule, or under a rule that allows its address, is never
// used by a request whose rule refuses that address, in any order, one
// after another or at once; requests under no rule still share their
// connections.
func TestGuardedRequestsNeverReuseAConnection(t *testing.T) {
	srv, dialled := countingServer(t)
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	newClient := func() *http.Client {
		return NewClient(Options{Resolver: fakeResolver{"metadata.test": {netip.MustParseAddr("127.0.0.1")}}, Guard: ruleByContext})
	}
	client := newClient()
	get := func(rule, path string) error {
		ctx := context.WithValue(context.Background(), ruleKey{}, rule)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://metadata.test"+port+path, nil)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return errors.New("reached: " + string(body))
	}
	for _, allowed := range []string{"none", "lax"} {
		for _, order := range [][]string{{allowed, "strict"}, {allowed, allowed, "strict", allowed, "strict"}} {
			for _, rule := range order {
				err := get(rule, "/latest/meta-data")
				if reached := err != nil && strings.HasPrefix(err.Error(), "reached"); reached != (rule != "strict") {
					t.Errorf("order %v: the %s request: %v", order, rule, err)
				}
			}
		}
	}

	// At once: a refused request never takes a connection an allowed one
	// dialled or freed.
	var wg sync.WaitGroup
	var leaked atomic.Int32
	for i := range 40 {
		rule := []string{"none", "lax", "strict", "none"}[i%4]
		wg.Go(func() {
			err := get(rule, "/x")
			if rule == "strict" && err != nil && strings.HasPrefix(err.Error(), "reached") {
				leaked.Add(1)
			}
		})
	}
	wg.Wait()
	if n := leaked.Load(); n != 0 {
		t.Errorf("%d refused requests reached the address over a reused connection", n)
	}

	// Requests under no rule share a connection; each under a rule has its
	// own. A new client and server: the client above may still be
	// finishing a dial that the request it was started for no longer
	// needed.
	client.CloseIdleConnections()
	client = newClient()
	t.Cleanup(client.CloseIdleConnections)
	srv, dialled = countingServer(t)
	port = srv.URL[strings.LastIndex(srv.URL, ":"):]
	before := dialled.Load()
	for range 5 {
		get("none", "/pooled")
	}
	if n := dialled.Load() - before; n != 1 {
		t.Errorf("5 requests under no rule, one after another, dialled %d connections, want 1", n)
	}
	before = dialled.Load()
	for range 3 {
		get("lax", "/own")
	}
	if n := dialled.Load() - before; n != 3 {
		t.Errorf("3 requests under a rule dialled %d connections, want one each", n)
	}
}

// countingServer answers every request with its path, and counts the
// connections made to it.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	dialled := &atomic.Int32{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "reached "+r.URL.Path) }))
	srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			dialled.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, dialled
}
