package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Why this file exists: the go-sdk's stateless Streamable HTTP handler runs
// every POST in a session of its own, and hands request handlers a context
// from which the HTTP request's cancellation has been stripped. So a client
// that closes its connection leaves its call running to its own timeout, a
// notifications/cancelled (a POST of its own, so another session) finds
// nothing to cancel, and at shutdown nothing tells a long call to stop. The
// HTTP layer here tracks every call it passes on and ties its handler's
// context back to its client. (Shutdown is the transport-neutral shutdown's,
// as on stdio.)

// Causes a call's context is cancelled with.
var (
	errClientCancelled = errors.New("the client cancelled the call")
	errClientGone      = errors.New("the client closed its connection")
)

// maxTrackedIDLen bounds the request ids kept for notifications/cancelled;
// a client's ids are short numbers or strings, a longer one is not tracked.
const maxTrackedIDLen = 256

// httpCall is one call (a JSON-RPC request with an id) in flight over HTTP.
type httpCall struct {
	key    callKey
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// callKey names a call for notifications/cancelled. Without sessions, the
// client is known only by what its requests carry: the address it comes
// from, its credentials and its User-Agent, kept hashed so that the
// registry holds no secret.
type callKey struct {
	client [sha256.Size]byte
	id     string // the id's JSON, compacted
}

// httpCalls is the registry of calls in flight.
type httpCalls struct {
	logger *slog.Logger

	mu    sync.Mutex
	calls map[*httpCall]struct{}
	byKey map[callKey][]*httpCall
}

func newHTTPCalls(logger *slog.Logger) *httpCalls {
	return &httpCalls{logger: logger, calls: map[*httpCall]struct{}{}, byKey: map[callKey][]*httpCall{}}
}

type httpCallContextKey struct{}

// start registers a call; done must be called when its HTTP request ends.
// The returned context, for the request, carries the call to the receiving
// middleware.
func (c *httpCalls) start(r *http.Request, key callKey, tracked bool) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(r.Context())
	call := &httpCall{key: key, ctx: ctx, cancel: cancel}
	c.mu.Lock()
	c.calls[call] = struct{}{}
	if tracked {
		c.byKey[key] = append(c.byKey[key], call)
	}
	c.mu.Unlock()
	done := func() {
		c.mu.Lock()
		delete(c.calls, call)
		if tracked {
			rest := c.byKey[key][:0]
			for _, other := range c.byKey[key] {
				if other != call {
					rest = append(rest, other)
				}
			}
			if len(rest) == 0 {
				delete(c.byKey, key)
			} else {
				c.byKey[key] = rest
			}
		}
		c.mu.Unlock()
		cancel(errClientGone)
	}
	// The request keeps its own context: the SDK stops writing the answer
	// when that ends, and a call stopped by a cancellation or a shutdown
	// still gets one.
	return context.WithValue(r.Context(), httpCallContextKey{}, call), done
}

// cancelByClient stops the call a notifications/cancelled names. Ids are
// chosen by each client, and clients are told apart only by address,
// credentials and User-Agent: when two calls in flight match, neither is
// stopped, rather than the wrong one.
func (c *httpCalls) cancelByClient(key callKey) {
	c.mu.Lock()
	matches := c.byKey[key]
	var call *httpCall
	if len(matches) == 1 {
		call = matches[0]
	}
	c.mu.Unlock()
	switch {
	case call != nil:
		call.cancel(errClientCancelled)
	case len(matches) > 1:
		c.logger.Warn("notifications/cancelled names a request id that several calls in flight from the same client use; none was stopped", "calls", len(matches))
	}
}

// inFlight reports how many calls are running, for tests.
func (c *httpCalls) inFlight() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.calls)
}

// middleware gives a request handler a context that ends when its HTTP
// call is cancelled, which the SDK's does not.
func (c *httpCalls) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := ctx.Value(httpCallContextKey{}).(*httpCall)
		if !ok {
			return next(ctx, method, req)
		}
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := context.AfterFunc(call.ctx, func() { cancel(context.Cause(call.ctx)) })
		defer stop()
		return next(ctx, method, req)
	}
}

// rpcPeek is what the HTTP layer reads of a message before the SDK does.
type rpcPeek struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
		RequestID json.RawMessage `json:"requestId"` // of notifications/cancelled
	} `json:"params"`
}

