package tools

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/app"
)

// serverOptions are the MCP server's options: its instructions, logger and
// capabilities.
func (h *handlers) serverOptions(opts Options) *mcp.ServerOptions {
	return &mcp.ServerOptions{Instructions: instructions(h.cfg), Logger: app.SDKLogger(opts.Logger), Capabilities: &mcp.ServerCapabilities{}}
}
