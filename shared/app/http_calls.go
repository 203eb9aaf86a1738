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
	"mime"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
	// cutBodies is closed when request bodies still arriving are cut
	// short (the shutdown grace is over); nil never is.
	cutBodies <-chan struct{}

	mu    sync.Mutex
	calls map[*httpCall]struct{}
	byKey map[callKey][]*httpCall
}

func newHTTPCalls(logger *slog.Logger, cutBodies <-chan struct{}) *httpCalls {
	return &httpCalls{logger: logger, cutBodies: cutBodies, calls: map[*httpCall]struct{}{}, byKey: map[callKey][]*httpCall{}}
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
	Params json.RawMessage `json:"params"`
}

// requestID is the id a notifications/cancelled names.
func (p rpcPeek) requestID() json.RawMessage {
	var params struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	_ = json.Unmarshal(p.Params, &params)
	return params.RequestID
}

// maxBodyReadTime bounds how long a request body may take to arrive, so
// that a client that sends part of one and stops does not hold a handler
// (and, at shutdown, the process) for ever. 4 MiB in 30 s is 140 KB/s.
const maxBodyReadTime = 30 * time.Second

// mcpHTTP sits between the guard and the SDK's handler: it bounds the body
// in bytes and time (answering an oversized, slow or, at shutdown, cut
// body with a JSON-RPC error), tracks calls (see httpCalls) and answers
// each call as plain JSON unless it streams (see jsonUnlessStreamed).
type mcpHTTP struct {
	calls       *httpCalls
	stream      http.Handler
	maxBody     int64
	maxBodyTime time.Duration
}

func newMCPHTTP(server *mcp.Server, logger *slog.Logger, calls *httpCalls) *mcpHTTP {
	server.AddReceivingMiddleware(calls.middleware)
	getServer := func(*http.Request) *mcp.Server { return server }
	return &mcpHTTP{
		calls:       calls,
		stream:      mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Stateless: true, Logger: SDKLogger(logger)}),
		maxBody:     mcp.DefaultMaxRequestBodyBytes,
		maxBodyTime: maxBodyReadTime,
	}
}

func (h *mcpHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Body == nil {
		h.stream.ServeHTTP(w, r)
		return
	}
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if refusal, idRepeated, found := repeatedKey(body); found {
		h.refuseRepeated(w, body, refusal, idRepeated)
		return
	}

	var msg rpcPeek
	if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(body, &msg) != nil {
		// A batch or a malformed body: the SDK answers it as before.
		h.stream.ServeHTTP(w, r)
		return
	}
	if code, message, answerID, over := oversized(msg.ID, msg.Method, msg.Params); over {
		var id json.RawMessage
		if checked, ok := checkID(msg.ID); ok && answerID {
			id = checked
		}
		status := http.StatusBadRequest
		if id != nil {
			status = http.StatusOK
		}
		writeRPCAnswer(w, id, status, code, message)
		return
	}
	isCall := len(msg.ID) > 0 && !bytes.Equal(msg.ID, []byte("null")) && msg.Method != ""
	switch {
	case msg.Method == "notifications/cancelled" && len(msg.requestID()) > 0 && isJSON(r):
		// Only a body the SDK takes (JSON) may stop a call: a web page
		// can send any other kind without the preflight CORS asks.
		if id, ok := compactID(msg.requestID()); ok {
			h.calls.cancelByClient(callKey{client: clientOf(r), id: id})
		}
	case isCall:
		id, tracked := compactID(msg.ID)
		ctx, done := h.calls.start(r, callKey{client: clientOf(r), id: id}, tracked)
		defer done()
		r = r.WithContext(ctx)
	}
	answer := &jsonUnlessStreamed{w: w, status: http.StatusOK}
	defer answer.finish()
	h.stream.ServeHTTP(answer, r)
}

