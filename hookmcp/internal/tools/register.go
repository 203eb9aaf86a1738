package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/app"
)

// registerTools adds the tools the operator's filter lets through, and
// refuses a filter that names a tool hookmcp does not have or that leaves
// none (app.CheckToolFilter). A call to a tool left out is answered with
// why (Filter.Withheld).
func (h *handlers) registerTools(_ context.Context, server *mcp.Server) error {
	offered := h.tools.Register(server,
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
	if err := app.CheckToolFilter(h.tools, offered); err != nil {
		return err
	}
	server.AddReceivingMiddleware(h.tools.Withheld(offered))
	return nil
}
