package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

// binary is the hookmcp built for this test run; fakeBinary the fake API's
// command.
var binary, fakeBinary string

func TestMain(m *testing.M) {
	mcptest.RunWithBinaries(m,
		mcptest.Binary{Path: &binary, Name: "hookmcp", Pkg: "."},
		mcptest.Binary{Path: &fakeBinary, Name: "fakehooksvc", Pkg: "./cmd/fakehooksvc"})
}

const apiKey = "stdio-key-0123456789"

// exercise calls every tool once and reads the resource, in the order an
// assistant would, and returns the new token's UUID.
// probeWord is the random word delete_requests uses to prove that the server
// applies query filters.
var probeWord = regexp.MustCompile(`hookmcpprobe[0-9a-f]+`)

func exercise(t *testing.T, session *mcp.ClientSession) string {
	t.Helper()
	ctx := context.Background()
	mcptest.CheckToolNames(t, session, []string{"create_token", "delete_requests", "delete_token", "get_latest_request", "get_token", "list_requests", "update_token"})
	call := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		res := mcptest.Call(t, ctx, session, tool, args)
		if res.IsError {
			t.Fatalf("%s: %s", tool, mcptest.Text(res))
		}
		return mcptest.Structured(t, res)
	}
	created := call("create_token", map[string]any{"default_content": "pong", "request_limit": 100})
	id := created["token"].(map[string]any)["uuid"].(string)
	resp, err := http.Post(created["capture_url"].(string)+"?via=stdio", "application/json", strings.NewReader(`{"event":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	call("get_token", map[string]any{"token_id": id})
	if updated := call("update_token", map[string]any{"token_id": id, "timeout": 1}); updated["token"].(map[string]any)["default_content"] != "pong" {
		t.Errorf("update_token lost default_content: %v", updated)
	}
	if page := call("list_requests", map[string]any{"token_id": id, "per_page": 10}); page["total"] != 1.0 {
		t.Errorf("list_requests: %v", page)
	}
	if latest := call("get_latest_request", map[string]any{"token_id": id}); latest["body"] != `{"event":"ping"}` {
		t.Errorf("get_latest_request: %v", latest)
	}
	read, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "hooksvc://token/" + id + "/requests"})
	if err != nil || !strings.Contains(read.Contents[0].Text, `"content":"{\"event\":\"ping\"}"`) {
		t.Errorf("resource: %v %+v", err, read)
	}
	call("delete_requests", map[string]any{"token_id": id, "query": "method:POST"})
	call("delete_token", map[string]any{"token_id": id})
	return id
}

// TestStdio runs the built binary over stdio against the fake on loopback
// and checks what reached the API.
func TestStdio(t *testing.T) {
	fake := fakehooksvc.New(fakehooksvc.Options{APIKeys: []string{apiKey}})
	srv := httptest.NewServer(fake)
	defer srv.Close()
	cmd := exec.Command(binary)
	cmd.Env = append(os.Environ(), "HOOKSVC_API_URL="+srv.URL, "HOOKSVC_API_KEY="+apiKey, "HOOKSVC_LOG_LEVEL=debug")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	session := mcptest.ConnectClient(t, &mcp.CommandTransport{Command: cmd})
	id := exercise(t, session)
	session.Close()

	var got []string
	for _, r := range fake.Received() {
		line := r.Method + " " + strings.ReplaceAll(r.Path, id, "{id}")
		if len(r.Query) > 0 {
			line += "?" + probeWord.ReplaceAllString(r.Query.Encode(), "hookmcpprobe{random}")
		}
		if len(r.Body) > 0 && strings.HasPrefix(r.Path, "/token") {
			line += " " + string(r.Body)
		}
		if strings.HasPrefix(r.Path, "/token") && r.Header.Get("Api-Key") != apiKey {
			t.Errorf("%s went without the key", line)
		}
		got = append(got, line)
	}
	want := []string{
		`POST /token {"default_content":"pong","request_limit":100}`,
		`POST /{id}?via=stdio`,
		`GET /token/{id}`,
		`GET /token/{id}`,
		`PUT /token/{id} {"actions":false,"alias":null,"cors":false,"default_content":"pong","default_content_type":"text/plain","default_status":200,"expiry":604800,"listen":0,"request_limit":100,"timeout":1}`,
		`GET /token/{id}/requests?page=1&per_page=10&sorting=newest`,
		`GET /token/{id}/requests?page=1&per_page=1&sorting=newest`,
		`GET /token/{id}/request/` + requestID(fake, id) + `/raw`,
		`GET /token/{id}/requests?page=1&per_page=100&sorting=oldest`,
		// delete_requests with a query: the token has requests, the server
		// applies query filters (a random word matches none), and this many
		// match; then the delete.
		`GET /token/{id}/requests?page=1&per_page=1`,
		`GET /token/{id}/requests?page=1&per_page=1&query=hookmcpprobe{random}`,
		`GET /token/{id}/requests?page=1&per_page=1&query=method%3APOST`,
		`DELETE /token/{id}/request?query=method%3APOST`,
		`DELETE /token/{id}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the wire (-want +got):\n%s", diff)
	}
	if strings.Contains(stderr.String(), apiKey) {
		t.Errorf("stderr shows the API key:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "outbound request") {
		t.Errorf("debug logging did not reach stderr:\n%s", stderr.String())
	}
}

// requestID is the id of the one request captured, from the raw-body path
// the server asked for.
func requestID(fake *fakehooksvc.Server, tokenID string) string {
	for _, r := range fake.Received() {
		if rest, ok := strings.CutPrefix(r.Path, "/token/"+tokenID+"/request/"); ok && strings.HasSuffix(rest, "/raw") {
			return strings.TrimSuffix(rest, "/raw")
		}
	}
	return "(none)"
}

// TestOffline is the README's offline demo: the fake API's command on
// loopback, and hookmcp pointed at it.
func TestOffline(t *testing.T) {
	fake := exec.Command(fakeBinary, "-listen", "127.0.0.1:0")
	apiURL := mcptest.StartHTTP(t, fake)
	cmd := exec.Command(binary)
	cmd.Env = append(os.Environ(), "HOOKSVC_API_URL="+apiURL)
	exercise(t, mcptest.ConnectClient(t, &mcp.CommandTransport{Command: cmd}))
	mcptest.Stop(t, fake)
}

func TestStreamableHTTP(t *testing.T) {
	srv := httptest.NewServer(fakehooksvc.New(fakehooksvc.Options{}))
	defer srv.Close()
	cmd := exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "--api-url", srv.URL)
	endpoint := mcptest.StartHTTP(t, cmd)
	exercise(t, mcptest.ConnectClient(t, &mcp.StreamableClientTransport{Endpoint: endpoint}))
	mcptest.Stop(t, cmd)
}