// refuseRepeated answers a message that gives a key twice (see
// repeatedKey) with a JSON-RPC invalid request error: to the request's id
// with status 200 when one can be read (a call: the client shows it as that
// call's failure and goes on), else with id null and 400. The body was
// read whole: the connection stays open.
func (h *mcpHTTP) refuseRepeated(w http.ResponseWriter, body []byte, refusal string, idRepeated bool) {
	var msg struct {
		ID json.RawMessage `json:"id"`
	}
	var id json.RawMessage
	if !idRepeated && json.Unmarshal(body, &msg) == nil && msg.ID != nil {
		if checked, ok := checkID(msg.ID); ok {
			id = checked
		}
	}
	h.calls.logger.Warn("refused a message that gives a key twice", "reason", refusal)
	status := http.StatusBadRequest
	if id != nil {
		status = http.StatusOK
	}
	writeRPCAnswer(w, id, status, jsonrpc.CodeInvalidRequest, refusal)
}

// readBody reads the request body, at most maxBody bytes within
// maxBodyTime, and cut short when the shutdown grace ends. When it
// cannot, it answers the request and reports false.
func (h *mcpHTTP) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(h.maxBodyTime))
	reading, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-h.calls.cutBodies:
			_ = rc.SetReadDeadline(time.Now())
		case <-reading:
		}
	}()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	close(reading)
	<-watched
	if err == nil {
		// The deadline would otherwise outlive the body: the server's
		// check for a client gone away reads on, and would take the
		// deadline for the client leaving.
		_ = rc.SetReadDeadline(time.Time{})
		return body, true
	}
	// The rest of the body is not waited for (the server would read on
	// after the answer, to reuse the connection): it is closed instead.
	_ = rc.SetReadDeadline(time.Now())
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		writeRPCError(w, body, http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest, fmt.Sprintf("the request is larger than this server's limit of %d bytes (%d MiB) for one message; send a smaller request (a shorter argument)", tooLarge.Limit, tooLarge.Limit>>20))
	case errors.Is(err, os.ErrDeadlineExceeded) && isClosed(h.calls.cutBodies):
		writeRPCError(w, body, http.StatusServiceUnavailable, jsonrpc.CodeInternalError, "server shutting down: the request had not fully arrived when the server stopped, so it was not run; send it again once the server runs again")
	case errors.Is(err, os.ErrDeadlineExceeded):
		writeRPCError(w, body, http.StatusRequestTimeout, jsonrpc.CodeInvalidRequest, fmt.Sprintf("the request did not fully arrive within this server's limit of %s for one message; send it again, whole", h.maxBodyTime))
	default:
		http.Error(w, "Bad Request: the request body could not be read", http.StatusBadRequest)
	}
	return nil, false
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func isJSON(r *http.Request) bool {
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mediaType == "application/json"
}

// jsonUnlessStreamed lets the SDK answer a message as an SSE stream but
// holds the stream's start back: when its first event is the call's own
// answer (nothing was sent before it), that answer goes out as one plain
// JSON body instead. So a call is answered as SSE only when it really
// streams, i.e. sends a notification (progress) before its result; any
// other answer, of whatever size, is one JSON body, which every SDK reads
// (the Python SDK 2.0 reads at most 1 MiB per SSE event). Asking for
// progress alone (a progressToken) does not make a call's answer SSE.
type jsonUnlessStreamed struct {
	w         http.ResponseWriter
	status    int
	committed bool   // the status line is written
	json      bool   // the answer went out as JSON: nothing more belongs in it
	pending   []byte // the stream's start, until its first event is whole
}

func (j *jsonUnlessStreamed) Header() http.Header { return j.w.Header() }

func (j *jsonUnlessStreamed) WriteHeader(status int) {
	if j.committed {
		j.w.WriteHeader(status)
		return
	}
	j.status = status
	if !j.holding() {
		j.commit()
	}
}

