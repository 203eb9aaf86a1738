package mcptool

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestBoundErrors: a protocol error's message (the go-sdk's "unknown tool"
// with the name it was given), a plain error and a tool error's text are
// cut to MaxErrorText bytes, saying how long they were; the code is kept,
// and a call the SDK fails with no result (a nil *CallToolResult) passes
// through untouched.
func TestBoundErrors(t *testing.T) {
	huge := strings.Repeat("x", 1_100_000)
	answer := func(res mcp.Result, err error) mcp.MethodHandler {
		return func(context.Context, string, mcp.Request) (mcp.Result, error) { return res, err }
	}
	var noResult *mcp.CallToolResult
	_, err := BoundErrors(answer(noResult, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "unknown tool " + huge}))(context.Background(), "tools/call", nil)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || len(rpcErr.Message) > MaxErrorText ||
		!strings.HasSuffix(rpcErr.Message, "(the error was cut: 1100013 bytes in all)") {
		t.Errorf("unknown tool: %.300v", err)
	}
	_, err = BoundErrors(answer(nil, errors.New(huge)))(context.Background(), "x", nil)
	if err == nil || len(err.Error()) > MaxErrorText {
		t.Errorf("a plain error: %d bytes", len(err.Error()))
	}
	res, _ := BoundErrors(answer(&mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: huge}}}, nil))(context.Background(), "tools/call", nil)
	if text := res.(*mcp.CallToolResult).Content[0].(*mcp.TextContent).Text; len(text) > MaxErrorText {
		t.Errorf("a tool error: %d bytes", len(text))
	}
	res, _ = BoundErrors(answer(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: huge}}}, nil))(context.Background(), "tools/call", nil)
	if text := res.(*mcp.CallToolResult).Content[0].(*mcp.TextContent).Text; len(text) != len(huge) {
		t.Errorf("a result that is no error was cut to %d bytes", len(text))
	}
}
