package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptool"
)

// registerTools adds the tools the operator's filter lets through.
func (h *handlers) registerTools(_ context.Context, server *mcp.Server) error {
	mcptool.Register(server,
		guarded(h, h.createTokenTool()),
		guarded(h, h.getTokenTool()),
		guarded(h, h.updateTokenTool()),
		guarded(h, h.deleteTokenTool()),
		guarded(h, h.listRequestsTool()),
		guarded(h, h.getLatestRequestTool()),
		guarded(h, h.getRequestTool()),
		guarded(h, h.waitForRequestTool()),
		guarded(h, h.sendTestRequestTool()),
		guarded(h, h.deleteRequestTool()),
		guarded(h, h.deleteRequestsTool()),
		guarded(h, h.verifySignatureTool()),
		guarded(h, h.setResponseTool()),
		guarded(h, h.replayRequestTool()),
	)
	return nil
}
