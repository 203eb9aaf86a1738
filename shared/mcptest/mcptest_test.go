package mcptest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptool"
)

// recordingTB records Errorf instead of failing the test.
type recordingTB struct {
	testing.TB
	errors []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// TestConnectChecksOutputSchemas: a structured result that its tool's output
// schema forbids fails the test that received it; one that fits does not.
func TestConnectChecksOutputSchemas(t *testing.T) {
	type noArgs struct{}
	type count struct {
		N int `json:"n"`
	}
	answer := func(raw string) func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, mcptool.Document[count], error) {
		return func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, mcptool.Document[count], error) {
			return nil, mcptool.Document[count](raw), nil
		}
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	mcptool.Register(server,
		mcptool.Tool[noArgs, mcptool.Document[count]]{Name: "good", Handle: answer(`{"n":1}`)},
		mcptool.Tool[noArgs, mcptool.Document[count]]{Name: "bad", Handle: answer(`{"n":"one"}`)},
	)
	rec := &recordingTB{TB: t}
	session := Connect(rec, server)
	Call(rec, context.Background(), session, "good", nil)
	if len(rec.errors) != 0 {
		t.Fatalf("a result that fits its schema was reported: %q", rec.errors)
	}
	Call(rec, context.Background(), session, "bad", nil)
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "bad answered structured content that its output schema forbids") {
		t.Fatalf("a result its schema forbids was not reported: %q", rec.errors)
	}
}