// holding reports an answer still undecided: an SSE stream, uncommitted.
func (j *jsonUnlessStreamed) holding() bool {
	mediaType, _, _ := mime.ParseMediaType(j.w.Header().Get("Content-Type"))
	return !j.committed && mediaType == "text/event-stream"
}

func (j *jsonUnlessStreamed) commit() {
	j.committed = true
	j.w.WriteHeader(j.status)
}

func (j *jsonUnlessStreamed) Write(p []byte) (int, error) {
	switch {
	case j.json:
		return 0, errors.New("the call's answer was already written as JSON")
	case !j.holding():
		if !j.committed {
			j.commit()
		}
		return j.w.Write(p)
	}
	j.pending = append(j.pending, p...)
	end := bytes.Index(j.pending, []byte("\n\n"))
	if end < 0 {
		return len(p), nil
	}
	if data, ok := answerEvent(j.pending[:end]); ok && end+2 == len(j.pending) {
		h := j.w.Header()
		h.Set("Content-Type", "application/json")
		h.Del("Connection")
		j.json = true
		j.commit()
		_, err := j.w.Write(data)
		return len(p), err
	}
	// A notification first: the stream goes out as it is.
	j.commit()
	pending := j.pending
	j.pending = nil
	if _, err := j.w.Write(pending); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush passes a flush on once the stream goes out; the SDK flushes after
// every event.
func (j *jsonUnlessStreamed) Flush() {
	if j.committed {
		_ = http.NewResponseController(j.w).Flush()
	}
}

// finish writes what is still held when the SDK is done.
func (j *jsonUnlessStreamed) finish() {
	if j.committed {
		return
	}
	j.commit()
	if len(j.pending) > 0 {
		_, _ = j.w.Write(j.pending)
	}
}

// answerEvent returns the data of an SSE event (as the go-sdk writes one:
// "event: message", maybe an id, one data line) that is a JSON-RPC
// response, and whether it is one.
func answerEvent(event []byte) ([]byte, bool) {
	var data []byte
	for _, line := range bytes.Split(event, []byte("\n")) {
		switch {
		case bytes.HasPrefix(line, []byte("data: ")) && data == nil:
			data = line[len("data: "):]
		case bytes.Equal(line, []byte("event: message")), bytes.HasPrefix(line, []byte("id: ")):
		default:
			return nil, false
		}
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	if data == nil || json.Unmarshal(data, &msg) != nil || len(msg.ID) == 0 || msg.Method != nil {
		return nil, false
	}
	return data, true
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

// writeRPCError answers a request whose body could not be read whole with
// a JSON-RPC error. When the part read gives the request's id (clients that
// write "id" before "params", as the go-sdk and Python SDKs do), the error
// answers that call with status 200, as any other failed call: the client
// shows it and its session goes on. Otherwise (the TypeScript SDK writes
// "id" last) the status is the one given and the body the same error with
// a null id, which SDKs show as the failed POST's text ("Error POSTing to
// endpoint: <body>"). The connection is closed: the rest of the body is
// still on it.
func writeRPCError(w http.ResponseWriter, prefix []byte, status int, code int64, message string) {
	id := leadingID(prefix)
	if id != nil {
		status = http.StatusOK
	}
	w.Header().Set("Connection", "close")
	writeRPCAnswer(w, id, status, code, message)
}

// writeRPCAnswer writes a JSON-RPC error answer to id (nil: null).
func writeRPCAnswer(w http.ResponseWriter, id json.RawMessage, status int, code int64, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	data, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	w.Header().Set("Content-Type", "application/json")
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
		id, ok := compactID(value)
		switch {
		case !ok:
			return nil
		case id[0] == '"':
			return json.RawMessage(id)
		case id[0] == '-' || (id[0] >= '0' && id[0] <= '9'):
			// A number no float64 holds (1e700) is no id a client can
			// match: the answer goes without one.
			if _, err := strconv.ParseFloat(string(id), 64); err != nil {
				return nil
			}
			return json.RawMessage(id)
		}
		return nil
	}
	return nil
}
