package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/config"
)

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testConfig is the configuration tests start from: endpoint as the default,
// the documented defaults elsewhere, and a short timeout.
func testConfig(t *testing.T, endpoint string) config.Config {
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
	logs    *syncBuffer
	server  *mcp.Server
}

func connect(t *testing.T, cfg config.Config, now func() time.Time) *harness {
	t.Helper()
	logs := &syncBuffer{}
	server := NewServer(Options{
		Config:  cfg,
		HTTP:    NewHTTPClient("graphqlmcp-test"),
		Logger:  slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Version: "test",
		Now:     now,
	})
	ctx := context.Background()
	clientTransport, serverTransport := mcp.NewInMemoryTransports()
	serverSession, err := server.Connect(ctx, serverTransport, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	session, err := client.Connect(ctx, clientTransport, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		session.Close()
		serverSession.Wait()
	})
	return &harness{session: session, logs: logs, server: server}
}

// call runs a tool and returns its result; a protocol error fails the test.
func (h *harness) call(t *testing.T, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	return h.callContext(t, context.Background(), tool, args)
}

func (h *harness) callContext(t *testing.T, ctx context.Context, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := h.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s): protocol error: %v", tool, err)
	}
	return res
}

// text joins a result's text content.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// structured decodes a result's structured content.
func structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("structured content is not an object: %s", raw)
	}
	return out
}
