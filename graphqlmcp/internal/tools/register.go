package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptool"
)

// registerTools adds the tools the operator's filter lets through: the two
// built-in tools and the saved operations.
func (h *handlers) registerTools(ctx context.Context, server *mcp.Server) error {
	mcptool.Register(server, h.queryTool(), h.introspectTool())
	_, err := h.addOperationTools(ctx, server)
	return err
}
