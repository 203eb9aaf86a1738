package mcptool

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxErrorText is the most bytes of an error's text a server sends. The
// servers' own errors quote an argument by a short prefix (Quote); this
// holds the bound for errors they do not write, such as the go-sdk's
// "unknown tool" with the 1 MB name it was given.
const MaxErrorText = 2_000

// BoundErrors is a receiving middleware that cuts a protocol error's
// message, or a tool error's text, to MaxErrorText bytes, saying how long
// it was.
func BoundErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		result, err := next(ctx, method, req)
		var rpcErr *jsonrpc.Error
		switch {
		case errors.As(err, &rpcErr):
			if len(rpcErr.Message) > MaxErrorText {
				cut := *rpcErr
				cut.Message = cutError(rpcErr.Message)
				if len(cut.Data) > MaxErrorText {
					cut.Data = nil
				}
				err = &cut
			}
		case err != nil && len(err.Error()) > MaxErrorText:
			err = errors.New(cutError(err.Error()))
		}
		if res, ok := result.(*mcp.CallToolResult); ok && res != nil && res.IsError {
			for _, c := range res.Content {
				if text, ok := c.(*mcp.TextContent); ok && len(text.Text) > MaxErrorText {
					text.Text = cutError(text.Text)
				}
			}
		}
		return result, err
	}
}

func cutError(text string) string {
	return fmt.Sprintf("%s… (the error was cut: %d bytes in all)", strings.ToValidUTF8(text[:MaxErrorText-100], ""), len(text))
}
