package tools

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/app"
	"github.com/mcpforge/servers/shared/mcptool"
)

// serverOptions are the MCP server's options: its instructions, logger,
// capabilities, cache hints, completions and the live updates' subscription
// handlers.
func (h *handlers) serverOptions(opts Options) *mcp.ServerOptions {
	serverOpts := &mcp.ServerOptions{
		Instructions: instructions(opts.Config),
		Logger:       app.SDKLogger(opts.Logger),
		// Every result is private and stale at once: a token's captured
		// requests change with each capture, and the tool list is shaped
		// by the operator's flags.
		SetCacheable: mcptool.PrivateCache(nil),
		// The token ids are completed by a middleware that sees the
		// tool calls (completions.go); this answers everything else.
		CompletionHandler: noCompletions,
	}
	h.live.serverOptions(serverOpts)
	return serverOpts
}
