package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// blockingServer has a tool "block" that reports each start on started and
// then waits for its context to end, reporting the cause on stopped, or
// for release, answering "released"; and "big", which answers text of
// the size it is asked for, sending a progress notification first when
// the client asks for them.
type blockingServer struct {
	server  *mcp.Server
	started chan struct{}
	stopped chan error
	release chan struct{}
}

func newBlockingServer() *blockingServer {
	b := &blockingServer{started: make(chan struct{}, 10), stopped: make(chan error, 10), release: make(chan struct{})}
	b.server = mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	mcp.AddTool(b.server, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		b.started <- struct{}{}
		select {
		case <-ctx.Done():
			b.stopped <- context.Cause(ctx)
			return nil, nil, errors.New("block was cancelled")
		case <-b.release:
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "released"}}}, nil, nil
		}
	})
	type bigArgs struct {
		Bytes int  `json:"bytes,omitempty"`
		Quiet bool `json:"quiet,omitempty"` // send no progress, even when asked
	}
	mcp.AddTool(b.server, &mcp.Tool{Name: "big"}, func(ctx context.Context, req *mcp.CallToolRequest, args bigArgs) (*mcp.CallToolResult, any, error) {
		if token := req.Params.GetProgressToken(); token != nil && !args.Quiet {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Message: "working"})
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", args.Bytes)}}}, nil, nil
	})
	// flood sends one progress notification larger than any socket
	// buffer, so that its write waits on a client that does not read.
	mcp.AddTool(b.server, &mcp.Tool{Name: "flood"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		b.started <- struct{}{}
		err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Message: strings.Repeat("x", 64<<20)})
		return nil, nil, err
	})
	return b
}

// awaitStart waits for the tool to start; the deadline is a safety net.
func awaitStart(t *testing.T, b *blockingServer) {
	t.Helper()
	select {
	case <-b.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the tool never started")
	}
}

// awaitStop waits for the tool's context to end and returns the cause.
func awaitStop(t *testing.T, b *blockingServer) error {
	t.Helper()
	select {
	case cause := <-b.stopped:
		return cause
	case <-time.After(10 * time.Second):
		t.Fatal("the tool's context was not cancelled")
		return nil
	}
}

func serveBlocking(t *testing.T, b *blockingServer) (string, *httpCalls) {
	t.Helper()
	logger := slog.New(slog.DiscardHandler)
	calls := newHTTPCalls(logger, nil)
	srv := httptest.NewServer(httpHandler(b.server, logger, httpAccess{}, calls))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp", calls
}

// rpcPost posts one JSON-RPC message to url as a client of the Streamable
// HTTP transport would.
func rpcPost(ctx context.Context, url, body string, headers map[string]string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return http.DefaultClient.Do(req)
}

