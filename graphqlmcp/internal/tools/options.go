package tools

import (
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/app"
	"github.com/mcpforge/servers/shared/mcptool"
)

// serverOptions are the MCP server's options: its instructions, logger,
// capabilities, cache hints and completions.
func (h *handlers) serverOptions(opts Options) *mcp.ServerOptions {
	return &mcp.ServerOptions{
		Instructions:      instructions(h.cfg),
		Logger:            app.SDKLogger(opts.Logger),
		Capabilities:      &mcp.ServerCapabilities{},
		SetCacheable:      mcptool.PrivateCache(h.cacheTTL),
		CompletionHandler: h.complete,
	}
}

// cacheTTL is how long a client may keep a result: a read of the schema or
// of one of its types as long as the schema cache keeps the schema it came
// from (--schema-cache-ttl), since the server itself answers from that cache
// for as long; anything else (the tool list, which the operator's flags shape
// and a restart with other flags changes without notice, the listings) is
// stale at once. A --schema file's schema is stale at once too: a reload
// (SIGHUP, an edit) may replace it at any time, and no notification tells
// a client to drop what it kept.
func (h *handlers) cacheTTL(req mcp.Request) time.Duration {
	uri := mcptool.ReadURI(req)
	if (uri == schemaURI || strings.HasPrefix(uri, typeURIPrefix)) && h.cfg.SchemaFile == "" {
		return h.cfg.SchemaCacheTTL
	}
	return 0
}
