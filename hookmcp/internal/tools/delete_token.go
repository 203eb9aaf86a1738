package tools

import (
	"context"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptool"
)

// DeleteTokenArgs are delete_token's arguments.
type DeleteTokenArgs struct {
	TokenArg
}

// DeleteTokenResult is delete_token's result.
type DeleteTokenResult struct {
	TokenID string `json:"token_id" jsonschema:"the token deleted"`
	Deleted bool   `json:"deleted" jsonschema:"always true: a failure is a tool error"`
	Message string `json:"message" jsonschema:"what the deletion means"`
}

func (h *handlers) deleteTokenTool() mcptool.Tool[DeleteTokenArgs, DeleteTokenResult] {
	return mcptool.Tool[DeleteTokenArgs, DeleteTokenResult]{
		Name:        "delete_token",
		Title:       "Delete a capture token",
		Description: "Delete a token and every request it captured. Cannot be undone: confirm with the user first.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: false, OpenWorldHint: ptr(true)},
		AdjustInput: func(s *jsonschema.Schema) { adjustTokenArg(s) },
		Verbatim:    []string{"message"},
		Handle:      h.deleteToken,
	}
}

func (h *handlers) deleteToken(ctx context.Context, req *mcp.CallToolRequest, args DeleteTokenArgs) (*mcp.CallToolResult, DeleteTokenResult, error) {
	id, key, err := h.access(args.TokenID, args.APIKey)
	if err != nil {
		return nil, DeleteTokenResult{}, err
	}
	err = h.confirmDelete(ctx, req, "deleting token "+string(id), []string{string(id)}, key, func(ctx context.Context) (string, error) {
		n, err := h.count(ctx, key, id, nil)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("The assistant asks to delete the capture token %s and the %s it captured. %s will stop accepting requests. This cannot be undone.\n\nDelete the token?",
			id, requestsCount(n), h.client.CaptureURL(id)), nil
	}, nil)
	if err != nil {
		return nil, DeleteTokenResult{}, err
	}
	if err := h.client.DeleteToken(ctx, key, id); err != nil {
		return nil, DeleteTokenResult{}, err
	}
	out := DeleteTokenResult{
		TokenID: string(id),
		Deleted: true,
		Message: fmt.Sprintf("Token %s was deleted with every request it captured; %s no longer accepts requests.", id, h.client.CaptureURL(id)),
	}
	return mcptool.Text(out.Message), out, nil
}