const callBlock = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"block","arguments":{}}}`

// TestHTTPClientGoneCancelsCall: a client that closes its connection
// mid-call stops the call's handler at once (the go-sdk's stateless handler
// alone leaves it running to its own end).
func TestHTTPClientGoneCancelsCall(t *testing.T) {
	b := newBlockingServer()
	url, _ := serveBlocking(t, b)
	ctx, abort := context.WithCancel(context.Background())
	posted := make(chan error, 1)
	go func() {
		resp, err := rpcPost(ctx, url, callBlock, nil)
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		posted <- err
	}()
	awaitStart(t, b)
	abort()
	if cause := awaitStop(t, b); !errors.Is(cause, context.Canceled) {
		t.Errorf("the handler's context ended with %v, want context.Canceled (the client went away)", cause)
	}
	if err := <-posted; !errors.Is(err, context.Canceled) {
		t.Errorf("the aborted POST: %v", err)
	}
}

// TestHTTPCancelledNotification: notifications/cancelled, which reaches a
// stateless server in a POST of its own, stops the call it names from the
// same client, which still gets an answer; the same id from another client,
// or an id that two calls of one client share, stops nothing.
func TestHTTPCancelledNotification(t *testing.T) {
	b := newBlockingServer()
	url, calls := serveBlocking(t, b)
	answers := make(chan string, 3)
	call := func(ua string) {
		resp, err := rpcPost(context.Background(), url, callBlock, map[string]string{"User-Agent": ua})
		if err != nil {
			answers <- err.Error()
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answers <- string(body)
	}
	cancel := func(ua string) {
		t.Helper()
		resp, err := rpcPost(context.Background(), url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user pressed Esc"}}`, map[string]string{"User-Agent": ua})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Errorf("notifications/cancelled: HTTP %d", resp.StatusCode)
		}
	}

	go call("client-a")
	go call("client-b")
	awaitStart(t, b)
	awaitStart(t, b)
	cancel("client-c") // nobody's call
	cancel("client-a")
	if cause := awaitStop(t, b); !errors.Is(cause, errClientCancelled) {
		t.Errorf("the handler's context ended with %v, want %v", cause, errClientCancelled)
	}
	if answer := <-answers; !strings.Contains(answer, `"id":7`) || !strings.Contains(answer, "cancelled") {
		t.Errorf("the cancelled call's answer: %s", answer)
	}
	// A cancellation a web page could send without a CORS preflight (not
	// JSON, which the SDK refuses) stops nothing: client-b's call runs on
	// (checked below).
	resp, err := rpcPost(context.Background(), url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`,
		map[string]string{"User-Agent": "client-b", "Content-Type": "text/plain"})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	// client-b's call runs on; a second call of client-b with the same id
	// makes its cancellation ambiguous, so nothing is stopped.
	go call("client-b")
	awaitStart(t, b)
	cancel("client-b")
	if n := calls.inFlight(); n != 2 {
		t.Errorf("%d calls in flight after an ambiguous cancellation, want 2", n)
	}
	close(b.release)
	for range 2 {
		if answer := <-answers; !strings.Contains(answer, "released") {
			t.Errorf("a call that was not cancelled: %s", answer)
		}
	}
	select {
	case cause := <-b.stopped:
		t.Errorf("a call was stopped: %v", cause)
	default:
	}
}

// TestHTTPGoClientCancel: the go-sdk's own client, cancelling a call's
// context, stops the server's handler.
func TestHTTPGoClientCancel(t *testing.T) {
	b := newBlockingServer()
	url, _ := serveBlocking(t, b)
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	session, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	ctx, cancel := context.WithCancel(context.Background())
	called := make(chan error, 1)
	go func() {
		_, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "block"})
		called <- err
	}()
	awaitStart(t, b)
	cancel()
	if cause := awaitStop(t, b); cause == nil {
		t.Error("no cause")
	}
	if err := <-called; !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool: %v", err)
	}
}

// syncLog is a log sink tests can wait on.
type syncLog struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newSyncLog() *syncLog { return &syncLog{changed: make(chan struct{}, 1)} }

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case l.changed <- struct{}{}:
	default:
	}
	return l.buf.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *syncLog) await(t *testing.T, text string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		l.mu.Lock()
		found := strings.Contains(l.buf.String(), text)
		l.mu.Unlock()
		if found {
			return
		}
		select {
		case <-l.changed:
		case <-deadline:
			t.Fatalf("the log never said %q", text)
		}
	}
}

// startServing runs serveMCP on a loopback listener until the returned
// stop is called; stop returns serveMCP's error.
func startServing(t *testing.T, server *mcp.Server, grace time.Duration, log io.Writer) (string, func() error) {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return serveOn(t, listener, server, grace, log)
}

// serveOn is startServing on a listener of the test's.
func serveOn(t *testing.T, listener net.Listener, server *mcp.Server, grace time.Duration, log io.Writer) (string, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- serveMCP(ctx, listener, server, httpAccess{}, slog.New(slog.NewTextHandler(log, nil)), grace)
	}()
	stop := func() error {
		cancel()
		select {
		case err := <-served:
			return err
		case <-time.After(15 * time.Second):
			t.Fatal("the server did not stop")
			return nil
		}
	}
	t.Cleanup(func() { cancel() })
	return "http://" + listener.Addr().String() + "/mcp", stop
}

func connectGo(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	session, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	return session
}

// TestHTTPShutdownAnswersCalls: when the server is stopped, a call still
// running after the grace gets a "server shutting down" tool error (not an
// empty reply), and the server returns once it is out.
func TestHTTPShutdownAnswersCalls(t *testing.T) {
	b := newBlockingServer()
	url, stop := startServing(t, b.server, 0, io.Discard)
	session := connectGo(t, url)
	called := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "block"})
		if err != nil {
			t.Errorf("CallTool: %v", err)
		}
		called <- res
	}()
	awaitStart(t, b)
	if err := stop(); err != nil {
		t.Errorf("serve: %v", err)
	}
	res := <-called
	if res == nil || !res.IsError || !strings.Contains(httpToolText(res), "server shutting down") {
		t.Errorf("the call in flight got %+v, want a server shutting down tool error", res)
	}
	if cause := awaitStop(t, b); !errors.Is(cause, errShuttingDown) {
		t.Errorf("the handler's context ended with %v", cause)
	}
}

// TestHTTPShutdownKeepsResults: a call that finishes within the grace
// gets its own result.
func TestHTTPShutdownKeepsResults(t *testing.T) {
	b := newBlockingServer()
	log := newSyncLog()
	url, stop := startServing(t, b.server, time.Hour, log)
	session := connectGo(t, url)
	called := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "block"})
		if err != nil {
			t.Errorf("CallTool: %v", err)
		}
		called <- res
	}()
	awaitStart(t, b)
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	log.await(t, "shutting down")
	close(b.release)
	if res := <-called; res == nil || res.IsError || httpToolText(res) != "released" {
		t.Errorf("the call in flight got %+v, want its own result", res)
	}
	if err := <-stopped; err != nil {
		t.Errorf("serve: %v", err)
	}
}

func httpToolText(res *mcp.CallToolResult) string {
	var texts []string
	for _, c := range res.Content {
		if text, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, text.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// TestHTTPTooLarge: a body over 4 MiB gets a JSON-RPC error that names
// the limit, not a plain-text line: with status 200 as the answer to its
// call when the id comes before the cut (the go-sdk's client, whose
// session goes on), else with 413 and a null id.
func TestHTTPTooLarge(t *testing.T) {
	url, _ := serveBlocking(t, newBlockingServer())
	pad := strings.Repeat("a", mcp.DefaultMaxRequestBodyBytes)
	for _, tt := range []struct {
		body   string
		status int
		id     string
	}{
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"big","arguments":{"pad":"` + pad + `"}},"id":1}`, http.StatusRequestEntityTooLarge, "null"},
		{`{"jsonrpc":"2.0","id":"call-9","method":"tools/call","params":{"name":"big","arguments":{"pad":"` + pad + `"}}}`, http.StatusOK, `"call-9"`},
		{`{"jsonrpc":"2.0","id":{"no":1},"method":"tools/call","params":{"name":"big","arguments":{"pad":"` + pad + `"}}}`, http.StatusRequestEntityTooLarge, "null"},
		{`[{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"big","arguments":{"pad":"` + pad + `"}}}]`, http.StatusRequestEntityTooLarge, "null"},
	} {
		resp, err := rpcPost(context.Background(), url, tt.body, nil)
		if err != nil {
			t.Fatal(err)
		}
		var answer struct {
			ID    json.RawMessage `json:"id"`
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		err = json.NewDecoder(resp.Body).Decode(&answer)
		resp.Body.Close()
		if resp.StatusCode != tt.status || resp.Header.Get("Content-Type") != "application/json" || err != nil || string(answer.ID) != tt.id ||
			answer.Error.Code != -32600 || !strings.Contains(answer.Error.Message, "limit of 4194304 bytes (4 MiB)") {
			t.Errorf("%.40s...: HTTP %d %s: %+v (%v); want %d and id %s", tt.body, resp.StatusCode, resp.Header.Get("Content-Type"), answer, err, tt.status, tt.id)
		}
	}

	// The go-sdk's client shows the error as the call's, and its session
	// goes on.
	session := connectGo(t, url)
	_, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "big", Arguments: map[string]any{"pad": pad}})
	if err == nil || !strings.Contains(err.Error(), "limit of 4194304 bytes (4 MiB)") {
		t.Errorf("go-sdk client, a 4 MiB call: %v", err)
	}
	if res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "big", Arguments: map[string]any{"bytes": 3}}); err != nil || httpToolText(res) != "xxx" {
		t.Errorf("the next call: %v", err)
	}
}

