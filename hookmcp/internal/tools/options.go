package tools

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/app"
)

// serverOptions are the MCP server's options: its instructions, logger,
// capabilities and the live updates' subscription handlers.
func (h *handlers) serverOptions(opts Options) *mcp.ServerOptions {
	serverOpts := &mcp.ServerOptions{Instructions: instructions(opts.Config), Logger: app.SDKLogger(opts.Logger)}
	h.live.serverOptions(serverOpts)
	return serverOpts
}
