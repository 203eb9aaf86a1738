package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// countingListener counts the connections the server holds open, and the
// most it held at once.
type countingListener struct {
	net.Listener
	mu         sync.Mutex
	open, most int
}

func (l *countingListener) Accept() (net.Conn, error) {
	conn, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.open++
	l.most = max(l.most, l.open)
	l.mu.Unlock()
	return &countedConn{Conn: conn, l: l}, nil
}

func (l *countingListener) mostOpen() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.most
}

type countedConn struct {
	net.Conn
	l    *countingListener
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		c.l.open--
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

// bearer adds the token to every request of a client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// hold is one connection of the load: it sends what it is given and reads
// until the server closes the connection, reporting the status line it
// got (or "" for none) and whether the server closed it before the safety
// deadline.
// sent is told once what there was to send is sent (or failed to be).
// from is the local IP to connect from ("" for any).
func hold(addr, from, send string, deadline time.Time, sent *sync.WaitGroup, report chan<- string) {
	var dialer net.Dialer
	if from != "" {
		dialer.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	conn, err := dialer.Dial("tcp", addr)
	if err != nil {
		sent.Done()
		report <- "dial: " + err.Error()
		return
	}
	defer conn.Close()
	_ = conn.SetDeadline(deadline)
	if send != "" {
		if _, err := io.WriteString(conn, send); err != nil {
			sent.Done()
			report <- "write: " + err.Error()
			return
		}
	}
	sent.Done()
	r := bufio.NewReader(conn)
	status, _ := r.ReadString('\n')
	_, err = io.Copy(io.Discard, r)
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		report <- fmt.Sprintf("still open at the safety deadline (status %q)", strings.TrimSpace(status))
		return
	}
	report <- strings.TrimSpace(status)
}

// TestHTTPListenerCannotBeHeld: without a token, 1,000 keep-alive
// connections to /healthz from an address of their own, 5 POSTs whose
// bodies never finish, and 5 connections that send nothing at all; with
// the token, 5 POSTs whose bodies never finish, and a connection left idle
// after its call. Each is closed by the server (within its limit: no
// waiting for the unadmitted, the body time, the header time, the idle
// time; a flood connection possibly before its header is read, to make
// room), only the flood's own connections are closed unanswered, the
// server never holds more connections than its cap and the one just
// accepted, and an authenticated call made while the load stands is
// answered. The limits are short ones (serveMCPWith), so
// the test takes no wall-clock wait of the real ones.
func TestHTTPListenerCannotBeHeld(t *testing.T) {
	const token = "0123456789abcdef-limits"
	var evictions atomic.Int64
	limits := httpLimits{readHeader: 500 * time.Millisecond, idle: 300 * time.Millisecond, body: 300 * time.Millisecond, conns: 64, perAddr: 40,
		onEvict: func(net.Addr) { evictions.Add(1) }}
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	listener := &countingListener{Listener: inner}
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- serveMCPWith(ctx, listener, server, httpAccess{token: token}, slog.New(slog.DiscardHandler), time.Second, limits)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	addr := inner.Addr().String()

	// Safety net only: every connection is expected to end long before.
	deadline := time.Now().Add(20 * time.Second)
	// The flood comes from an address of its own, as an attacker's would.
	const flood = "127.0.0.2"
	const healthz = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
	trickle := func(auth string) string {
		return "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
			auth + "Content-Length: 4096\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,"
	}
	type load struct {
		name, from, send string
		count            int
		want             string // the status line, "" for none
	}
	loads := []load{
		{"keep-alive /healthz without a token", flood, healthz, 1000, "HTTP/1.1 200 OK"},
		{"a trickling POST without a token", "", trickle(""), 5, "HTTP/1.1 401 Unauthorized"},
		{"a connection that sends nothing", "", "", 5, ""},
		{"a trickling POST with the token", "", trickle("Authorization: Bearer " + token + "\r\n"), 5, "HTTP/1.1 200 OK"},
		{"a trickling GET with the token", "", strings.Replace(trickle("Authorization: Bearer "+token+"\r\n"), "POST", "GET", 1), 5, "HTTP/1.1 405 Method Not Allowed"},
	}
	reports := make([]chan string, len(loads))
	var sent sync.WaitGroup
	for i, l := range loads {
		reports[i] = make(chan string, l.count)
		sent.Add(l.count)
		for range l.count {
			go hold(addr, l.from, l.send, deadline, &sent, reports[i])
		}
	}
	sent.Wait()

	// The authenticated call, once the whole load is on the wire. Its
	// bound is a safety margin over the fraction of a second it takes (the
	// server works through the queued load first) on a loaded machine.
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	callCtx, callCancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer callCancel()
	start := time.Now()
	session, err := client.Connect(callCtx, &mcp.StreamableClientTransport{
		Endpoint: "http://" + addr + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}, MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatalf("the authenticated client could not connect under load: %v", err)
	}
	if _, err := session.ListTools(callCtx, nil); err != nil {
		t.Errorf("the authenticated call under load: %v", err)
	}
	t.Logf("the authenticated call was answered in %s under load", time.Since(start).Round(time.Millisecond))
	session.Close()

	// The flood's address is over its share (perAddr), so its oldest
	// connection not yet read is closed to make room for its next one, with
	// no answer; the other clients' connections are not touched.
	for i, l := range loads {
		unanswered := 0
		for range l.count {
			got := <-reports[i]
			if got == "" && l.from == flood {
				unanswered++
				continue
			}
			if got != l.want {
				t.Errorf("%s: %q, want %q and the connection closed by the server", l.name, got, l.want)
				break
			}
		}
		if unanswered > int(evictions.Load()) {
			t.Errorf("%s: %d got no answer, but only %d connections were closed to make room", l.name, unanswered, evictions.Load())
		}
	}

	// An admitted connection is kept alive between calls, but not idle
	// for longer than the idle limit.
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	idle := make(chan string, 1)
	var idleSent sync.WaitGroup
	idleSent.Add(1)
	hold(addr, "", fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"Authorization: Bearer %s\r\nContent-Length: %d\r\n\r\n%s", token, len(ping), ping), deadline, &idleSent, idle)
	if got := <-idle; got != "HTTP/1.1 200 OK" {
		t.Errorf("an idle authenticated connection: %q, want an answer, then the connection closed", got)
	}

	// The one over the cap is the connection just accepted, before the
	// one it replaces is closed.
	if most := listener.mostOpen(); most > limits.conns+1 {
		t.Errorf("the server held %d connections at once, over its cap of %d and the one just accepted", most, limits.conns)
	}
}

