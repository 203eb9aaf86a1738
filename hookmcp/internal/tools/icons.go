package tools

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptool"
)

// iconSVG is hookmcp's icon: a fish hook, in a mid blue that reads on light
// and dark backgrounds alike.
const iconSVG = `<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24' fill='none' stroke='#2F6FEB' stroke-width='2' stroke-linecap='round' stroke-linejoin='round'><circle cx='15' cy='4' r='2'/><path d='M15 6v8a5 5 0 0 1-10 0v-3l3 3'/></svg>`

// implementation is hookmcp's identity. It has no icon: mcptool.WithIcons adds
// it where a client learns who the server is, and leaves it out of the
// copy the SDK puts in every result from 2026-07-28. The icon is the
// server's only: one on each tool would add its bytes to every tools/list,
// past the list's budget (TestToolListSize).
func implementation(version string) *mcp.Implementation {
	return &mcp.Implementation{Name: "hookmcp", Title: "Webhook capture", Version: version}
}

// addProtocolFeatures adds what the newer protocol revisions offer beyond
// tools and resources: completions of its token_id
// (completions.go), and the server's icon.
func (h *handlers) addProtocolFeatures(server *mcp.Server, version string) {
	server.AddReceivingMiddleware(mcptool.WithIcons(implementation(version), []mcp.Icon{mcptool.SVGIcon(iconSVG)}), h.newTokenCompletions().middleware)
}
