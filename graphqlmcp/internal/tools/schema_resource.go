package tools

import (
	"context"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/schema"
	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// schemaURI names the default endpoint's schema as a resource.
const schemaURI = "graphql://schema"

// schemaFrameLabel says what the resource's frame holds; the size listed
// is the framed text's.
const schemaFrameLabel = "the endpoint's schema as SDL"

// addSchemaResource lists the default endpoint's whole schema as a
// resource, so that a user or client can attach it to a conversation
// without tool calls. It comes from where the tools get it: the --schema
// file, the cache, or one introspection.
func (h *handlers) addSchemaResource(server *mcp.Server) {
	// Under the lock describeSchema reads it under; New starts the
	// reloads (watch), which describe the schema too, only after this.
	h.resource.mu.Lock()
	h.resource.server = server
	h.resource.mu.Unlock()
	if h.cfg.Schema != nil {
		h.describeSchema(mcptool.FramedLen(schemaFrameLabel, len(h.cfg.Schema.View(true).SDL)), "from --schema")
		return
	}
	server.AddResource(&mcp.Resource{
		URI:   schemaURI,
		Name:  "schema",
		Title: "GraphQL schema of " + httpx.DisplayURL(h.cfg.Endpoint),
		Description: "The whole schema of the default endpoint as SDL, deprecated members included, served whole whatever its size. " +
			"It is introspected on first use, and its size is listed here from then on.",
		MIMEType: "text/plain",
	}, h.readSchema)
}

// schemaResource is what the listing of graphql://schema says.
type schemaResource struct {
	server *mcp.Server
	mu     sync.Mutex
	size   int // the size listed; 0 before the schema is known
}

// describeSchema lists graphql://schema with its size, once it is known or
// when it changes; the SDK tells clients the list changed.
func (h *handlers) describeSchema(size int, source string) {
	h.resource.mu.Lock()
	defer h.resource.mu.Unlock()
	if h.resource.server == nil || h.resource.size == size {
		return
	}
	h.resource.size = size
	h.resource.server.AddResource(&mcp.Resource{
		URI:         schemaURI,
		Name:        "schema",
		Title:       "GraphQL schema of " + httpx.DisplayURL(h.cfg.Endpoint),
		Description: fmt.Sprintf("The whole schema of the default endpoint as SDL (%d bytes, %s), deprecated members included, served whole.", size, source),
		MIMEType:    "text/plain",
		Size:        int64(size),
	}, h.readSchema)
}

// schemaOf gets the schema of req's endpoint from the store, and lists the
// default endpoint's size on the resource once it is known.
func (h *handlers) schemaOf(ctx context.Context, req upstream.Request, refresh bool) (schema.Got, error) {
	got, err := h.schemas.Get(ctx, req, refresh)
	if err == nil && req.Target.IsDefault && !got.File {
		h.describeSchema(mcptool.FramedLen(schemaFrameLabel, len(got.Schema.View(true).SDL)), "introspected")
	}
	return got, err
}

// readSchema reads the schema as the client the read's HTTP request names
// (--forward-header), as graphql_introspect does: an endpoint may show
// each caller a schema of its own, and none as the operator's.
func (h *handlers) readSchema(ctx context.Context, read *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	var extra *mcp.RequestExtra
	if read != nil {
		extra = read.Extra
	}
	who, err := h.forwardedFrom(extra)
	if err != nil {
		return nil, err
	}
	req, err := h.targetAs(who, "", nil, h.cfg.Timeout)
	if err != nil {
		return nil, err
	}
	got, err := h.schemaOf(ctx, req, false)
	if err != nil {
		return nil, who.clean(err)
	}
	sdl := got.Schema.View(true).SDL
	if !who.redactor.Empty() {
		sdl = who.redactor.String(sdl)
	}
	// The endpoint wrote the schema (its names and descriptions): the
	// SDL is framed as a third party's words.
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: schemaURI, MIMEType: "text/plain", Text: mcptool.Untrusted(schemaFrameLabel, sdl)}}}, nil
}