// TestUnadmittedAnswersClose: every answer to a request the guard did not
// admit says Connection: close; an admitted one does not.
func TestUnadmittedAnswersClose(t *testing.T) {
	access, err := httpAccessFrom("127.0.0.1:0", []string{"https://app.example"}, "0123456789abcdef-close", false, "TEST")
	if err != nil {
		t.Fatal(err)
	}
	url := serveTest(t, access)
	for _, tt := range []struct {
		method, path string
		headers      map[string]string
		close        bool
	}{
		{"GET", "/healthz", nil, true},
		{"GET", "/nothing-here", nil, true},
		{"POST", "/healthz", nil, true},
		{"POST", "/mcp", nil, true},
		{"POST", "/mcp", map[string]string{"Authorization": "Bearer wrong-token-wrong-token"}, true},
		{"POST", "/mcp", map[string]string{"Origin": "https://evil.example", "Authorization": "Bearer 0123456789abcdef-close"}, true},
		{"OPTIONS", "/mcp", map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "POST"}, true},
		{"POST", "/mcp", map[string]string{"Authorization": "Bearer 0123456789abcdef-close"}, false},
	} {
		req, _ := http.NewRequest(tt.method, url+tt.path, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range tt.headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.Close != tt.close {
			t.Errorf("%s %s %v: HTTP %d, Connection: close %v, want %v", tt.method, tt.path, tt.headers, resp.StatusCode, resp.Close, tt.close)
		}
	}
}

func TestConnectionCap(t *testing.T) {
	limit, ok := descriptorLimit()
	got := connectionCap()
	if got < minConnections || got > maxConnections || (ok && uint64(got) > max(limit/2, minConnections)) {
		t.Errorf("connectionCap() = %d with a descriptor limit of %d (%v)", got, limit, ok)
	}
}

// TestHTTPRefusedBodyIsNotAwaited: an admitted request whose body is
// refused (too large) is answered and its connection closed at once, not
// after the rest of the body or the body time (an hour here).
func TestHTTPRefusedBodyIsNotAwaited(t *testing.T) {
	limits := httpLimits{readHeader: time.Hour, idle: time.Hour, body: time.Hour, conns: 8}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- serveMCPWith(ctx, listener, server, httpAccess{}, slog.New(slog.DiscardHandler), time.Second, limits)
	}()
	t.Cleanup(func() { cancel(); <-served })

	size := mcp.DefaultMaxRequestBodyBytes + 1
	head := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"Content-Length: %d\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"pad\":\"", size+1<<10)
	// Safety net only.
	report := make(chan string, 1)
	var sent sync.WaitGroup
	sent.Add(1)
	hold(listener.Addr().String(), "", head+strings.Repeat("x", size), time.Now().Add(20*time.Second), &sent, report)
	if got := <-report; got != "HTTP/1.1 200 OK" {
		t.Errorf("a body over the limit, its rest never sent: %q, want its error answered and the connection closed", got)
	}
}

