package tools

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptool"
)

// iconSVG is graphqlmcp's icon: GraphQL's hexagon and triangle, in its
// pink, which reads on light and dark backgrounds alike.
const iconSVG = `<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24' fill='none' stroke='#E10098' stroke-width='1.6' stroke-linejoin='round'><path d='M12 2l8.7 5v10L12 22l-8.7-5V7zM12 2L3.3 17h17.4z'/></svg>`

// implementation is graphqlmcp's identity. It has no icon: mcptool.WithIcons adds
// it where a client learns who the server is, and leaves it out of the
// copy the SDK puts in every result from 2026-07-28. The icon is the
// server's only: one on each tool would add its bytes to every tools/list,
// past the list's budget (TestToolListSize).
func implementation(version string) *mcp.Implementation {
	return &mcp.Implementation{Name: "graphqlmcp", Title: "GraphQL", Version: version}
}

// addProtocolFeatures adds what the newer protocol revisions offer beyond
// tools and resources: one type as a resource (whose names
// complete, see complete), and the server's icon.
func (h *handlers) addProtocolFeatures(server *mcp.Server, version string) {
	server.AddReceivingMiddleware(mcptool.WithIcons(implementation(version), []mcp.Icon{mcptool.SVGIcon(iconSVG)}))
	h.addTypeResource(server)
}
