package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptool"
)

// GetRequestArgs are get_request's arguments.
type GetRequestArgs struct {
	RequestArg
}

func (h *handlers) getRequestTool() mcptool.Tool[GetRequestArgs, RequestResult] {
	return mcptool.Tool[GetRequestArgs, RequestResult]{
		Name:         "get_request",
		Title:        "Get one captured request",
		Description:  "Get one captured request by id, as get_latest_request gives it.",
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(true)},
		AdjustInput:  adjustRequestArg,
		AdjustOutput: adjustRequestResult,
		Verbatim:     []string{"body", "note"},
		Handle:       h.getRequest,
	}
}

// getRequest reads the request object, then its raw body: the object's
// content is the body as the API decoded it into a string, the raw one is
// the bytes as they arrived.
func (h *handlers) getRequest(ctx context.Context, _ *mcp.CallToolRequest, args GetRequestArgs) (*mcp.CallToolResult, RequestResult, error) {
	id, key, requestID, err := h.request(args.RequestArg)
	if err != nil {
		return nil, RequestResult{}, err
	}
	item, err := h.client.GetRequest(ctx, key, id, requestID)
	if err != nil {
		return nil, RequestResult{}, err
	}
	meta, err := decodeMeta(item)
	if err != nil {
		return nil, RequestResult{}, err
	}
	// The path's id is the one asked for, whatever the object says.
	meta.UUID = requestID
	out, err := h.requestResult(ctx, key, id, meta)
	if err != nil {
		return nil, RequestResult{}, err
	}
	h.seeMeta(id, meta)
	return mcptool.Text(requestText("Request", out)...), out, nil
}
