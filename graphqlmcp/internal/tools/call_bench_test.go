package tools

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/mcptest"
)

// BenchmarkQueryCall is one graphql_query call of a small query through an
// in-memory MCP session to a loopback GraphQL server, the schema cached: the
// server's whole path (JSON-RPC, input checks, validation, pricing, the
// HTTP request, the result) without the stdio pipes. Profile it with
// -cpuprofile to see where a call's time goes.
func BenchmarkQueryCall(b *testing.B) {
	srv, _ := testservers.Start(b, testservers.Starwars())
	server := NewServer(Options{
		Config:  testConfig(b, srv.URL),
		HTTP:    upstream.NewHTTPClient("graphqlmcp-bench"),
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
		Version: "bench",
	})
	session := mcptest.Connect(b, server)
	params := &mcp.CallToolParams{Name: "graphql_query", Arguments: map[string]any{"query": "{ hero { name } }"}}
	ctx := context.Background()
	for b.Loop() {
		res, err := session.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatalf("%v %v", err, res)
		}
	}
}