func TestTerminalHint(t *testing.T) {
	line := mcptest.TerminalFirstLine(t, binary)
	if !strings.Contains(line, "hookmcp is an MCP server") || !strings.Contains(line, "claude mcp add") {
		t.Errorf("first line on the terminal = %q, want the hint", line)
	}
}

// TestBadStartupValues: each stops the process with exit code 2 and one
// clear line on stderr, before anything is served.
func TestBadStartupValues(t *testing.T) {
	mcptest.CheckUsageErrors(t, binary, "hookmcp", []mcptest.UsageCase{
		{Name: "token id an alias", Args: []string{"--token-id", "my-hook"}, Want: `--token-id (HOOKSVC_TOKEN_ID) "my-hook" is not a token UUID`},
		{Name: "token id from the environment", Env: []string{"HOOKSVC_TOKEN_ID=123"}, Want: `"123" is not a token UUID`},
		{Name: "api url not absolute", Args: []string{"--api-url", "webhook.site"}, Want: `--api-url (HOOKSVC_API_URL): "webhook.site" is not an absolute http(s) URL`},
		{Name: "api url with a query", Env: []string{"HOOKSVC_API_URL=https://webhook.site/?x=1"}, Want: "must be a plain base URL without query string or fragment"},
		{Name: "api url query not repeated", Args: []string{"--api-url", "https://webhook.site/?key=SECRET6"}, Want: "without query string", Secret: "SECRET6"},
		{Name: "api url fragment not repeated", Args: []string{"--api-url", "webhook.site/#SECRET5"}, Want: "is not an absolute http(s) URL", Secret: "SECRET5"},
		{Name: "api url with a password", Args: []string{"--api-url", "https://me:hunter22@webhook.site"}, Want: "must not carry user info"},
		{Name: "api key with a space", Env: []string{"HOOKSVC_API_KEY=abc def-secret-key"}, Want: "HOOKSVC_API_KEY contains whitespace"},
		{Name: "api key as a flag", Args: []string{"--api-key", "abc"}, Want: "flag provided but not defined: -api-key"},
		{Name: "timeout without a unit", Args: []string{"--timeout", "30"}, Want: `invalid value "30" for flag -timeout`},
		{Name: "timeout too long", Args: []string{"-t", "1h"}, Want: "--timeout (HOOKSVC_TIMEOUT) must be between 1s and 10m0s, got 1h0m0s"},
		{Name: "timeout too short", Env: []string{"HOOKSVC_TIMEOUT=10ms"}, Want: "must be between 1s and 10m0s, got 10ms"},
		{Name: "transport unknown", Args: []string{"--transport", "sse"}, Want: `--transport "sse" is not a transport`},
		{Name: "stray argument", Args: []string{"serve"}, Want: `unexpected argument "serve"`},
	})
}

// TestKeyNotInErrors: a malformed key is refused without being repeated.
func TestKeyNotInErrors(t *testing.T) {
	cmd := exec.Command(binary)
	cmd.Env = append(os.Environ(), "HOOKSVC_API_KEY=abc def-secret-key")
	out, _ := cmd.CombinedOutput()
	if strings.Contains(string(out), "def-secret-key") {
		t.Errorf("the key shows in the output: %s", out)
	}
}

func TestHelpAndVersion(t *testing.T) {
	mcptest.CheckHelpAndVersion(t, binary, "hookmcp", []string{"--token-id", "HOOKSVC_TOKEN_ID", "--api-url", "HOOKSVC_API_URL", "--timeout", "HOOKSVC_TIMEOUT", "HOOKSVC_API_KEY", "--transport", "--listen"})
}

// TestStdioSurvivesMalformedLines: the built binary answers malformed
// JSON-RPC lines with errors and keeps serving (they once ended it).
func TestStdioSurvivesMalformedLines(t *testing.T) {
	mcptest.CheckSurvivesMalformedLines(t, binary, "--api-url", "http://127.0.0.1:1")
}
