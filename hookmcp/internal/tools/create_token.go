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
	CloneFrom string `json:"clone_from,omitempty" jsonschema:"UUID or alias (3 to 32 letters, digits, _ or -) of a token whose settings to copy; other arguments override them"`
}

// TokenResult is the result of create_token, get_token and update_token:
// the token and its addresses.
type TokenResult struct {
	Token        json.RawMessage `json:"token" jsonschema:"the token object as the API returns it (uuid, alias, default_status, expires_at, ...)"`
	CaptureURL   string          `json:"capture_url" jsonschema:"the URL that captures HTTP requests sent to it (any method, any path below it)"`
	EmailAddress string          `json:"email_address,omitempty" jsonschema:"hosted service only: mail sent here is captured (type email)"`
	DNSName      string          `json:"dns_name,omitempty" jsonschema:"hosted service only: DNS lookups of this name and any name below it are captured (type dns)"`
	SubdomainURL string          `json:"subdomain_url,omitempty" jsonschema:"hosted service only: the token's own subdomain, which captures like capture_url"`
	Updated      []string        `json:"updated,omitempty" jsonschema:"update_token only: the settings the server applied"`
	NotApplied   []string        `json:"not_applied,omitempty" jsonschema:"update_token only: settings asked for that the server's answer does not show (it ignored them)"`
	Note         string          `json:"note,omitempty"`
}

// adjustTokenResult says what Go types cannot: the token is an object whose
// fields are the API's (json.RawMessage alone would read as bytes).
func adjustTokenResult(s *jsonschema.Schema) {
	s.Properties["token"] = &jsonschema.Schema{Type: "object", Description: s.Properties["token"].Description}
	s.Properties["capture_url"].Format = "uri"
	s.Properties["subdomain_url"].Format = "uri"
	s.Properties["email_address"].Format = "email"
}

func (h *handlers) createTokenTool() mcptool.Tool[CreateTokenArgs, TokenResult] {
	return mcptool.Tool[CreateTokenArgs, TokenResult]{
		Name:  "create_token",
		Title: "Create a capture token",
		Description: "Create a capture token: a URL that records every request sent to it. Settings left out take the service's defaults. " +
			"Returns the token, its capture_url and, on webhook.site, email, DNS and subdomain addresses that capture too.",
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(true), DestructiveHint: ptr(false)},
		AdjustInput: func(s *jsonschema.Schema) {
			adjustSettings(s)
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
	out, err := h.tokenResult(token)
	return nil, out, err
}
