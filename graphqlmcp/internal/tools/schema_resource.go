package tools

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/httpx"
)

// schemaURI names the default endpoint's schema as a resource.
const schemaURI = "graphql://schema"

// addSchemaResource lists the default endpoint's whole schema as a
// resource, so that a user or client can attach it to a conversation
// without tool calls. It comes from where the tools get it: the --schema
// file, the cache, or one introspection.
func (h *handlers) addSchemaResource(server *mcp.Server) {
	resource := &mcp.Resource{
		URI:   schemaURI,
		Name:  "schema",
		Title: "GraphQL schema of " + httpx.DisplayURL(h.cfg.Endpoint),
		Description: "The whole schema of the default endpoint as SDL, deprecated members included, served whole whatever its size. " +
			"Without --schema it is introspected on first read; graphql_introspect gives its size (sdlBytes) and smaller views.",
		MIMEType: "text/plain",
	}
	if h.cfg.Schema != nil {
		size := len(h.cfg.Schema.View(true).SDL)
		resource.Size = int64(size)
		resource.Description = fmt.Sprintf("The whole schema of the default endpoint as SDL (%d bytes, from --schema), deprecated members included.", size)
	}
	server.AddResource(resource, h.readSchema)
}

func (h *handlers) readSchema(ctx context.Context, _ *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	req, err := h.target("", nil, h.cfg.Timeout)
	if err != nil {
		return nil, err
	}
	got, err := h.schemas.Get(ctx, req, false)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: schemaURI, MIMEType: "text/plain", Text: got.Schema.View(true).SDL}}}, nil
}