// TestHTTPJSONUnlessStreamed: a call is answered as one JSON body, however
// large (an SSE event over 1 MiB is more than some SDKs read), unless it
// sends a notification before its result, which only an SSE stream
// carries: asking for progress from a call that sends none (as
// graphql_introspect or resources/read) still gets JSON.
func TestHTTPJSONUnlessStreamed(t *testing.T) {
	url, _ := serveBlocking(t, newBlockingServer())
	const size = 3 << 20
	for _, tt := range []struct {
		args, meta  string
		contentType string
		progress    bool
	}{
		{`"bytes":3145728`, ``, "application/json", false},
		{`"bytes":3145728,"quiet":true`, `,"_meta":{"progressToken":"p1"}`, "application/json", false},
		{`"bytes":3145728`, `,"_meta":{"progressToken":"p1"}`, "text/event-stream", true},
	} {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big","arguments":{` + tt.args + `}` + tt.meta + `}}`
		resp, err := rpcPost(context.Background(), url, body, nil)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := resp.Header.Get("Content-Type"); got != tt.contentType {
			t.Errorf("%s%s: Content-Type %q, want %q", tt.args, tt.meta, got, tt.contentType)
		}
		if !bytes.Contains(data, bytes.Repeat([]byte("x"), size)) {
			t.Errorf("%s%s: the %d-byte result is not in the answer (%d bytes)", tt.args, tt.meta, size, len(data))
		}
		if got := bytes.Contains(data, []byte("notifications/progress")); got != tt.progress {
			t.Errorf("%s%s: progress notification sent: %v, want %v", tt.args, tt.meta, got, tt.progress)
		}
		if tt.contentType == "application/json" {
			var answer struct {
				ID     int             `json:"id"`
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(data, &answer); err != nil || answer.ID != 1 || len(answer.Result) == 0 {
				t.Errorf("%s%s: the JSON answer is not the call's response: %v", tt.args, tt.meta, err)
			}
		}
	}
	// A notification is still answered 202, with no body.
	resp, err := rpcPost(context.Background(), url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("a notification: HTTP %d", resp.StatusCode)
	}
	// And the go-sdk client reads all of them.
	session := connectGo(t, url)
	for _, args := range []map[string]any{{"bytes": size}, {"bytes": size, "quiet": true}} {
		params := &mcp.CallToolParams{Name: "big", Arguments: args}
		params.SetProgressToken("p")
		res, err := session.CallTool(context.Background(), params)
		if err != nil || len(httpToolText(res)) != size {
			t.Errorf("go-sdk client, %v: %v", args, err)
		}
	}
}

// readsLog is a listener whose connections report once the server, having
// read want bytes from one, reads on: the request is parsed and its handler
// waits for the rest of the body.
type readsLog struct {
	net.Listener
	want    int
	waiting chan struct{}
}

func (l *readsLog) Accept() (net.Conn, error) {
	conn, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: conn, l: l}, nil
}

