package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addOperationTools registers a tool for each saved operation (--operations).
func (h *handlers) addOperationTools(ctx context.Context, server *mcp.Server) error {
	return nil
}
