package tools

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptool"
)

// DeleteRequestArgs are delete_request's arguments.
type DeleteRequestArgs struct {
	RequestArg
}

// DeleteRequestResult is delete_request's result.
type DeleteRequestResult struct {
	TokenID   string `json:"token_id"`
	RequestID string `json:"request_id" jsonschema:"the request deleted"`
	Deleted   bool   `json:"deleted" jsonschema:"always true: a failure is a tool error"`
	Message   string `json:"message"`
}

func (h *handlers) deleteRequestTool() mcptool.Tool[DeleteRequestArgs, DeleteRequestResult] {
	return mcptool.Tool[DeleteRequestArgs, DeleteRequestResult]{
		Name:        "delete_request",
		Title:       "Delete one captured request",
		Description: "Delete one captured request by id; the token and its other requests stay. Cannot be undone.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(true)},
		AdjustInput: adjustRequestArg,
		Verbatim:    []string{"message"},
		Handle:      h.deleteRequest,
	}
}

func (h *handlers) deleteRequest(ctx context.Context, _ *mcp.CallToolRequest, args DeleteRequestArgs) (*mcp.CallToolResult, DeleteRequestResult, error) {
	id, key, requestID, err := h.request(args.RequestArg)
	if err != nil {
		return nil, DeleteRequestResult{}, err
	}
	if err := h.client.DeleteRequest(ctx, key, id, requestID); err != nil {
		return nil, DeleteRequestResult{}, err
	}
	out := DeleteRequestResult{
		TokenID: string(id), RequestID: string(requestID), Deleted: true,
		Message: fmt.Sprintf("Request %s of token %s was deleted; the token and its other requests remain.", requestID, id),
	}
	return mcptool.Text(out.Message), out, nil
}
