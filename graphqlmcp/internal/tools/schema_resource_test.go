package tools

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graph-gophers/graphql-go/example/starwars"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/config"
	"github.com/mcpforge/servers/graphqlmcp/internal/schema"
	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/mcptest"
	"github.com/mcpforge/servers/shared/mcptool"
)

// TestSchemaResource: the default endpoint's schema is listed as a resource
// and read whole as SDL, from the same store as the tools (one
// introspection for both); with --schema its size is in the listing.
func TestSchemaResource(t *testing.T) {
	srv, rec := testservers.Start(t, starwarsAnswering(t))
	h := connect(t, validating(t, srv.URL), nil)
	ctx := context.Background()
	list, err := h.session.ListResources(ctx, nil)
	if err != nil || len(list.Resources) != 1 || list.Resources[0].URI != "graphql://schema" || list.Resources[0].MIMEType != "text/plain" {
		t.Fatalf("resources/list: %v %+v", err, list)
	}
	read, err := h.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "graphql://schema"})
	if err != nil || len(read.Contents) != 1 || !strings.Contains(read.Contents[0].Text, "interface Character {") {
		t.Fatalf("resources/read: %v %+v", err, read)
	}
	if res := h.call(t, "graphql_query", map[string]any{"query": "{ hero { name } }"}); res.IsError || rec.Introspections() != 1 {
		t.Errorf("the resource and the tool did not share one introspection: %d", rec.Introspections())
	}
	// Once fetched, the listing gives the size.
	list, err = h.session.ListResources(ctx, nil)
	if err != nil || list.Resources[0].Size != int64(len(read.Contents[0].Text)) || !strings.Contains(list.Resources[0].Description, "bytes, introspected") {
		t.Errorf("after the first read: %v %+v", err, list.Resources[0])
	}

	path := filepath.Join(t.TempDir(), "schema.graphql")
	if err := os.WriteFile(path, []byte(starwars.Schema), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := validating(t, srv.URL)
	if cfg.Schema, err = schema.Load(path, time.Now()); err != nil {
		t.Fatal(err)
	}
	list, err = connect(t, cfg, nil).session.ListResources(ctx, nil)
	if err != nil || list.Resources[0].Size != int64(mcptool.FramedLen(schemaFrameLabel, len(cfg.Schema.View(true).SDL))) || !strings.Contains(list.Resources[0].Description, "bytes, from --schema") {
		t.Errorf("with --schema: %v %+v", err, list.Resources[0])
	}
}

// TestUnknownResourceByVersion: a URI that names no resource gets the
// not-found code of the client's protocol version: -32002 before
// 2026-07-28, -32602 from it.
func TestUnknownResourceByVersion(t *testing.T) {
	srv, _ := testservers.Start(t, testservers.Starwars())
	for version, want := range map[string]int64{"2025-11-25": -32002, mcptool.NotFoundInvalidParamsSince: jsonrpc.CodeInvalidParams} {
		server := NewServer(Options{Config: testConfig(t, srv.URL), HTTP: upstream.NewHTTPClient("t"), Logger: slog.New(slog.DiscardHandler), Version: "test"})
		clientTransport, serverTransport := mcp.NewInMemoryTransports()
		if _, err := server.Connect(context.Background(), serverTransport, nil); err != nil {
			t.Fatal(err)
		}
		session, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(context.Background(), clientTransport, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { session.Close() })
		_, err = session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "graphql://schemas"})
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) || wire.Code != want || !strings.Contains(wire.Message, "it has graphql://schema") {
			t.Errorf("%s: err = %v, want resource not found as %d, naming graphql://schema", version, err, want)
		}
	}
}

// TestSchemaResourceEqualsIntrospect: graphql://schema is the SDL that
// graphql_introspect gives with includeDeprecated, byte for byte, whether
// the schema came from the endpoint's introspection or from a --schema SDL
// file, and the two routes give the same SDL: the synthetic schema's
// defaults coerced (Filter.range filled in with step: 3), its empty
// description kept.
func TestSchemaResourceEqualsIntrospect(t *testing.T) {
	answer, err := os.ReadFile(filepath.Join("..", "schema", "testdata", "synthetic.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := testservers.Start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer)
	}))
	file := validating(t, srv.URL)
	if file.Schema, err = schema.Load(filepath.Join("..", "schema", "testdata", "synthetic.graphql"), time.Now()); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for name, cfg := range map[string]config.Config{"introspected": validating(t, srv.URL), "--schema": file} {
		h := connect(t, cfg, nil)
		read, err := h.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "graphql://schema"})
		if err != nil {
			t.Fatal(err)
		}
		res := h.call(t, "graphql_introspect", map[string]any{"includeDeprecated": true})
		out := mcptest.Structured(t, res)
		text, _ := out["text"].(string)
		if sdl, _ := mcptool.Unframe(read.Contents[0].Text); out["view"] != "sdl" || text != sdl {
			t.Errorf("%s: view %v; graphql_introspect's text is not the resource's", name, out["view"])
		}
		if !strings.Contains(text, "range: Range = {from: 1, old: 2, step: 3}") {
			t.Errorf("%s: Filter.range's default is not coerced:\n%s", name, text)
		}
		texts = append(texts, text)
	}
	if texts[0] != texts[1] {
		t.Errorf("the introspected schema and the --schema file print differently")
	}
}
