package schema

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpforge/servers/graphqlmcp/internal/regularfile"
	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
)

// Store is where every tool gets an endpoint's schema: the schema file given
// for the default endpoint (--schema), else the cache, else one
// introspection, which concurrent first callers share.
type Store struct {
	cache  *Cache
	client *upstream.Client
	now    func() time.Time
	// file is the --schema file's schema, which serves the default
	// endpoint; nil when none was given. A reload replaces it (SetFile)
	// while calls read it.
	file atomic.Pointer[Schema]

	mu       sync.Mutex
	inflight map[string]*fetch
	// refused remembers, for the cache's lifetime, the endpoints that
	// answered without describing their schema, or that take no request
	// graphqlmcp sends, so that every call to them does not ask again.
	refused map[string]refusal
}

// maxRefused bounds the refusals remembered.
const maxRefused = 1000

type refusal struct {
	err *FetchError
	at  time.Time
}

// fetch is one introspection under way, which callers of the same key wait
// for.
type fetch struct {
	done chan struct{}
	// cancel stops the introspection, once no caller waits for it.
	cancel context.CancelFunc
	schema *Schema
	at     time.Time
	err    error
	// panicked holds a panic of the fetch, with its stack.
	panicked string
	// waiting counts the calls waiting for this fetch (under Store.mu).
	waiting int
}

// NewStore returns a store that keeps schemas in cache, fetches them with
// client, and serves file (which may be nil) for the default endpoint.
func NewStore(cache *Cache, client *upstream.Client, file *Schema, now func() time.Time) *Store {
	st := &Store{cache: cache, client: client, now: now, inflight: map[string]*fetch{}, refused: map[string]refusal{}}
	st.file.Store(file)
	return st
}

// SetFile serves file for the default endpoint from now on, in place of
// the schema file's schema before: the file read again.
func (st *Store) SetFile(file *Schema) { st.file.Store(file) }

// Got is a schema and where it came from.
type Got struct {
	Schema    *Schema
	FetchedAt time.Time
	Cached    bool // from the cache, or from the schema file
	File      bool // from the schema file
}

// Get returns the schema of req's endpoint. refresh skips the cache (not
// the schema file). A caller that gives up (ctx) stops waiting; the fetch
// goes on for the others, bounded by req's timeout, and stops when the last
// of them gives up: against an endpoint that hangs, nothing runs on that no
// caller waits for.
func (st *Store) Get(ctx context.Context, req upstream.Request, refresh bool) (Got, error) {
	if file := st.file.Load(); file != nil && req.Target.IsDefault {
		return Got{Schema: file, FetchedAt: file.loaded, Cached: true, File: true}, nil
	}
	key := Key(req.Target.URL.String(), req.Headers)
	if !refresh {
		if s, at, ok := st.cache.Get(key); ok {
			return Got{Schema: s, FetchedAt: at, Cached: true}, nil
		}
	}
	st.mu.Lock()
	if r, ok := st.refused[key]; ok {
		if !refresh && st.now().Sub(r.at) < st.cache.ttl {
			st.mu.Unlock()
			return Got{FetchedAt: r.at, Cached: true}, r.err
		}
		delete(st.refused, key)
	}
	f, running := st.inflight[key]
	if !running {
		// The fetch is not any one caller's: it keeps the first caller's
		// values (a trace) but not its cancellation.
		fetchCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		f = &fetch{done: make(chan struct{}), cancel: cancel}
		st.inflight[key] = f
		go st.run(fetchCtx, key, req, f)
	}
	f.waiting++
	st.mu.Unlock()
	select {
	case <-f.done:
		if f.panicked != "" {
			panic(f.panicked)
		}
		return Got{Schema: f.schema, FetchedAt: f.at}, f.err
	case <-ctx.Done():
		st.giveUp(key, f)
		return Got{}, ctx.Err()
	}
}

// giveUp stops a caller's wait for f, and f itself when it was the last
// caller waiting. A later caller starts a fetch of its own rather than
// joining one being stopped.
func (st *Store) giveUp(key string, f *fetch) {
	st.mu.Lock()
	defer st.mu.Unlock()
	f.waiting--
	if f.waiting > 0 {
		return
	}
	if st.inflight[key] == f {
		delete(st.inflight, key)
	}
	f.cancel()
}

func (st *Store) run(ctx context.Context, key string, req upstream.Request, f *fetch) {
	defer close(f.done)
	defer f.cancel()
	defer func() {
		st.mu.Lock()
		if st.inflight[key] == f {
			delete(st.inflight, key)
		}
		st.mu.Unlock()
	}()
	// The fetch runs outside any handler, where no middleware recovers a
	// panic: one here would end the process. It is handed to every caller
	// waiting, to panic again where the handlers' recovery reports it.
	defer func() {
		if p := recover(); p != nil {
			f.schema, f.panicked = nil, fmt.Sprintf("%v (in the introspection shared by concurrent calls)\n%s", p, debug.Stack())
		}
	}()
	f.schema, f.err = Fetch(ctx, st.client, req)
	if f.err == nil {
		f.at = st.cache.Put(key, f.schema)
	}
	var refused *FetchError
	if errors.As(f.err, &refused) && (refused.SendUnchecked || refused.unusable) && st.cache.ttl > 0 {
		st.mu.Lock()
		if len(st.refused) >= maxRefused {
			clear(st.refused) // a bound on memory; those still refusing are asked again
		}
		st.refused[key] = refusal{err: refused, at: st.now()}
		st.mu.Unlock()
	}
}

// MaxFileBytes bounds a schema file, as MaxIntrospectionBytes bounds an
// introspection answer.
const MaxFileBytes = MaxIntrospectionBytes

// Load reads a schema file: an introspection answer as JSON (with or
// without its "data" member), or SDL. Its errors read after the file's
// name.
//
// Only a regular file is read, and one over the bound is refused by its
// size: a reload reads the path again whatever was put there since, and a
// named pipe would wait for a writer (opened without waiting, it is told
// apart first), a device or a growing file read up to the bound each time.
func Load(path string, now time.Time) (*Schema, error) {
	data, err := regularfile.Read(path, MaxFileBytes)
	var notRegular *regularfile.NotRegularError
	switch {
	case errors.As(err, &notRegular):
		return nil, fmt.Errorf("%v; name an SDL file or a saved introspection answer", err)
	case errors.As(err, new(*regularfile.TooBigError)):
		return nil, fmt.Errorf("is over %d MiB, more than any schema needs", MaxFileBytes>>20)
	case err != nil:
		return nil, err
	}
	var s *Schema
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
		r, err := ParseResult(data)
		if err != nil {
			return nil, fmt.Errorf("is JSON but not an introspection answer: %v", err)
		}
		if s, err = New(r); err != nil {
			return nil, err
		}
	} else if s, err = FromSDL(string(data)); err != nil {
		return nil, fmt.Errorf("is not valid SDL: %v", err)
	}
	s.loaded = now
	return s, nil
}
