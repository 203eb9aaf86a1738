package schema

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/httpx"
)

// TestStoreSharesOneFetch: concurrent first calls for one endpoint make one
// introspection request between them, and later calls none.
func TestStoreSharesOneFetch(t *testing.T) {
	release := make(chan struct{})
	var requests atomic.Int32
	store, req := heldStore(t, func(*http.Request) {
		requests.Add(1)
		<-release
	})

	const calls = 5
	var wg sync.WaitGroup
	got := make([]Got, calls)
	errs := make([]error, calls)
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = store.Get(context.Background(), req, false)
		}()
	}
	// Release the endpoint once every call waits on the one fetch.
	waitForCallers(store, calls)
	close(release)
	wg.Wait()
	for i := range calls {
		if errs[i] != nil || got[i].Schema == nil || got[i].Schema != got[0].Schema {
			t.Fatalf("call %d: %v", i, errs[i])
		}
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("%d introspection requests for %d concurrent calls, want 1", n, calls)
	}
	if later, err := store.Get(context.Background(), req, false); err != nil || !later.Cached || requests.Load() != 1 {
		t.Errorf("a later call: cached %v, %v, %d requests", later.Cached, err, requests.Load())
	}
}

// waitForCallers returns once n calls wait on the store's one fetch.
func waitForCallers(store *Store, n int) {
	for waiting := 0; waiting < n; {
		store.mu.Lock()
		waiting = 0
		for _, f := range store.inflight {
			waiting = f.waiting
		}
		store.mu.Unlock()
		runtime.Gosched()
	}
}

// hangingStore is a store whose endpoint hangs: each introspection request
// is sent on arrived, then answered when release is closed, or stopped when
// the client gives it up (its context ends), which is then sent on stopped.
func hangingStore(t *testing.T) (store *Store, req upstream.Request, arrived chan struct{}, release chan struct{}, stopped chan struct{}) {
	t.Helper()
	arrived, release, stopped = make(chan struct{}, 10), make(chan struct{}), make(chan struct{}, 10)
	ended := make(chan struct{})
	store, req = heldStore(t, func(r *http.Request) {
		// The server watches for the client going away only once the
		// body is read.
		io.Copy(io.Discard, r.Body)
		arrived <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
			stopped <- struct{}{}
		case <-ended: // the test failed: let the server close
		}
	})
	t.Cleanup(func() { close(ended) }) // before heldStore's srv.Close
	// Longer than any test waits: a request that ends does so because
	// its callers gave up, not at its timeout.
	req.Timeout = 10 * time.Minute
	return store, req, arrived, release, stopped
}

// getAsync runs store.Get under ctx and sends its error on the channel it
// returns.
func getAsync(ctx context.Context, store *Store, req upstream.Request) <-chan error {
	done := make(chan error, 1)
	go func() {
		got, err := store.Get(ctx, req, false)
		if err == nil && got.Schema == nil {
			err = errors.New("no schema and no error")
		}
		done <- err
	}()
	return done
}

// TestStoreCallerGivesUp: a caller whose context ends stops waiting at
// once, and the introspection goes on for the caller still waiting: its
// request is not stopped, and its answer reaches that caller.
func TestStoreCallerGivesUp(t *testing.T) {
	store, req, arrived, release, stopped := hangingStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	first := getAsync(ctx, store, req)
	second := getAsync(context.Background(), store, req)
	<-arrived
	waitForCallers(store, 2)
	cancel()
	if err := <-first; err != context.Canceled {
		t.Errorf("the caller that gave up got %v", err)
	}
	close(release)
	if err := <-second; err != nil {
		t.Errorf("the caller still waiting got %v; the introspection was stopped under it", err)
	}
	select {
	case <-stopped:
		t.Error("the endpoint saw its request stopped while a caller still waited for it")
	default:
	}
}

// TestStoreLastCallerStopsFetch: when every caller waiting for an
// introspection has given up, its request to the endpoint is stopped at
// once (not left to hang until its timeout), and the next call asks again.
func TestStoreLastCallerStopsFetch(t *testing.T) {
	store, req, arrived, release, stopped := hangingStore(t)
	ctx1, cancel1 := context.WithCancel(context.Background())
	ctx2, cancel2 := context.WithCancel(context.Background())
	first, second := getAsync(ctx1, store, req), getAsync(ctx2, store, req)
	<-arrived
	waitForCallers(store, 2)
	cancel1()
	cancel2()
	for _, done := range []<-chan error{first, second} {
		if err := <-done; err != context.Canceled {
			t.Errorf("a caller that gave up got %v", err)
		}
	}
	select {
	case <-stopped:
	case <-time.After(30 * time.Second): // a safety net: the request's own timeout is 10 minutes
		t.Fatal("the endpoint's request went on after every caller gave up")
	}
	later := getAsync(context.Background(), store, req)
	<-arrived // a fetch of its own, not the stopped one's error
	close(release)
	if err := <-later; err != nil {
		t.Errorf("a call after the stopped fetch got %v", err)
	}
}

// heldStore is a store whose endpoint calls hold (which may block) before
// it answers every request with testdata/synthetic.json.
func heldStore(t *testing.T, hold func(*http.Request)) (*Store, upstream.Request) {
	t.Helper()
	answer := readFile(t, filepath.Join("testdata", "synthetic.json"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hold(r)
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer)
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	client := &upstream.Client{Caller: &httpx.Caller{HTTP: srv.Client(), Logger: slog.New(slog.DiscardHandler)}, MaxResponseBytes: 1 << 20}
	store := NewStore(NewCache(time.Minute, DefaultCacheBytes, time.Now), client, nil, time.Now)
	return store, upstream.Request{Target: upstream.Target{URL: u}, Timeout: 10 * time.Second}
}
