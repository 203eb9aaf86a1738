package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addOperationTools registers a tool for each saved operation (--operations)
// that the tool filter allows, and returns the names of all of them, so
// that the filter's names can be checked against them.
func (h *handlers) addOperationTools(ctx context.Context, server *mcp.Server) (names []string, err error) {
	return nil, nil
}
