package tools

import (
	"context"
	"io"
	"log/slog"
	"net/http"
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
	session := benchSession(b, srv.URL)
	params := &mcp.CallToolParams{Name: "graphql_query", Arguments: map[string]any{"query": "{ hero { name } }"}}
	ctx := context.Background()
	for b.Loop() {
		res, err := session.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatalf("%v %v", err, res)
		}
	}
}

// BenchmarkGitHubIntrospect is graphql_introspect's first call on GitHub's
// schema in a fresh server: fetch, convert, cache and the overview. It runs
// when GITHUB_SCHEMA_DIR names the schema's folder (scripts/github-schema
// installs it).
func BenchmarkGitHubIntrospect(b *testing.B) {
	introspection := testservers.GitHubIntrospection(b)
	body := append(append([]byte(`{"data":`), introspection...), '}')
	srv, _ := testservers.Start(b, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	ctx := context.Background()
	for b.Loop() {
		session := benchSession(b, srv.URL)
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "graphql_introspect", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			b.Fatalf("%v %v", err, res)
		}
		session.Close()
	}
}

// benchSession is a session with a server whose default endpoint is
// endpoint, logging nowhere.
func benchSession(b *testing.B, endpoint string) *mcp.ClientSession {
	server := NewServer(Options{
		Config:  testConfig(b, endpoint),
		HTTP:    upstream.NewHTTPClient("graphqlmcp-bench"),
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
		Version: "bench",
	})
	return mcptest.Connect(b, server)
}
