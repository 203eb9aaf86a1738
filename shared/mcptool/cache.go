package mcptool

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CacheScopePrivate is the cache scope of every result these servers give:
// only the requesting user's client may keep it. A tool list shaped by the
// operator's flags, a schema read with the user's credentials, a token's
// captured requests: none may be served to another user by a shared cache.
const CacheScopePrivate = "private"

// PrivateCache returns a [mcp.ServerOptions.SetCacheable] that marks every
// result that carries cache hints (server/discover, the list methods,
// resources/read) private, with the time to live ttl gives for the request:
// zero, "stale at once", when ttl is nil or has no better answer. The SDK's
// default is public with zero, which lets a shared cache hand one user's
// answer to another.
//
// The SDK calls it with its own lock held for the list methods, so ttl
// must not call back into the server.
func PrivateCache(ttl func(req mcp.Request) time.Duration) func(context.Context, mcp.Request, *mcp.Cacheable) {
	return func(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
		c.CacheScope = CacheScopePrivate
		c.TTLMs = 0
		if ttl != nil {
			c.TTLMs = max(0, int(ttl(req).Milliseconds()))
		}
	}
}

// ReadURI is the URI a resources/read request names, and "" for any other
// request.
func ReadURI(req mcp.Request) string {
	if read, ok := req.(*mcp.ReadResourceRequest); ok && read.Params != nil {
		return read.Params.URI
	}
	return ""
}
