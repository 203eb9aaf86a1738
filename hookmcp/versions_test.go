package main

import (
	"context"
	"net/http/httptest"
	"os/exec"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestProtocolVersions connects a go-sdk client pinned to each protocol
// version the SDK speaks (mcp.SupportedProtocolVersions, 2024-11-05 to
// 2026-07-28) to the built binary over stdio and over its stateless
// Streamable HTTP, and to the server over the SDK's stateful Streamable HTTP
// handler, and checks on the wire: the version agreed and how (initialize,
// or server/discover with the version in every request's _meta), the cache
// hints of every result that carries them (private, stale at once), the
// server's icon, a token made and its requests read, and its id completed.
func TestProtocolVersions(t *testing.T) {
	fake := httptest.NewServer(fakehooksvc.New(fakehooksvc.Options{}))
	t.Cleanup(fake.Close)
	mcptest.ProtocolVersions(t, mcptest.VersionedServer{
		Stdio:        func() *exec.Cmd { return exec.Command(binary, "--api-url", fake.URL) },
		StatelessURL: mcptest.StartHTTP(t, exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "--api-url", fake.URL)),
		StatefulURL:  mcptest.StatefulHTTP(t, mcptest.BuildServer(t, spec(func(string) string { return "" }), "--api-url", fake.URL)),
		Exercise:     exerciseVersion,
		TTL:          func(mcptest.Exchange) int { return 0 },
	})
}

// exerciseVersion makes a token, reads its requests and completes its id in
// a session pinned to a version. A token made in one session is offered
// only where the transport keeps the session (sessions).
func exerciseVersion(t *testing.T, session *mcp.ClientSession, sessions bool) {
	ctx := context.Background()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "create_token", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("create_token: %v %+v", err, res)
	}
	token := mcptest.Structured(t, res)["token"].(map[string]any)["uuid"].(string)
	read, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "hooksvc://token/" + token + "/requests"})
	if err != nil || read.Contents[0].Text != "[]" {
		t.Fatalf("reading the new token's requests: %v %+v", err, read)
	}
	done, err := session.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "hooksvc://token/{token_id}/requests"},
		Argument: mcp.CompleteParamsArgument{Name: "token_id", Value: token[:4]},
	})
	if err != nil || done.Completion.Values == nil || slices.Contains(done.Completion.Values, token) != sessions {
		t.Fatalf("completing %s: %v %+v", token[:4], err, done)
	}
}
