package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/app"
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
	httpCmd := exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "-e", srv.URL, "--schema-cache-ttl", "90s")
	statelessURL := mcptest.StartHTTP(t, httpCmd)
	statefulURL := mcptest.StatefulHTTP(t, buildServer(t, "-e", srv.URL, "--schema-cache-ttl", "90s"))

	for _, version := range mcp.SupportedProtocolVersions() {
		t.Run(version+"/stdio", func(t *testing.T) {
			transport, wire := mcptest.StdioWire(t, exec.Command(binary, "-e", srv.URL, "--schema-cache-ttl", "90s"))
			speak(t, transport, wire, version, version)
		})
		t.Run(version+"/http-stateless", func(t *testing.T) {
			transport, wire := mcptest.HTTPWire(statelessURL)
			speak(t, transport, wire, version, version)
		})
		t.Run(version+"/http-stateful", func(t *testing.T) {
			// The SDK's stateful handler serves the versions of the
			// initialize handshake only: a 2026-07-28 client falls back
			// to 2025-11-25 there.
			want := version
			if version >= "2026-07-28" {
				want = "2025-11-25"
			}
			transport, wire := mcptest.HTTPWire(statefulURL)
			speak(t, transport, wire, version, want)
		})
	}
}

// speak runs one session pinned to version, which must agree on want.
func speak(t *testing.T, transport mcp.Transport, wire *mcptest.Wire, version, want string) {
	ctx := context.Background()
	session := mcptest.ConnectVersion(t, transport, version)
	if got := mcptest.Negotiated(session); got != want {
		t.Fatalf("asked for %s, agreed on %s, want %s", version, got, want)
	}
	if _, err := session.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := session.ListResourceTemplates(ctx, nil); err != nil {
		t.Fatal(err)
	}
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

	mcptest.CheckVersionOnWire(t, wire, want)
	mcptest.CheckCacheHints(t, wire, func(e mcptest.Exchange) int {
		var read struct{ URI string }
		json.Unmarshal(e.Params, &read)
		if e.Method == "resources/read" && (read.URI == "graphql://schema" || strings.HasPrefix(read.URI, "graphql://type/")) {
			return 90_000 // --schema-cache-ttl
		}
		return 0
	})
	icons := mcptest.ServerIcons(t, wire)
	if len(icons) != 1 {
		t.Fatalf("the server's icons on the wire: %+v", icons)
	}
	mcptest.CheckSVGIcon(t, icons[0])
	// From 2026-07-28 every result names the server; the icon stays in
	// server/discover's, out of the tool list the model reads.
	for _, list := range wire.Results("tools/list") {
		if strings.Contains(string(list), "data:image") {
			t.Errorf("tools/list carries the icon: %s", mcptest.Short(list, 300))
		}
	}
}

// buildServer builds graphqlmcp's server from command-line arguments, as
// the binary does, for a transport the binary does not offer.
func buildServer(t *testing.T, args ...string) *mcp.Server {
	t.Helper()
	s := spec()
	var server *mcp.Server
	cmd := &cli.Command{Name: s.Name, Flags: s.Flags, Action: func(ctx context.Context, cmd *cli.Command) error {
		var err error
		server, err = s.Build(ctx, cmd, app.Env{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), UserAgent: "graphqlmcp-test", Version: "test"})
		return err
	}}
	if err := cmd.Run(context.Background(), append([]string{s.Name}, args...)); err != nil {
		t.Fatal(err)
	}
	return server
}
