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
	mcptest.CheckToolNames(t, session, toolNames)
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
	// A filter matching every request is refused (all: true asks for
	// that), so this one matches none of the one POST: nothing is deleted.
	if out := call("delete_requests", map[string]any{"token_id": id, "query": "method:PUT"}); out["matched"] != 0.0 {
		t.Errorf("delete_requests: %v", out)
	}
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
		`PUT /token/{id} {"actions":false,"alias":null,"auth_username":null,"cors":false,"default_content":"pong","default_content_type":"text/html","default_status":200,"description":null,"expiry":null,"group_id":null,"listen":0,"password":false,"redirect":false,"request_limit":100,"require_auth":true,"team_id":1001,"timeout":1}`, // the whole token as read, account fields included, as the official CLI writes it back
		`GET /token/{id}/requests?page=1&per_page=10&sorting=newest`,
		`GET /token/{id}/requests?page=1&per_page=1&sorting=newest`,
		`GET /token/{id}/request/` + requestID(fake, id) + `/raw`,
		`GET /token/{id}/requests?page=1&per_page=100&sorting=oldest`,
		// delete_requests with a query: the token has requests, the server
		// applies query filters (a random word matches none), and none
		// match, so no delete is sent.
		`GET /token/{id}/requests?page=1&per_page=1`,
		`GET /token/{id}/requests?page=1&per_page=1&query=hookmcpprobe{random}`,
		`GET /token/{id}/requests?page=1&per_page=1&query=method%3APUT`,
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

// TestBadStartupValues: the built binary stops on a bad value with exit code
// 2 and one line on stderr, before anything is served, without repeating
// the key. Every error text is checked in-process by TestStartupErrors.
func TestBadStartupValues(t *testing.T) {
	mcptest.CheckUsageErrors(t, binary, "hookmcp", []mcptest.UsageCase{
		{Name: "api key with a space", Env: []string{"HOOKSVC_API_KEY=abc def-secret-key"}, Want: "HOOKSVC_API_KEY contains whitespace", Secret: "def-secret-key"},
	})
}

func TestHelpAndVersion(t *testing.T) {
	mcptest.CheckHelpAndVersion(t, binary, "hookmcp", []string{"--token-id", "HOOKSVC_TOKEN_ID", "--api-url", "HOOKSVC_API_URL", "--timeout", "HOOKSVC_TIMEOUT", "HOOKSVC_API_KEY", "--transport", "--listen"})
}

// TestStdioSurvivesMalformedLines: the built binary answers malformed
// JSON-RPC lines with errors and keeps serving (they once ended it).
func TestStdioSurvivesMalformedLines(t *testing.T) {
	mcptest.CheckSurvivesMalformedLines(t, binary, "--api-url", "http://127.0.0.1:1")
}
