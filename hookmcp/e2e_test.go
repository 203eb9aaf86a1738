package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestInspector drives the built binary with the official MCP Inspector's
// CLI, over stdio and over Streamable HTTP, against the capture-API fake on
// loopback. scripts/e2e installs the Inspector and runs it.
func TestInspector(t *testing.T) {
	inspector := mcptest.NewInspector(t)
	fake := httptest.NewServer(fakehooksvc.New(fakehooksvc.Options{APIKeys: []string{apiKey}}))
	defer fake.Close()

	t.Run("stdio", func(t *testing.T) {
		// The key reaches the server the way a client's "env" block passes it.
		target := mcptest.StdioTarget([]string{"HOOKSVC_API_URL=" + fake.URL, "HOOKSVC_API_KEY=" + apiKey}, binary)
		inspectorSession(t, inspector, target)
	})
	t.Run("http", func(t *testing.T) {
		cmd := exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "--api-url", fake.URL)
		cmd.Env = append(os.Environ(), "HOOKSVC_API_KEY="+apiKey)
		target := mcptest.HTTPTarget(mcptest.StartHTTP(t, cmd))
		inspectorSession(t, inspector, target)
		mcptest.Stop(t, cmd)
	})
}

// inspectorSession lists the tools under the strict schema check, calls every
// tool in the order an assistant would, lists the resource templates and
// reads the resource, checking what the Inspector prints each time.
func inspectorSession(t *testing.T, inspector *mcptest.Inspector, target mcptest.Target) {
	inspector.CheckStrictTools(t, target, toolNames)
	call := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		res := inspector.CallTool(t, target, tool, args)
		if res.IsError {
			t.Fatalf("%s: %s", tool, mcptest.Text(res))
		}
		return mcptest.Structured(t, res)
	}

	created := call("create_token", map[string]any{"default_content": "pong", "request_limit": 100})
	token, _ := created["token"].(map[string]any)
	id, _ := token["uuid"].(string)
	if id == "" || created["capture_url"] != strings.TrimSuffix(created["capture_url"].(string), id)+id {
		t.Fatalf("create_token gave no token UUID and capture URL: %v", created)
	}
	resp, err := http.Post(created["capture_url"].(string)+"?via=inspector", "application/json", strings.NewReader(`{"event":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	if got := call("get_token", map[string]any{"token_id": id}); got["token"].(map[string]any)["default_content"] != "pong" {
		t.Errorf("get_token: %v", got)
	}
	if updated := call("update_token", map[string]any{"token_id": id, "timeout": 1}); updated["token"].(map[string]any)["timeout"] != 1.0 {
		t.Errorf("update_token: %v", updated)
	}
	if page := call("list_requests", map[string]any{"token_id": id, "per_page": 10}); page["total"] != 1.0 {
		t.Errorf("list_requests: %v", page)
	}
	if latest := call("get_latest_request", map[string]any{"token_id": id}); latest["body"] != `{"event":"ping"}` {
		t.Errorf("get_latest_request: %v", latest)
	}

	raw, _ := inspector.Run(t, target, "--method", "resources/templates/list")
	var templates mcp.ListResourceTemplatesResult
	if err := json.Unmarshal(raw, &templates); err != nil || len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != "hooksvc://token/{token_id}/requests" {
		t.Errorf("resources/templates/list: %v %s", err, raw)
	}
	raw, _ = inspector.Run(t, target, "--method", "resources/read", "--uri", "hooksvc://token/"+id+"/requests")
	var read mcp.ReadResourceResult
	if err := json.Unmarshal(raw, &read); err != nil || len(read.Contents) != 1 || !strings.Contains(read.Contents[0].Text, `"content":"{\"event\":\"ping\"}"`) {
		t.Errorf("resources/read: %v %s", err, raw)
	}
	stderr := inspector.RunFailing(t, target, "--method", "resources/read", "--uri", "hooksvc://token/00000000-0000-4000-8000-000000000000/requests")
	if !strings.Contains(stderr, "not found") {
		t.Errorf("resources/read of an unknown token: %s", stderr)
	}

	// A filter matching every request is refused (all: true asks for
	// that): this one matches none of the one POST.
	if deleted := call("delete_requests", map[string]any{"token_id": id, "query": "method:PUT"}); deleted["scope"] != "matching" || deleted["matched"] != 0.0 {
		t.Errorf("delete_requests: %v", deleted)
	}
	if deleted := call("delete_token", map[string]any{"token_id": id}); deleted["deleted"] != true {
		t.Errorf("delete_token: %v", deleted)
	}
	res := inspector.CallTool(t, target, "get_token", map[string]any{"token_id": id})
	if !res.IsError || !strings.Contains(mcptest.Text(res), id) {
		t.Errorf("get_token after delete_token: isError=%v %s, want an error naming the token", res.IsError, mcptest.Text(res))
	}
}

// TestConformance runs the official conformance suite against the binary over
// Streamable HTTP. testdata/conformance-baseline.yml lists the scenarios that
// need the suite's own fixture tools, prompts and resources, with reasons.
func TestConformance(t *testing.T) {
	fake := httptest.NewServer(fakehooksvc.New(fakehooksvc.Options{}))
	defer fake.Close()
	cmd := exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "--api-url", fake.URL)
	url := mcptest.StartHTTP(t, cmd)
	mcptest.Conformance(t, url, "testdata/conformance-baseline.yml")
	mcptest.Stop(t, cmd)
}
