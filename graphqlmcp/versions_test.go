package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
	"github.com/mcpforge/servers/shared/mcptool"
)

// TestProtocolVersions connects a go-sdk client pinned to each protocol
// version the SDK speaks (mcp.SupportedProtocolVersions, 2024-11-05 to
// 2026-07-28) to the built binary over stdio and over its stateless
// Streamable HTTP, and to the server over the SDK's stateful Streamable HTTP
// handler, and checks on the wire: the version agreed and how (initialize,
// or server/discover with the version in every request's _meta), the cache
// hints of every result that carries them, the server's icon, the type
// resource and its completions, and one query.
func TestProtocolVersions(t *testing.T) {
	srv, _ := testservers.Start(t, testservers.Starwars())
	mcptest.ProtocolVersions(t, mcptest.VersionedServer{
		Stdio:        func() *exec.Cmd { return exec.Command(binary, "-e", srv.URL, "--schema-cache-ttl", "90s") },
		StatelessURL: mcptest.StartHTTP(t, exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "-e", srv.URL, "--schema-cache-ttl", "90s")),
		StatefulURL:  mcptest.StatefulHTTP(t, mcptest.BuildServer(t, spec(), "-e", srv.URL, "--schema-cache-ttl", "90s")),
		Exercise:     exerciseVersion,
		TTL: func(e mcptest.Exchange) int {
			var read struct{ URI string }
			json.Unmarshal(e.Params, &read)
			if e.Method == "resources/read" && (read.URI == "graphql://schema" || strings.HasPrefix(read.URI, "graphql://type/")) {
				return 90_000 // --schema-cache-ttl
			}
			return 0
		},
	})
}

// exerciseVersion reads the schema and a type, completes a type name and
// runs a query in a session pinned to a version.
func exerciseVersion(t *testing.T, session *mcp.ClientSession, _ bool) {
	ctx := context.Background()
	schema, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "graphql://schema"})
	if err != nil || !strings.Contains(schema.Contents[0].Text, "type Droid") {
		t.Fatalf("graphql://schema: %v", err)
	}
	droid, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "graphql://type/Droid"})
	if err != nil {
		t.Fatalf("graphql://type/Droid: %v", err)
	}
	// The endpoint's SDL comes in one block marked as third-party data.
	if blocks, _ := mcptool.Frames(droid.Contents[0].Text); len(blocks) != 1 || !strings.Contains(blocks[0], "type Droid implements Character {") ||
		!strings.HasSuffix(strings.TrimRight(blocks[0], "\n"), "}\n\n# References: Character, Episode, FriendsConnection") {
		t.Fatalf("graphql://type/Droid: %q", droid.Contents[0].Text)
	}
	done, err := session.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "graphql://type/{name}"}, Argument: mcp.CompleteParamsArgument{Name: "name", Value: "dr"}})
	if err != nil || strings.Join(done.Completion.Values, ",") != "Droid" {
		t.Fatalf("completing dr: %v %+v", err, done)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "graphql_query", Arguments: map[string]any{"query": "{ hero { name } }"}})
	if err != nil || res.IsError || !strings.Contains(mcptest.Text(res), "R2-D2") {
		t.Fatalf("graphql_query: %v %+v", err, res)
	}
}
