package tools

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/shared/mcptool"
)

// UpdateTokenArgs are update_token's arguments.
type UpdateTokenArgs struct {
	TokenArg
	hooksvc.TokenSettings
}

func (h *handlers) updateTokenTool() mcptool.Tool[UpdateTokenArgs, TokenResult] {
	return mcptool.Tool[UpdateTokenArgs, TokenResult]{
		Name:  "update_token",
		Title: "Update a capture token",
		Description: "Change settings of an existing capture token. Only the settings given change; every other setting keeps its current value. " +
			"At least one setting is required. Returns the updated token, its capture_url and the list of settings changed.",
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: ptr(false), OpenWorldHint: ptr(true)},
		AdjustInput: func(s *jsonschema.Schema) {
			adjustTokenArg(s)
			adjustSettings(s)
		},
		AdjustOutput: adjustTokenResult,
		Handle:       h.updateToken,
	}
}

// updateToken reads the token, merges the changes into its settings and
// writes them all back: the API's PUT resets every setting it is not sent.
func (h *handlers) updateToken(ctx context.Context, _ *mcp.CallToolRequest, args UpdateTokenArgs) (*mcp.CallToolResult, TokenResult, error) {
	id, key, err := h.access(args.TokenID, args.APIKey)
	if err != nil {
		return nil, TokenResult{}, err
	}
	if err := args.TokenSettings.Validate(); err != nil {
		return nil, TokenResult{}, err
	}
	changes := args.TokenSettings.Fields()
	if len(changes) == 0 {
		return nil, TokenResult{}, errors.New("update_token needs at least one setting to change: " + strings.Join(hooksvc.Settings, ", ") + "; get_token shows the current ones")
	}
	current, err := h.client.GetToken(ctx, key, id)
	if err != nil {
		return nil, TokenResult{}, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(current, &fields); err != nil {
		return nil, TokenResult{}, errors.New("the capture API sent the token as something other than a JSON object")
	}
	body := map[string]any{}
	for _, name := range hooksvc.Settings {
		if raw, ok := fields[name]; ok {
			body[name] = raw
		}
	}
	maps.Copy(body, changes)
	token, err := h.client.PutToken(ctx, key, id, body)
	if err != nil {
		return nil, TokenResult{}, err
	}
	out, err := h.tokenResult(token, slices.Sorted(maps.Keys(changes)))
	return nil, out, err
}
