package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptest"
)

// servers are the commands the docs start; DocLines ties each client line to
// one of them.
var servers = []string{"graphqlmcp", "hookmcp"}

// TestDocLinesKnown: every command line of README.md and docs/ is one a
// test runs (TestDocClients for client lines), so none goes untried.
func TestDocLinesKnown(t *testing.T) {
	lines := mcptest.DocLines(t, servers, mcptest.DocFiles(t)...)
	if len(lines) == 0 {
		t.Fatal("the docs give no client line")
	}
}

// TestDocClients runs every graphqlmcp line of README.md and docs/ in the
// client it is written for: each `claude mcp add` line through bash in
// Claude Code (then `claude mcp list` must show the server connected), and
// each mcp-remote entry as Claude Desktop starts it (it must list the tools
// and answer a query). Only URLs change: the docs' GraphQL endpoints become
// the sample API, and their MCP URLs servers started by the docs' own
// command lines. scripts/e2e installs the clients and runs it.
func TestDocClients(t *testing.T) {
	clients := mcptest.NewDocClients(t)
	sample := exec.Command(sampleBinary, "-listen", "127.0.0.1:0")
	sampleURL := mcptest.StartHTTP(t, sample)
	stand := mcptest.Stand{Bin: filepath.Dir(binary), URLs: map[string]string{
		"https://api.github.com/graphql":  sampleURL,
		"https://api.example.com/graphql": sampleURL,
		"http://127.0.0.1:8088/graphql":   sampleURL,
	}}
	docs := mcptest.DocFiles(t)
	// The docs' own lines serve the MCP URLs they give: on loopback, and
	// "beyond this machine" with a bearer token (here on loopback too, as
	// mcp.example.com stands for a proxy in front of it).
	stand.URLs["http://127.0.0.1:8081/mcp"] = mcptest.StartDocServer(t, "graphqlmcp", "127.0.0.1:8081", stand, docs...)
	stand.URLs["https://mcp.example.com/mcp"] = mcptest.StartDocServer(t, "graphqlmcp", "0.0.0.0:8081", stand, docs...)

	clients.RunLines(t, "graphqlmcp", servers, docs, stand, toolNames, askHero)
}

// askHero calls graphql_query through a client's session: the sample API
// must answer.
func askHero(t *testing.T, session *mcp.ClientSession) {
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "graphql_query", Arguments: map[string]any{"query": "{ hero { name } }"}})
	if err != nil || res.IsError || !strings.Contains(mcptest.Text(res), `"R2-D2"`) {
		t.Errorf("graphql_query through the bridge: %v %+v", err, res)
	}
}
