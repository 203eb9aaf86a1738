package app

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// post sends an initialize request to /mcp with the given headers and
// returns the status and the WWW-Authenticate header.
func post(t *testing.T, url string, headers map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(initialize))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
}

func serveTest(t *testing.T, access httpAccess) string {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	logger := slog.New(slog.DiscardHandler)
	srv := httptest.NewServer(httpHandler(server, logger, access, newHTTPCalls(logger, nil)))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestHTTPOrigin: a request from a web page on another origin is refused
// with 403 unless the operator allowed that origin; local pages and
// programs (no Origin) are served.
func TestHTTPOrigin(t *testing.T) {
	access, err := httpAccessFrom("127.0.0.1:0", []string{"https://App.Example.com:443, http://tool.example:8080"}, "", false, "TEST")
	if err != nil {
		t.Fatal(err)
	}
	url := serveTest(t, access)
	for origin, want := range map[string]int{
		"":                          http.StatusOK,
		"http://localhost:6274":     http.StatusOK,
		"http://127.0.0.1":          http.StatusOK,
		"http://[::1]:3000":         http.StatusOK,
		"https://app.example.com":   http.StatusOK,
		"http://tool.example:8080":  http.StatusOK,
		"https://evil.example.com":  http.StatusForbidden,
		"http://localhost.evil.com": http.StatusForbidden,
		"http://tool.example:8081":  http.StatusForbidden,
		"null":                      http.StatusForbidden,
		"file://":                   http.StatusForbidden,
	} {
		headers := map[string]string{}
		if origin != "" {
			headers["Origin"] = origin
		}
		if got, _ := post(t, url, headers); got != want {
			t.Errorf("Origin %q: HTTP %d, want %d", origin, got, want)
		}
	}
}

// TestHTTPBearerToken: with --http-token, /mcp answers 401 with
// WWW-Authenticate: Bearer unless the token comes; /healthz stays open.
func TestHTTPBearerToken(t *testing.T) {
	const token = "0123456789abcdef0123"
	access, err := httpAccessFrom("0.0.0.0:0", nil, token, false, "TEST")
	if err != nil {
		t.Fatal(err)
	}
	url := serveTest(t, access)
	for auth, want := range map[string]int{
		"":                         http.StatusUnauthorized,
		"Bearer wrong-token-value": http.StatusUnauthorized,
		"Bearer " + token + "x":    http.StatusUnauthorized,
		"Basic " + token:           http.StatusUnauthorized,
		"bearer" + token:           http.StatusUnauthorized,
		"Bearer " + token:          http.StatusOK,
	} {
		headers := map[string]string{}
		if auth != "" {
			headers["Authorization"] = auth
		}
		got, challenge := post(t, url, headers)
		if got != want || (want == http.StatusUnauthorized && !strings.HasPrefix(challenge, "Bearer")) {
			t.Errorf("Authorization %q: HTTP %d (WWW-Authenticate %q), want %d", auth, got, challenge, want)
		}
	}
	resp, err := http.Get(url + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("healthz: %v %v", err, resp)
	}
}

// TestHTTPListenNeedsToken: a non-loopback listener without a token is
// refused at start-up (exit 2, one line, the token never repeated), unless
// the operator says --insecure-no-auth; loopback works as before.
func TestHTTPListenNeedsToken(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--listen", "0.0.0.0:0"}, "--listen (TESTMCP_LISTEN) is 0.0.0.0:0, not a loopback address"},
		{[]string{"--listen", ":0"}, "set --http-token (TESTMCP_HTTP_TOKEN)"},
		{[]string{"--listen", "[::]:0"}, "--insecure-no-auth"},
		{[]string{"--listen", "0.0.0.0:0", "--http-token", "short-secret"}, "must be at least 16 characters"},
		{[]string{"--allow-origin", "example.com"}, `--allow-origin (TESTMCP_ALLOW_ORIGIN) must be a web origin, scheme://host[:port]; got "example.com"`},
	} {
		var stderr strings.Builder
		code := Run(context.Background(), testSpec(), append([]string{"testmcp", "--transport", "http"}, tt.args...), Streams{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &stderr})
		if code != exitUsage || !strings.Contains(stderr.String(), tt.want) || strings.Contains(stderr.String(), "short-secret") {
			t.Errorf("%v: code %d, stderr %q; want %d and %q", tt.args, code, stderr.String(), exitUsage, tt.want)
		}
	}
	for _, listen := range []string{"127.0.0.1:0", "localhost:0", "[::1]:0", "127.1.2.3:0"} {
		if !isLoopbackListen(listen) {
			t.Errorf("%s is loopback", listen)
		}
	}
	if _, err := httpAccessFrom("0.0.0.0:0", nil, "", true, "TEST"); err != nil {
		t.Errorf("--insecure-no-auth: %v", err)
	}
}