type countingConn struct {
	net.Conn
	l    *readsLog
	mu   sync.Mutex
	read int
}

func (c *countingConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	if c.read >= c.l.want {
		select {
		case c.l.waiting <- struct{}{}:
		default:
		}
	}
	c.mu.Unlock()
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.read += n
	c.mu.Unlock()
	return n, err
}

// partialRequest is a POST to /mcp with the headers of a body of
// contentLength bytes, and only prefix of that body.
func partialRequest(addr, prefix string, contentLength int) string {
	return fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"Mcp-Protocol-Version: 2025-06-18\r\nContent-Length: %d\r\n\r\n%s", addr, contentLength, prefix)
}

// sendRaw connects to addr and sends request, leaving the connection open.
func sendRaw(t *testing.T, addr, request string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	return conn
}

// TestHTTPShutdownCutsSlowBody: a client that sent part of a call's body
// and stopped does not hold the server's end: when the grace is over its
// call is answered with a "server shutting down" JSON-RPC error (with its
// id, which came first), and the server returns without an error, rather
// than after a 10 s shutdown deadline with one.
func TestHTTPShutdownCutsSlowBody(t *testing.T) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := listener.Addr().String()
	request := partialRequest(addr, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"block",`, 1000)
	reads := &readsLog{Listener: listener, want: len(request), waiting: make(chan struct{}, 1)}
	_, stop := serveOn(t, reads, newBlockingServer().server, 0, io.Discard)
	conn := sendRaw(t, addr, request)
	select {
	case <-reads.waiting:
	case <-time.After(10 * time.Second):
		t.Fatal("the server never waited for the rest of the body")
	}
	if err := stop(); err != nil {
		t.Errorf("serve: %v, want a clean end", err)
	}
	conn.SetReadDeadline(time.Now().Add(10 * time.Second)) // a safety net
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to the cut request: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"id":5`) || !strings.Contains(string(body), "server shutting down") {
		t.Errorf("the cut request got HTTP %d: %s", resp.StatusCode, body)
	}
}