// TestHTTPSilentConnectionsDoNotStarveAdmitted: more
// connections than the cap that send nothing and carry no token, then an
// authenticated call, which must be answered within a second although the
// header time is an hour: the silent connections are closed to make room
// (oldest first), not waited out.
func TestHTTPSilentConnectionsDoNotStarveAdmitted(t *testing.T) {
	const token = "0123456789abcdef-silent"
	const capacity, extra = 16, 4
	evicted := make(chan net.Addr, 2*(capacity+extra))
	limits := httpLimits{readHeader: time.Hour, idle: time.Hour, body: time.Hour, conns: capacity, perAddr: capacity,
		onEvict: func(remote net.Addr) { evicted <- remote }}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- serveMCPWith(ctx, listener, server, httpAccess{token: token}, slog.New(slog.DiscardHandler), time.Second, limits)
	}()
	t.Cleanup(func() { cancel(); <-served })
	addr := listener.Addr().String()

	silent := make([]net.Conn, capacity+extra)
	for i := range silent {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		silent[i] = conn
	}
	// Once extra have been closed, every silent connection has been
	// accepted and the server is at its cap.
	safety := time.After(10 * time.Second)
	closed := map[string]bool{}
	for range extra {
		select {
		case remote := <-evicted:
			closed[remote.String()] = true
		case <-safety:
			t.Fatalf("the server held %d silent connections without closing any to make room; closed %d", capacity+extra, len(closed))
		}
	}
	for i, conn := range silent[:extra] {
		if !closed[conn.LocalAddr().String()] {
			t.Errorf("silent connection %d of %d was not among the first closed: the oldest go first", i+1, capacity+extra)
		}
	}

	// The bound is the acceptance: an authenticated call under
	// this load is answered within a second.
	callCtx, callCancel := context.WithTimeout(context.Background(), time.Second)
	defer callCancel()
	req, _ := http.NewRequestWithContext(callCtx, "POST", "http://"+addr+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("an authenticated ping with %d silent connections open: %v", capacity, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"result":{}`) {
		t.Errorf("an authenticated ping under load: HTTP %d %s", resp.StatusCode, body)
	}
	select {
	case <-evicted:
	default:
		t.Errorf("the authenticated call was served without a silent connection closed to make room")
	}
}

// TestHTTPAdmittedConnectionsAreNotEvicted: with the cap full of silent
// connections and kept-alive admitted ones, the silent ones are closed to
// make room for more, and the admitted ones keep serving calls.
func TestHTTPAdmittedConnectionsAreNotEvicted(t *testing.T) {
	const token = "0123456789abcdef-admitted"
	const capacity, admitted, silentCount = 4, 2, 6
	evicted := make(chan net.Addr, capacity+silentCount)
	limits := httpLimits{readHeader: time.Hour, idle: time.Hour, body: time.Hour, conns: capacity, perAddr: capacity,
		onEvict: func(remote net.Addr) { evicted <- remote }}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- serveMCPWith(ctx, listener, server, httpAccess{token: token}, slog.New(slog.DiscardHandler), time.Second, limits)
	}()
	t.Cleanup(func() { cancel(); <-served })
	addr := listener.Addr().String()

	// Safety net only.
	deadline := time.Now().Add(10 * time.Second)
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	call := func(conn net.Conn, r *bufio.Reader) error {
		if _, err := fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
			"Authorization: Bearer %s\r\nContent-Length: %d\r\n\r\n%s", token, len(ping), ping); err != nil {
			return err
		}
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK || resp.Close {
			return fmt.Errorf("HTTP %d, Connection: close %v", resp.StatusCode, resp.Close)
		}
		return nil
	}
	kept := map[string]bool{}
	type keptConn struct {
		conn net.Conn
		r    *bufio.Reader
	}
	var keptConns []keptConn
	for range admitted {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(deadline)
		r := bufio.NewReader(conn)
		if err := call(conn, r); err != nil {
			t.Fatalf("an authenticated call: %v", err)
		}
		kept[conn.LocalAddr().String()] = true
		keptConns = append(keptConns, keptConn{conn, r})
	}
	for range silentCount {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
	}
	safety := time.After(10 * time.Second)
	for range admitted + silentCount - capacity {
		select {
		case remote := <-evicted:
			if kept[remote.String()] {
				t.Errorf("the admitted connection from %s was closed to make room", remote)
			}
		case <-safety:
			t.Fatal("the server did not close silent connections to make room at its cap")
		}
	}
	for i, k := range keptConns {
		if err := call(k.conn, k.r); err != nil {
			t.Errorf("a second call on admitted connection %d: %v", i+1, err)
		}
	}
}
