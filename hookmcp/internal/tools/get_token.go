package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptool"
)

// GetTokenArgs are get_token's arguments.
type GetTokenArgs struct {
	TokenArg
}

func (h *handlers) addGetTokenTool(server *mcp.Server) {
	mcptool.Add(server, &mcp.Tool{
		Name:        "get_token",
		Title:       "Get a capture token",
		Description: "Get a capture token's details and configuration (default response, timeout, expiry, request_limit, alias, when it expires, its latest request) and its capture_url.",
		InputSchema: mcptool.InputSchemaFor[GetTokenArgs](func(s *jsonschema.Schema) {
			adjustTokenArg(s)
		}),
		OutputSchema: tokenResultSchema(),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(true)},
	}, h.getToken)
}

func (h *handlers) getToken(ctx context.Context, _ *mcp.CallToolRequest, args GetTokenArgs) (*mcp.CallToolResult, error) {
	id, key, err := h.access(args.TokenID, args.APIKey)
	if err != nil {
		return nil, err
	}
	token, err := h.client.GetToken(ctx, key, id)
	if err != nil {
		return nil, err
	}
	return h.tokenResult(token, nil)
}

// tokenResult pairs a token object with its capture URL.
func (h *handlers) tokenResult(token json.RawMessage, updated []string) (*mcp.CallToolResult, error) {
	var head struct {
		UUID string `json:"uuid"`
	}
	if err := json.Unmarshal(token, &head); err != nil || head.UUID == "" {
		return nil, fmt.Errorf("the capture API sent a token without a uuid")
	}
	return jsonResult(TokenResult{Token: token, CaptureURL: h.client.CaptureURL(head.UUID), Updated: updated})
}
