package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptest"
)

// tsClient starts scripts/ts-client/client.mjs (the official TypeScript
// SDK, pinned) with args; scripts/e2e installs it and sets MCP_TS_CLIENT,
// and the test is skipped without it. It returns the process, its stdin
// (the client waits on it in its cancel command) and its JSON line.
func tsClient(t *testing.T, args ...string) (*exec.Cmd, func() error, <-chan map[string]any) {
	t.Helper()
	script := os.Getenv("MCP_TS_CLIENT")
	if script == "" {
		t.Skip("MCP_TS_CLIENT is not set; scripts/e2e installs the TypeScript SDK and sets it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, "node", append([]string{script}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
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
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line := make(chan map[string]any, 1)
	go func() {
		var result map[string]any
		lines := bufio.NewReader(stdout)
		text, _ := lines.ReadString('\n')
		if err := json.Unmarshal([]byte(text), &result); err != nil {
			result = map[string]any{"unreadable": text, "stderr": stderr.String()}
		}
		line <- result
	}()
	return cmd, stdin.Close, line
}

// TestTypeScriptSDK: with the official TypeScript SDK as client over
// Streamable HTTP, a wait_for_request it aborts (which sends only
// notifications/cancelled, in a POST of its own, and keeps the call's
// connection open) stops the server's wait at once; and a 1.5 MiB captured
// body comes back whole, as one JSON answer.
func TestTypeScriptSDK(t *testing.T) {
	s := startHTTPServer(t)
	session := mcptest.ConnectClient(t, &mcp.StreamableClientTransport{Endpoint: s.endpoint})
	created := mcptest.Structured(t, mcptest.Call(t, context.Background(), session, "create_token", map[string]any{}))
	id := created["token"].(map[string]any)["uuid"].(string)

	t.Run("cancel", func(t *testing.T) {
		cmd, closeStdin, result := tsClient(t, s.endpoint, "cancel", "wait_for_request", `{"token_id":"`+id+`","timeout_seconds":300}`)
		if got := <-result; !strings.Contains(got["error"].(string), "the user pressed Esc") {
			t.Fatalf("the aborted call: %v", got)
		}
		// The client is still there, its connection open: only the
		// notification can have stopped the wait.
		s.await(t, "wait_for_request stopped: the call was cancelled")
		closeStdin()
		if err := cmd.Wait(); err != nil {
			t.Errorf("client.mjs: %v", err)
		}
	})

	t.Run("large body", func(t *testing.T) {
		capture := func(body string) {
			t.Helper()
			resp, err := http.Post(created["capture_url"].(string), "text/plain", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		// A small request first, for wait_for_request to wait after.
		capture("before")
		before := mcptest.Structured(t, mcptest.Call(t, context.Background(), session, "get_latest_request", map[string]any{"token_id": id}))["request_id"].(string)
		body := strings.Repeat("0123456789abcdef", 3<<16) // 3 MiB / 2
		capture(body)
		// With a progress callback too: get_latest_request sends no
		// progress, so its answer is still one JSON body, which the
		// Python SDK 2.0 (1 MiB per SSE event) reads whatever its size.
		for _, progress := range [][]string{nil, {"--progress"}} {
			_, _, result := tsClient(t, append([]string{s.endpoint, "call", "get_latest_request", `{"token_id":"` + id + `"}`}, progress...)...)
			got := <-result
			res, _ := got["result"].(map[string]any)
			structured, _ := res["structuredContent"].(map[string]any)
			if structured["body"] != body {
				t.Errorf("%v: get_latest_request over HTTP gave a body of %d bytes, want the %d captured (%.300v)", progress, len(asString(structured["body"])), len(body), got)
			}
			if got["contentType"] != "application/json" {
				t.Errorf("%v: get_latest_request was answered as %v, want application/json (one body, not an SSE event)", progress, got["contentType"])
			}
		}
		// wait_for_request with a progress callback streams its progress,
		// so its answer is an SSE stream whose last event holds the whole
		// request: the one case docs/clients.md gives as over 1 MiB per
		// event for a large body. The TypeScript SDK reads it.
		_, _, result := tsClient(t, s.endpoint, "call", "wait_for_request", `{"token_id":"`+id+`","after_request_id":"`+before+`","timeout_seconds":60}`, "--progress")
		got := <-result
		res, _ := got["result"].(map[string]any)
		structured, _ := res["structuredContent"].(map[string]any)
		if got["contentType"] != "text/event-stream" || got["progress"] == float64(0) || !strings.Contains(fmt.Sprint(structured), body) {
			t.Errorf("wait_for_request with a progress callback: answered as %v after %v progress notifications, %.300v; want an SSE stream with progress and the %d-byte body",
				got["contentType"], got["progress"], got, len(body))
		}
	})
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}
