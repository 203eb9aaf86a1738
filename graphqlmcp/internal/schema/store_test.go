package schema

import (
	"context"
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
	store, req := heldStore(t, func() {
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
	for waiting := 0; waiting < calls; {
		store.mu.Lock()
		waiting = 0
		for _, f := range store.inflight {
			waiting = f.callers
		}
		store.mu.Unlock()
		runtime.Gosched()
	}
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

// TestStoreCallerGivesUp: a caller whose context ends stops waiting at
// once, and the fetch goes on for the others.
func TestStoreCallerGivesUp(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 1)
	store, req := heldStore(t, func() {
		arrived <- struct{}{}
		<-release
	})

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := store.Get(ctx, req, false)
		done <- err
	}()
	<-arrived
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("the caller that gave up got %v", err)
	}
	close(release)
	if got, err := store.Get(context.Background(), req, false); err != nil || got.Schema == nil {
		t.Errorf("the fetch did not go on: %v", err)
	}
}

// heldStore is a store whose endpoint calls hold (which may block) before
// it answers every request with testdata/synthetic.json.
func heldStore(t *testing.T, hold func()) (*Store, upstream.Request) {
	t.Helper()
	answer := readFile(t, filepath.Join("testdata", "synthetic.json"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hold()
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer)
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	client := &upstream.Client{Caller: &httpx.Caller{HTTP: srv.Client(), Logger: slog.New(slog.DiscardHandler)}, MaxResponseBytes: 1 << 20}
	store := NewStore(NewCache(time.Minute, DefaultCacheBytes, time.Now), client, nil, time.Now)
	return store, upstream.Request{Target: upstream.Target{URL: u}, Timeout: 10 * time.Second}
}
