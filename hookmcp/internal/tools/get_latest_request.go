package tools

import (
	"context"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptool"
)

// GetLatestRequestArgs are get_latest_request's arguments.
type GetLatestRequestArgs struct {
	TokenArg
}

func (h *handlers) getLatestRequestTool() mcptool.Tool[GetLatestRequestArgs, RequestResult] {
	return mcptool.Tool[GetLatestRequestArgs, RequestResult]{
		Name:         "get_latest_request",
		Title:        "Get the latest captured request",
		Description:  "Get a token's newest request: method, URL, headers, query, form, files, email, exact body (base64 if not UTF-8). captured: false if none.",
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(true)},
		AdjustInput:  func(s *jsonschema.Schema) { adjustTokenArg(s) },
		AdjustOutput: adjustRequestResult,
		Verbatim:     []string{"body", "note"},
		ThirdParty:   true, // the sender wrote its URL, headers, fields
		Handle:       h.getLatestRequest,
	}
}

// getLatestRequest reads the newest request as listed, then fetches that
// request's raw body by its id (the open-source server has no
// /request/latest/raw).
func (h *handlers) getLatestRequest(ctx context.Context, _ *mcp.CallToolRequest, args GetLatestRequestArgs) (*mcp.CallToolResult, RequestResult, error) {
	id, key, err := h.access(args.TokenID, args.APIKey)
	if err != nil {
		return nil, RequestResult{}, err
	}
	item, ok, err := h.client.LatestRequest(ctx, key, id)
	if err != nil {
		return nil, RequestResult{}, err
	}
	if !ok {
		captureURL := h.client.CaptureURL(id)
		res, out := nothingCaptured(id, captureURL, fmt.Sprintf("Token %s has not captured any request yet. Requests sent to %s will show here.", id, captureURL))
		return res, out, nil
	}
	meta, err := decodeMeta(item)
	if err != nil {
		return nil, RequestResult{}, err
	}
	out, err := h.requestResult(ctx, key, id, meta)
	if err != nil {
		return nil, RequestResult{}, err
	}
	h.seeMeta(id, meta)
	return mcptool.Text(requestText("Latest request", out)...), out, nil
}