// TestHTTPCORS: a page of an origin --allow-origin lists (remote, or one
// on this machine) gets its preflight answered, with the transport's
// headers allowed, and can read answers, the session and protocol-version
// headers and a 401's challenge. Any other page cannot read an answer: a
// local origin not listed is served as a program's request, with no CORS
// header, and its preflight refused; another origin gets 403 and no CORS
// header, preflight or not.
func TestHTTPCORS(t *testing.T) {
	const token = "0123456789abcdef0123"
	access, err := httpAccessFrom("127.0.0.1:0", []string{"https://app.example.com", "http://localhost:5173"}, token, false, "TEST")
	if err != nil {
		t.Fatal(err)
	}
	url := serveTest(t, access)
	send := func(method, origin string, headers map[string]string) *http.Response {
		t.Helper()
		body := io.Reader(nil)
		if method == http.MethodPost {
			body = strings.NewReader(initialize)
		}
		req, err := http.NewRequest(method, url+"/mcp", body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", origin)
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	preflight := map[string]string{"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization,content-type,mcp-protocol-version"}
	authorized := map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	for _, origin := range []string{"https://app.example.com", "http://localhost:5173"} {
		resp := send(http.MethodOptions, origin, preflight)
		h := resp.Header
		if resp.StatusCode != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != origin ||
			!strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") || h.Get("Access-Control-Allow-Headers") != corsAllowHeaders ||
			!strings.Contains(h.Get("Vary"), "Origin") {
			t.Errorf("preflight from %s: HTTP %d %v", origin, resp.StatusCode, h)
		}
		for _, auth := range []string{"", "Bearer " + token} {
			resp = send(http.MethodPost, origin, map[string]string{"Authorization": auth, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
			want := http.StatusOK
			if auth == "" {
				want = http.StatusUnauthorized
			}
			h = resp.Header
			if resp.StatusCode != want || h.Get("Access-Control-Allow-Origin") != origin || h.Get("Access-Control-Expose-Headers") != corsExposeHeaders {
				t.Errorf("POST from %s (Authorization %q): HTTP %d %v", origin, auth, resp.StatusCode, h)
			}
		}
	}
	resp := send(http.MethodOptions, "https://app.example.com", map[string]string{"Access-Control-Request-Method": "POST", "Access-Control-Request-Private-Network": "true"})
	if resp.Header.Get("Access-Control-Allow-Private-Network") != "true" {
		t.Errorf("private-network preflight: %v", resp.Header)
	}
	for _, tt := range []struct {
		origin, method string
		status         int
	}{
		// Local pages not listed: any local dev server or app must not
		// read captured webhooks or use the server's credentials.
		{"http://localhost:1234", http.MethodOptions, http.StatusForbidden},
		{"http://localhost:1234", http.MethodPost, http.StatusOK},
		{"http://127.0.0.1:5173", http.MethodOptions, http.StatusForbidden},
		{"http://127.0.0.1:5173", http.MethodPost, http.StatusOK},
		{"https://evil.example.com", http.MethodOptions, http.StatusForbidden},
		{"https://evil.example.com", http.MethodPost, http.StatusForbidden},
	} {
		headers := preflight
		if tt.method == http.MethodPost {
			headers = authorized
		}
		resp := send(tt.method, tt.origin, headers)
		if resp.StatusCode != tt.status || resp.Header.Get("Access-Control-Allow-Origin") != "" || resp.Header.Get("Access-Control-Allow-Methods") != "" ||
			resp.Header.Get("Access-Control-Expose-Headers") != "" {
			t.Errorf("%s from %s, not an allowed origin: HTTP %d %v; want %d and no CORS header", tt.method, tt.origin, resp.StatusCode, resp.Header, tt.status)
		}
	}
}