// TestHTTPShutdownStuckReader: a client whose answer stream the server
// cannot write (it does not read) does not hold the server's end either:
// its connection is closed after the grace and the answers' time.
func TestHTTPShutdownStuckReader(t *testing.T) {
	b := newBlockingServer()
	url, stop := startServing(t, b.server, 0, io.Discard)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := rpcPost(ctx, url, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"flood","arguments":{},"_meta":{"progressToken":"f"}}}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close() // never read: the 64 MiB notification fills every buffer
	awaitStart(t, b)
	if err := stop(); err != nil {
		t.Errorf("serve: %v, want a clean end", err)
	}
}

// TestHTTPSlowBody: a body that does not arrive within the time allowed
// gets a JSON-RPC error naming the limit, as the call's answer.
func TestHTTPSlowBody(t *testing.T) {
	logger := slog.New(slog.DiscardHandler)
	b := newBlockingServer()
	handler := newMCPHTTP(b.server, logger, newHTTPCalls(logger, nil))
	handler.maxBodyTime = time.Millisecond
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()
	conn := sendRaw(t, addr, partialRequest(addr, `{"jsonrpc":"2.0","id":"slow","method":"tools/call",`, 1000))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second)) // a safety net
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"id":"slow"`) || !strings.Contains(string(body), "did not fully arrive within this server's limit of 1ms") {
		t.Errorf("a slow body got HTTP %d: %s", resp.StatusCode, body)
	}
}

// FuzzLeadingID: whatever the cut body, leadingID does not panic, and
// what it finds is a JSON string or number no longer than maxTrackedIDLen.
func FuzzLeadingID(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"na`,
		`{"id":"a\"b","params":`,
		`{"id":-1.5e3}`,
		`{"id":null,"id":2}`,
		`{"id":{"x":1}`,
		`[{"id":1}]`,
		`{"params":{"id":1},"id":`,
		`{"id":tru`,
		`{"id":1e700`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, prefix []byte) {
		id := leadingID(prefix)
		if id == nil {
			return
		}
		var v any
		if err := json.Unmarshal(id, &v); err != nil || len(id) > maxTrackedIDLen {
			t.Fatalf("leadingID(%q) = %s: %v", prefix, id, err)
		}
		switch v.(type) {
		case string, float64:
		default:
			t.Fatalf("leadingID(%q) = %s, neither a string nor a number", prefix, id)
		}
	})
}

