package tools

import "github.com/modelcontextprotocol/go-sdk/mcp"

// LiveOptions configure live updates; none yet.
type LiveOptions struct{}

// live will hold the service's push of new requests and the subscriptions
// to the requests resource.
type live struct{}

func (h *handlers) newLive(opts Options) *live { return &live{} }

// serverOptions sets what live updates need in the server's options.
func (l *live) serverOptions(o *mcp.ServerOptions) {}

// attach gives live updates the server they notify through.
func (l *live) attach(s *mcp.Server) {}
