package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Wire holds the JSON-RPC messages of one client session as the bytes that
// crossed: the lines of a server's stdin and stdout, or the bodies of HTTP
// requests and answers (an SSE answer's data lines). Tests read the raw
// results from it, as a client other than the go-sdk's would get them.
type Wire struct {
	mu       sync.Mutex
	sent     []json.RawMessage
	received []json.RawMessage
}

func (w *Wire) add(to *[]json.RawMessage, line []byte) {
	line = bytes.TrimSpace(line)
	if data, ok := bytes.CutPrefix(line, []byte("data:")); ok {
		line = bytes.TrimSpace(data)
	}
	if len(line) == 0 || line[0] != '{' {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	*to = append(*to, json.RawMessage(bytes.Clone(line)))
}

// Exchange is one request and the raw answer to it.
type Exchange struct {
	Method string
	Params json.RawMessage // the request's, as sent
	Result json.RawMessage // the answer's, as received; nil for an error
}

// Exchanges pairs every request sent with its answer, in the order sent.
func (w *Wire) Exchanges() []Exchange {
	w.mu.Lock()
	defer w.mu.Unlock()
	results := map[string]json.RawMessage{}
	for _, m := range w.received {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(m, &msg) == nil && msg.Method == "" && len(msg.ID) > 0 {
			results[string(msg.ID)] = msg.Result
		}
	}
	var out []Exchange
	for _, m := range w.sent {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(m, &msg) == nil && msg.Method != "" && len(msg.ID) > 0 {
			out = append(out, Exchange{Method: msg.Method, Params: msg.Params, Result: results[string(msg.ID)]})
		}
	}
	return out
}

// Results returns the raw results of every request of method.
func (w *Wire) Results(method string) []json.RawMessage {
	var out []json.RawMessage
	for _, e := range w.Exchanges() {
		if e.Method == method && e.Result != nil {
			out = append(out, e.Result)
		}
	}
	return out
}

// StdioWire starts cmd and returns a transport to it over its standard
// input and output that records every line both ways. The process is
// ended when the test ends.
func StdioWire(t *testing.T, cmd *exec.Cmd) (mcp.Transport, *Wire) {
	t.Helper()
	w := &Wire{}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	out := &lineTap{w: w, to: &w.received}
	return &mcp.IOTransport{
		Reader: struct {
			io.Reader
			io.Closer
		}{io.TeeReader(stdout, out), stdout},
		Writer: &tappedWriter{WriteCloser: stdin, tap: &lineTap{w: w, to: &w.sent}},
	}, w
}

// lineTap records each complete line written to it.
type lineTap struct {
	w       *Wire
	to      *[]json.RawMessage
	mu      sync.Mutex
	pending []byte
}

func (l *lineTap) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending = append(l.pending, p...)
	for {
		i := bytes.IndexByte(l.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		l.w.add(l.to, l.pending[:i])
		l.pending = l.pending[i+1:]
	}
}

type tappedWriter struct {
	io.WriteCloser
	tap *lineTap
}

func (t *tappedWriter) Write(p []byte) (int, error) {
	n, err := t.WriteCloser.Write(p)
	t.tap.Write(p[:n])
	return n, err
}

// HTTPWire returns a Streamable HTTP client transport to endpoint that
// records every request body it sends and every answer it reads.
func HTTPWire(endpoint string) (*mcp.StreamableClientTransport, *Wire) {
	w := &Wire{}
	client := &http.Client{Transport: &wireRoundTripper{w: w, next: http.DefaultTransport}}
	return &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: client, DisableStandaloneSSE: true, MaxRetries: -1}, w
}

type wireRoundTripper struct {
	w    *Wire
	next http.RoundTripper
}

func (rt *wireRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		rt.w.add(&rt.w.sent, body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := rt.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	// An answer is read as the client reads it, line by line: an SSE
	// stream's data lines, or one JSON object.
	tap := &lineTap{w: rt.w, to: &rt.w.received}
	resp.Body = &tappedBody{ReadCloser: resp.Body, r: io.TeeReader(resp.Body, tap), tap: tap}
	return resp, nil
}

type tappedBody struct {
	io.ReadCloser
	r   io.Reader
	tap *lineTap
}

func (b *tappedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		// A plain JSON answer may end without a newline.
		b.tap.Write([]byte("\n"))
	}
	return n, err
}

// StatefulHTTP serves server over Streamable HTTP with sessions (the
// go-sdk's handler as it is, which the servers' own --transport http, being
// stateless, does not use) on loopback, and returns its URL.
func StatefulHTTP(t *testing.T, server *mcp.Server) string {
	t.Helper()
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Negotiated is the protocol version a session agreed on.
func Negotiated(session *mcp.ClientSession) string {
	if res := session.InitializeResult(); res != nil {
		return res.ProtocolVersion
	}
	return ""
}

// ConnectVersion connects a go-sdk client pinned to version over transport,
// and closes the session when the test ends.
func ConnectVersion(t *testing.T, transport mcp.Transport, version string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "version-client", Version: "1"}, nil)
	session, err := client.Connect(context.Background(), transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting at %s: %v", version, err)
	}
	t.Cleanup(func() { session.Close() })
	return session
}