// TestHTTPRepeatedKey: a POST whose message gives a key twice is refused
// before the SDK reads it (which would run the last of the two): status
// 200 and an invalid request error to the call's id, or 400 and id null
// when the id is the key given twice; the tool never starts.
func TestHTTPRepeatedKey(t *testing.T) {
	b := newBlockingServer()
	url, _ := serveBlocking(t, b)
	for _, tt := range []struct {
		body, key, in string
		status        int
		id            any
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big","arguments":{},"name":"block"}}`, "name", "params", 200, 1.0},
		{`{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"block","arguments":{"a":1},"arguments":{}}}`, "arguments", "params", 200, "two"},
		{`{"jsonrpc":"2.0","id":3,"method":"ping","method":"tools/call","params":{"name":"block","arguments":{}}}`, "method", "the message", 200, 3.0},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"block","arguments":{}},"id":5}`, "id", "the message", 400, nil},
		{`{"jsonrpc":"2.0","method":"notifications/initialized","params":{"_meta":{"a":1,"a":2}}}`, "a", "params._meta", 400, nil},
	} {
		// The deadline is a safety net: a "block" that ran would hold the
		// answer until it.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		resp, err := rpcPost(ctx, url, tt.body, nil)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		var answer map[string]any
		err = json.NewDecoder(resp.Body).Decode(&answer)
		resp.Body.Close()
		cancel()
		e, _ := answer["error"].(map[string]any)
		message, _ := e["message"].(string)
		if err != nil || resp.StatusCode != tt.status || answer["id"] != tt.id || e["code"] != -32600.0 ||
			!strings.Contains(message, `the key "`+tt.key+`" is given twice in `+tt.in+`;`) {
			t.Errorf("%s: status %d, %v (%v); want %d, error -32600 to id %v naming %q in %s", tt.body, resp.StatusCode, answer, err, tt.status, tt.id, tt.key, tt.in)
		}
	}
	select {
	case <-b.started:
		t.Error("a tool ran")
	default:
	}
	// Nested two million deep, a body is answered (by the SDK, as JSON it
	// cannot read) and the server goes on.
	resp, err := rpcPost(context.Background(), url, `{"jsonrpc":"2.0","id":6,"method":"ping","params":{"a":`+strings.Repeat("[", 2_000_000)+strings.Repeat("]", 2_000_000)+`}}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		t.Errorf("nested two million deep: status %d", resp.StatusCode)
	}
	resp, err = rpcPost(context.Background(), url, `{"jsonrpc":"2.0","id":7,"method":"ping"}`, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("ping after: %v %v", err, resp)
	}
	resp.Body.Close()
}

// TestHTTPOversizedEnvelope: over HTTP too, a method, id or progress
// token longer than any client needs is refused with a short error.
func TestHTTPOversizedEnvelope(t *testing.T) {
	b := newBlockingServer()
	url, _ := serveBlocking(t, b)
	huge := strings.Repeat("x", 1_100_000)
	for _, tt := range []struct {
		body   string
		status int
		code   float64
		id     any
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"` + huge + `"}`, 200, -32601, 1.0},
		{`{"jsonrpc":"2.0","id":"` + huge + `","method":"ping"}`, 400, -32600, nil},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"block","arguments":{},"_meta":{"progressToken":"` + huge + `"}}}`, 200, -32602, 3.0},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		resp, err := rpcPost(ctx, url, tt.body, nil)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		var answer map[string]any
		_ = json.Unmarshal(body, &answer)
		e, _ := answer["error"].(map[string]any)
		if resp.StatusCode != tt.status || e["code"] != tt.code || answer["id"] != tt.id || len(body) > 500 {
			t.Errorf("%.60s…: status %d, %d bytes: %.300s; want %d, code %v to id %v", tt.body, resp.StatusCode, len(body), body, tt.status, tt.code, tt.id)
		}
	}
}
