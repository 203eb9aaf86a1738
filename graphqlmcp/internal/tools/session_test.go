package tools

import (
	"context"
	"log/slog"
	"net/url"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/config"
	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/mcptest"
)

// testConfig is the configuration tests start from: endpoint as the default,
// the documented defaults elsewhere, and a short timeout.
func testConfig(t testing.TB, endpoint string) config.Config {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	return config.Config{
		Endpoint:         u,
		Timeout:          5 * time.Second,
		MaxComplexity:    config.DefaultMaxComplexity,
		Mutations:        config.MutationsPerCall,
		MaxResponseBytes: config.DefaultMaxResponseBytes,
		SchemaCacheTTL:   config.DefaultSchemaCacheTTL,
	}
}

// harness is a server under test with a client session connected to it
// over in-memory transports.
type harness struct {
	session *mcp.ClientSession
	logs    *mcptest.SyncBuffer
	server  *mcp.Server
}

func connect(t testing.TB, cfg config.Config, now func() time.Time) *harness {
	t.Helper()
	logs := &mcptest.SyncBuffer{}
	server := NewServer(Options{
		Config:  cfg,
		HTTP:    upstream.NewHTTPClient("graphqlmcp-test"),
		Logger:  slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Version: "test",
		Now:     now,
	})
	session := mcptest.Connect(t, server)
	return &harness{session: session, logs: logs, server: server}
}

// call runs a tool and returns its result; a protocol error fails the test.
func (h *harness) call(t *testing.T, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	return h.callContext(t, context.Background(), tool, args)
}

func (h *harness) callContext(t *testing.T, ctx context.Context, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	return mcptest.Call(t, ctx, h.session, tool, args)
}
