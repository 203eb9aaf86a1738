package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/shared/mcptool"
)

// CreateTokenArgs are create_token's arguments.
type CreateTokenArgs struct {
	KeyArg
	hooksvc.TokenSettings
	CloneFrom string `json:"clone_from,omitempty" jsonschema:"UUID or alias of a token whose settings the new token copies; arguments given here override them"`
}

// TokenResult is the result of create_token, get_token and update_token.
type TokenResult struct {
	Token      json.RawMessage `json:"token" jsonschema:"the token object as the API returns it (uuid, alias, default_status, expires_at, ...)"`
	CaptureURL string          `json:"capture_url" jsonschema:"the URL that captures requests sent to this token"`
	Updated    []string        `json:"updated,omitempty" jsonschema:"update_token only: the settings that were changed"`
}

// adjustTokenResult says what Go types cannot: the token is an object whose
// fields are the API's (json.RawMessage alone would read as bytes).
func adjustTokenResult(s *jsonschema.Schema) {
	s.Properties["token"] = &jsonschema.Schema{Type: "object", Description: s.Properties["token"].Description}
	s.Properties["capture_url"].Format = "uri"
}

func (h *handlers) createTokenTool() mcptool.Tool[CreateTokenArgs, TokenResult] {
	return mcptool.Tool[CreateTokenArgs, TokenResult]{
		Name:  "create_token",
		Title: "Create a capture token",
		Description: "Create a webhook-capture token: a unique URL that records every HTTP request sent to it. " +
			"Every argument is optional; the API's defaults apply to those left out (answer 200 with an empty text/plain body, expire after a week, keep up to 10000 requests). " +
			"clone_from copies another token's settings. Returns the token object and its capture_url.",
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(true), DestructiveHint: ptr(false)},
		AdjustInput: func(s *jsonschema.Schema) {
			adjustSettings(s)
			s.Properties["clone_from"].Pattern = hooksvc.CloneFromPattern.String()
		},
		AdjustOutput: adjustTokenResult,
		Handle:       h.createToken,
	}
}

func (h *handlers) createToken(ctx context.Context, _ *mcp.CallToolRequest, args CreateTokenArgs) (*mcp.CallToolResult, TokenResult, error) {
	key, err := h.key(args.APIKey)
	if err != nil {
		return nil, TokenResult{}, err
	}
	if err := args.TokenSettings.Validate(); err != nil {
		return nil, TokenResult{}, err
	}
	body := args.TokenSettings.Fields()
	if args.CloneFrom != "" {
		if !hooksvc.CloneFromPattern.MatchString(args.CloneFrom) {
			return nil, TokenResult{}, fmt.Errorf("clone_from must be a token UUID such as %s or an alias of 3 to 32 letters, digits, _ or -; got %q", hooksvc.ExampleUUID, args.CloneFrom)
		}
		body["clone_from"] = args.CloneFrom
	}
	token, err := h.client.CreateToken(ctx, key, body)
	if err != nil {
		return nil, TokenResult{}, err
	}
	out, err := h.tokenResult(token, nil)
	return nil, out, err
}
