package mcptool

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SVGIcon is an icon drawn by svg, inlined as a data: URI so that a client
// needs no network to show it. svg must quote attributes with ' (a " would
// cost \" in every JSON that carries it); the characters a URI or a data:
// URI may not hold as they are (% < > # and space) are percent-encoded,
// the rest kept, which is shorter than base64.
func SVGIcon(svg string) mcp.Icon {
	return mcp.Icon{Source: "data:image/svg+xml," + svgEscaper.Replace(svg), MIMEType: "image/svg+xml", Sizes: []string{"any"}}
}

var svgEscaper = strings.NewReplacer("%", "%25", "<", "%3C", ">", "%3E", "#", "%23", " ", "%20", `"`, "%22")

// WithIcons is a receiving middleware that shows the server as impl with
// icons where a client learns who the server is: initialize's serverInfo
// (to 2025-11-25) and server/discover's _meta (from 2026-07-28). impl is
// the Implementation the server was made with, which has none: from
// 2026-07-28 the SDK repeats it in every other result's _meta, and icons
// there would be sent with every tool list and call.
func WithIcons(impl *mcp.Implementation, icons []mcp.Icon) mcp.Middleware {
	withIcons := *impl
	withIcons.Icons = icons
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			switch res := res.(type) {
			case *mcp.InitializeResult:
				if res != nil {
					res.ServerInfo = &withIcons
				}
			case *mcp.DiscoverResult:
				if res != nil {
					// The SDK names the server in _meta after this, unless
					// it is named already.
					meta := res.GetMeta()
					if meta == nil {
						meta = map[string]any{}
					}
					meta[mcp.MetaKeyServerInfo] = &withIcons
					res.SetMeta(meta)
				}
			}
			return res, err
		}
	}
}