// CheckCacheHints checks every raw result on the wire that carries cache
// hints (server/discover, the list methods, resources/read): each must be
// private, with the time to live ttl gives for its exchange.
func CheckCacheHints(t *testing.T, wire *Wire, ttl func(e Exchange) int) {
	t.Helper()
	carrying := map[string]bool{"server/discover": true, "tools/list": true, "prompts/list": true, "resources/list": true, "resources/templates/list": true, "resources/read": true}
	checked := 0
	for _, e := range wire.Exchanges() {
		if !carrying[e.Method] || e.Result == nil {
			continue
		}
		var hints struct {
			CacheScope *string `json:"cacheScope"`
			TTLMs      *int    `json:"ttlMs"`
		}
		if err := json.Unmarshal(e.Result, &hints); err != nil {
			t.Errorf("%s: %v", e.Method, err)
			continue
		}
		checked++
		want := ttl(e)
		if hints.CacheScope == nil || *hints.CacheScope != "private" || hints.TTLMs == nil || *hints.TTLMs != want {
			t.Errorf("%s %s: cache hints %s, want cacheScope private and ttlMs %d", e.Method, Short(e.Params, 120), Short(e.Result, 300), want)
		}
	}
	if checked == 0 {
		t.Error("no result on the wire carried cache hints")
	}
}

// Short is raw JSON cut to n bytes, for a test's message.
func Short(raw json.RawMessage, n int) string {
	s := string(raw)
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// ServerIcons returns the icons of the server's identity as the session's
// handshake gave them on the wire: initialize's serverInfo, or, from
// 2026-07-28, server/discover's _meta.
func ServerIcons(t *testing.T, wire *Wire) []mcp.Icon {
	t.Helper()
	for _, e := range wire.Exchanges() {
		var res struct {
			ServerInfo *mcp.Implementation `json:"serverInfo"`
			Meta       struct {
				ServerInfo *mcp.Implementation `json:"io.modelcontextprotocol/serverInfo"`
			} `json:"_meta"`
		}
		if e.Result == nil || json.Unmarshal(e.Result, &res) != nil {
			continue
		}
		switch {
		case e.Method == "initialize" && res.ServerInfo != nil:
			return res.ServerInfo.Icons
		case e.Method == "server/discover" && res.Meta.ServerInfo != nil:
			return res.Meta.ServerInfo.Icons
		}
	}
	t.Error("neither initialize nor server/discover named the server on the wire")
	return nil
}

// CheckVersionOnWire checks that the session spoke version on the wire: the
// handshake it takes (initialize with that version before 2026-07-28;
// server/discover, and that version in every request's _meta, from it).
func CheckVersionOnWire(t *testing.T, wire *Wire, version string) {
	t.Helper()
	exchanges := wire.Exchanges()
	methods := make([]string, len(exchanges))
	for i, e := range exchanges {
		methods[i] = e.Method
	}
	if version < "2026-07-28" {
		// A client that asked for a newer version first tries
		// server/discover, and falls back to initialize.
		first := 0
		if len(exchanges) > 1 && exchanges[0].Method == "server/discover" {
			first = 1
		}
		if len(exchanges) == 0 || exchanges[first].Method != "initialize" || !strings.Contains(string(exchanges[first].Result), `"protocolVersion":"`+version+`"`) {
			t.Errorf("the session did not start with initialize agreeing on %s: %v", version, methods)
		}
		return
	}
	if len(exchanges) == 0 || exchanges[0].Method != "server/discover" {
		t.Errorf("the session's first request is not server/discover: %v", methods)
	}
	for _, e := range exchanges {
		var params struct {
			Meta map[string]any `json:"_meta"`
		}
		json.Unmarshal(e.Params, &params)
		if params.Meta[mcp.MetaKeyProtocolVersion] != version {
			t.Errorf("%s went without %s in its _meta: %s", e.Method, version, Short(e.Params, 200))
		}
	}
	if len(wire.Results("initialize")) > 0 {
		t.Errorf("a %s session sent initialize: %v", version, methods)
	}
}

// CheckSVGIcon checks that icon is a small SVG inlined as a data: URI that
// an image decoder takes: percent-decoding gives well-formed XML whose root
// is an svg element in the SVG namespace (without it, browsers do not draw
// an SVG given as an image), within 1 KiB.
func CheckSVGIcon(t *testing.T, icon mcp.Icon) {
	t.Helper()
	encoded, ok := strings.CutPrefix(icon.Source, "data:image/svg+xml,")
	if !ok || icon.MIMEType != "image/svg+xml" || len(icon.Source) > 1024 {
		t.Fatalf("icon %.80q (%s, %d bytes): want an SVG data: URI within 1 KiB", icon.Source, icon.MIMEType, len(icon.Source))
	}
	svg, err := url.PathUnescape(encoded)
	if err != nil || strings.ContainsAny(encoded, "<>#\" ") {
		t.Fatalf("icon's data is not percent-encoded where a URI needs it: %v %q", err, encoded)
	}
	dec := xml.NewDecoder(strings.NewReader(svg))
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("icon's SVG is not well-formed XML: %v\n%s", err, svg)
		}
		if start, ok := tok.(xml.StartElement); ok && root == "" {
			root = start.Name.Space + " " + start.Name.Local
		}
	}
	if root != "http://www.w3.org/2000/svg svg" {
		t.Errorf("icon's root element is %q, want svg in the SVG namespace", root)
	}
}
