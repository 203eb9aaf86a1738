package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

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
	DNSName      string          `json:"dns_name,omitempty" jsonschema:"hosted service only: DNS lookups of any name below <uuid>.dnshook.site (the *) are captured (type dns)"`
	SubdomainURL string          `json:"subdomain_url,omitempty" jsonschema:"hosted service only: the token's own subdomain, which captures like capture_url"`
	Updated      []string        `json:"updated,omitempty" jsonschema:"update_token only: the settings the server applied"`
	NotApplied   []string        `json:"not_applied,omitempty" jsonschema:"settings asked for that the server's answer does not show (it ignored them); create_token: listen only"`
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
		// The API takes an alias here, and a UUID; a capture URL, email
		// address or DNS name is read for the UUID it holds.
		from := args.CloneFrom
		if !hooksvc.CloneFromPattern.MatchString(from) {
			id, err := h.client.ParseToken("clone_from", from, key)
			switch {
			case err != nil && strings.Contains(from, "://"):
				return nil, TokenResult{}, err
			case err != nil:
				return nil, TokenResult{}, fmt.Errorf("clone_from must be a token UUID such as %s or an alias of 3 to 32 letters, digits, _ or - (or a capture URL, email address or DNS name that holds the UUID); got %s",
					hooksvc.ExampleUUID, hooksvc.Quote(from))
			}
			from = string(id)
		}
		body["clone_from"] = from
	}
	token, err := h.client.CreateToken(ctx, key, body)
	if err != nil {
		return nil, TokenResult{}, err
	}
	listen, listenApplied := "", true
	if v, ok := body["listen"]; ok {
		token, listenApplied, listen = h.listenAfterCreate(ctx, key, token, v)
	}
	out, err := h.tokenResult(token)
	if err != nil {
		return nil, TokenResult{}, err
	}
	if !listenApplied {
		out.NotApplied, out.Note = []string{"listen"}, listen
	}
	return nil, out, nil
}

// listenAfterCreate sets listen on a token just created, whose answer
// (token) does not show it: the hosted service ignores listen on create.
// It writes the whole token back with listen set, as update_token does,
// and reads the answer. It returns the token as last seen, whether listen
// shows as asked, and when not, a note that says why: the token exists
// either way, so no failure here fails the call.
func (h *handlers) listenAfterCreate(ctx context.Context, key string, token json.RawMessage, listen any) (json.RawMessage, bool, string) {
	var created map[string]json.RawMessage
	var uuid string
	if json.Unmarshal(token, &created) != nil || json.Unmarshal(created["uuid"], &uuid) != nil || uuid == "" {
		return token, false, "" // tokenResult refuses it
	}
	if sameJSON(listen, created["listen"]) {
		return token, true, ""
	}
	if !hooksvc.UUIDPattern.MatchString(uuid) {
		return token, false, fmt.Sprintf("The token was created, but listen was not applied: the service ignores it when creating a token, and its uuid %q is not one the API's paths take, so it could not be updated.", truncate(uuid, 100))
	}
	updated, answer, err := h.putSettings(ctx, key, hooksvc.TokenID(strings.ToLower(uuid)), map[string]any{"listen": listen})
	if err != nil {
		return token, false, fmt.Sprintf("The token was created, but listen was not applied: the service ignores it when creating a token, and the update that sets it failed: %v. Call update_token with listen to try again.", err)
	}
	if !sameJSON(listen, answer["listen"]) {
		return updated, false, fmt.Sprintf("The token was created, but the service did not apply listen (it shows %s): it ignores listen when creating a token, and ignored the update that followed too.", shown(answer, []string{"listen"}))
	}
	return updated, true, ""
}
