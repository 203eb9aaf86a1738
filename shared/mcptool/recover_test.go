package mcptool_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptest"
	"github.com/mcpforge/servers/shared/mcptool"
)

// TestRecoverPanics: a panicking tool gives a tool error and a panicking
// resource an internal error, each logged with its stack, and the session
// goes on serving.
func TestRecoverPanics(t *testing.T) {
	logs := &mcptest.SyncBuffer{}
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	server.AddReceivingMiddleware(mcptool.RecoverPanics(slog.New(slog.NewTextHandler(logs, nil))))
	type noArgs struct{}
	type noResult struct{}
	mcptool.Register(server,
		mcptool.Tool[noArgs, noResult]{Name: "explode", Handle: func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, noResult, error) {
			var list []int
			_ = list[3] // a runtime error: index out of range
			return nil, noResult{}, nil
		}},
		mcptool.Tool[noArgs, noResult]{Name: "leak", Handle: func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, noResult, error) {
			panic("secret-value-in-panic")
		}},
		mcptool.Tool[noArgs, noResult]{Name: "fine", Handle: func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, noResult, error) {
			return mcptool.Text("ok"), noResult{}, nil
		}},
	)
	server.AddResource(&mcp.Resource{URI: "test://boom", Name: "boom"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		var m map[string]int
		m["x"] = 1 // a runtime error: assignment to a nil map
		return nil, nil
	})
	session := mcptest.Connect(t, server)
	ctx := context.Background()

	res := mcptest.Call(t, ctx, session, "explode", map[string]any{})
	if !res.IsError || !strings.Contains(mcptest.Text(res), "internal error in explode; the server keeps running") {
		t.Errorf("explode: isError=%v %q", res.IsError, mcptest.Text(res))
	}
	res = mcptest.Call(t, ctx, session, "leak", map[string]any{})
	if !res.IsError || !strings.Contains(mcptest.Text(res), "internal error in leak") {
		t.Errorf("leak: isError=%v %q", res.IsError, mcptest.Text(res))
	}
	_, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://boom"})
	if err == nil || !strings.Contains(err.Error(), "internal error in reading test://boom") {
		t.Errorf("resource: %v", err)
	}
	if res := mcptest.Call(t, ctx, session, "fine", map[string]any{}); res.IsError || mcptest.Text(res) != "ok" {
		t.Errorf("the session stopped serving: %q", mcptest.Text(res))
	}
	log := logs.String()
	for _, want := range []string{"index out of range", "assignment to entry in nil map", "goroutine", "recover_test.go", "a value of type string"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "secret-value-in-panic") {
		t.Error("a panic's own value was logged")
	}
}
