package mcptool

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RecoverPanics is a receiving middleware that turns a panic in any handler
// (a tool, a resource, the SDK's own) into an error answer for that one call,
// logged with its stack on logger, so one bad input never ends the process
// and every other session goes on. A tool's panic is a tool error the
// assistant can read; any other method's is a JSON-RPC internal error.
//
// The panic's value is logged only when it is a runtime error (an index out
// of range, a nil dereference): any other value may carry request data, and
// so a secret.
func RecoverPanics(logger *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (result mcp.Result, err error) {
			defer func() {
				p := recover()
				if p == nil {
					return
				}
				what := describeCall(method, req)
				value := fmt.Sprintf("a value of type %T", p)
				if rerr, ok := p.(runtime.Error); ok {
					value = rerr.Error()
				}
				logger.Error("a handler panicked; the call failed and the server keeps running",
					"method", method, "call", what, "panic", value, "stack", string(debug.Stack()))
				message := fmt.Sprintf("internal error in %s; the server keeps running. This is a bug in the server: please report it with the server's log.", what)
				if method == "tools/call" {
					result, err = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: message}}}, nil
					return
				}
				result, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: message}
			}()
			return next(ctx, method, req)
		}
	}
}

// describeCall names what was called: the tool, the resource, or the method.
func describeCall(method string, req mcp.Request) string {
	switch params := req.GetParams().(type) {
	case *mcp.CallToolParamsRaw:
		return params.Name
	case *mcp.ReadResourceParams:
		return "reading " + params.URI
	}
	return method
}