// mcpHTTP sits between the guard and the SDK's handlers: it bounds the
// body (answering an oversized one with a JSON-RPC error that names the
// limit), tracks calls (see httpCalls) and answers each call as plain JSON
// unless the client asked for progress notifications, which only an SSE
// stream can carry. A JSON answer is one body however large; an SSE event
// of over 1 MiB is more than some SDKs read (the Python SDK 2.0 stops at
// 1 MiB), and a schema or a captured body may be larger.
type mcpHTTP struct {
	calls        *httpCalls
	json, stream http.Handler
	maxBody      int64
}

func newMCPHTTP(server *mcp.Server, logger *slog.Logger, calls *httpCalls) *mcpHTTP {
	server.AddReceivingMiddleware(calls.middleware)
	getServer := func(*http.Request) *mcp.Server { return server }
	return &mcpHTTP{
		calls:   calls,
		json:    mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: SDKLogger(logger)}),
		stream:  mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Stateless: true, Logger: SDKLogger(logger)}),
		maxBody: mcp.DefaultMaxRequestBodyBytes,
	}
}

func (h *mcpHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Body == nil {
		h.stream.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeTooLarge(w, body, tooLarge.Limit)
			return
		}
		http.Error(w, "Bad Request: the request body could not be read", http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))

	var msg rpcPeek
	if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(body, &msg) != nil {
		// A batch or a malformed body: the SDK answers it as before.
		h.stream.ServeHTTP(w, r)
		return
	}
	isCall := len(msg.ID) > 0 && !bytes.Equal(msg.ID, []byte("null")) && msg.Method != ""
	switch {
	case msg.Method == "notifications/cancelled" && len(msg.Params.RequestID) > 0:
		if id, ok := compactID(msg.Params.RequestID); ok {
			h.calls.cancelByClient(callKey{client: clientOf(r), id: id})
		}
	case isCall:
		id, tracked := compactID(msg.ID)
		ctx, done := h.calls.start(r, callKey{client: clientOf(r), id: id}, tracked)
		defer done()
		r = r.WithContext(ctx)
	}
	if len(msg.Params.Meta.ProgressToken) > 0 {
		h.stream.ServeHTTP(w, r)
		return
	}
	h.json.ServeHTTP(w, r)
}

// compactID renders a JSON-RPC id as a key, refusing an overlong one.
func compactID(raw json.RawMessage) (string, bool) {
	var buf bytes.Buffer
	if len(raw) > maxTrackedIDLen || json.Compact(&buf, raw) != nil {
		return "", false
	}
	return buf.String(), true
}

// clientOf tells clients apart as well as a stateless server can.
func clientOf(r *http.Request) [sha256.Size]byte {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return sha256.Sum256([]byte(host + "\x00" + r.Header.Get("Authorization") + "\x00" + r.Header.Get("User-Agent")))
}

// writeTooLarge answers a body over the limit with a JSON-RPC error naming
// the limit. When the part read gives the request's id (clients that write
// "id" before "params", as the go-sdk and Python SDKs do), the error answers
// that call with status 200, as any other failed call: the client shows it
// and its session goes on. Otherwise (the TypeScript SDK writes "id" last)
// the status is 413 and the body the same error with a null id, which SDKs
// show as the failed POST's text ("Error POSTing to endpoint: <body>").
func writeTooLarge(w http.ResponseWriter, prefix []byte, limit int64) {
	message := fmt.Sprintf("the request is larger than this server's limit of %d bytes (%d MiB) for one message; send a smaller request (a shorter argument)", limit, limit>>20)
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	id, status := leadingID(prefix), http.StatusOK
	if id == nil {
		id, status = json.RawMessage("null"), http.StatusRequestEntityTooLarge
	}
	data, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{-32600, message}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Connection", "close")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

// leadingID finds the id of the request whose first bytes are prefix: a
// top-level "id" member, a number or a string, that comes before the value
// the prefix cuts short. It returns nil when there is none.
func leadingID(prefix []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if open, err := dec.Token(); err != nil || open != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil
		}
		if key != "id" {
			continue
		}
		if id, ok := compactID(value); ok && (id[0] == '"' || id[0] == '-' || (id[0] >= '0' && id[0] <= '9')) {
			return json.RawMessage(id)
		}
		return nil
	}
	return nil
}
