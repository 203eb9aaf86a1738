package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptest"
)

// TestDocClients runs every hookmcp line of README.md and docs/ in the client
// it is written for: each `claude mcp add` line through bash in Claude Code
// (then `claude mcp list` must show the server connected), and each
// mcp-remote entry as Claude Desktop starts it (it must list the tools and
// create a token with the documented key). The capture API is the fake's
// command as the docs start it, with its default keys, which include the
// docs' placeholder key; the docs' MCP URLs are servers started by the docs'
// own command lines. scripts/e2e installs the clients and runs it.
func TestDocClients(t *testing.T) {
	clients := mcptest.NewDocClients(t)
	fake := exec.Command(fakeBinary, "-listen", "127.0.0.1:0")
	fakeURL := mcptest.StartHTTP(t, fake)
	stand := mcptest.Stand{
		Bin:  filepath.Dir(binary),
		URLs: map[string]string{"http://127.0.0.1:8089": fakeURL},
		// Entries that name no API use the hosted one by default: the fake
		// stands for it.
		Env: []string{"HOOKSVC_API_URL=" + fakeURL},
	}
	docs := mcptest.DocFiles(t)
	stand.URLs["http://127.0.0.1:8082/mcp"] = mcptest.StartDocServer(t, "hookmcp", "127.0.0.1:8082", stand, docs...)

	clients.RunLines(t, "hookmcp", []string{"graphqlmcp", "hookmcp"}, docs, stand, toolNames, createToken)
}

// createToken calls create_token through a client's session: the API must
// accept the documented key.
func createToken(t *testing.T, session *mcp.ClientSession) {
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "create_token", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("create_token through the bridge: %v", err)
	}
	if res.IsError {
		t.Errorf("create_token through the bridge with the docs' key: %s", mcptest.Text(res))
	}
}
