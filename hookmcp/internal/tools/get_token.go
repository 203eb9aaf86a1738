package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/jsonx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// GetTokenArgs are get_token's arguments.
type GetTokenArgs struct {
	TokenArg
}

func (h *handlers) getTokenTool() mcptool.Tool[GetTokenArgs, TokenResult] {
	return mcptool.Tool[GetTokenArgs, TokenResult]{
		Name:         "get_token",
		Title:        "Get a capture token",
		Description:  "Read a token's settings, expiry and latest request, with its addresses as create_token gives them.",
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(true)},
		AdjustInput:  func(s *jsonschema.Schema) { adjustTokenArg(s) },
		AdjustOutput: adjustTokenResult,
		Handle:       h.getToken,
	}
}

func (h *handlers) getToken(ctx context.Context, _ *mcp.CallToolRequest, args GetTokenArgs) (*mcp.CallToolResult, TokenResult, error) {
	id, key, err := h.access(args.TokenID, args.APIKey)
	if err != nil {
		return nil, TokenResult{}, err
	}
	token, err := h.client.GetToken(ctx, key, id)
	if err != nil {
		return nil, TokenResult{}, err
	}
	out, err := h.tokenResult(token)
	return nil, out, err
}

// tokenFields are the members of a token object that a token result
// copies: the token's settings and what the service says of its state.
// Anything else its answer carries stays out of results: the account's
// (team_id, group_id, user_id), a password and other auth settings, the
// creator's ip and user agent, and members added later, which may be any
// of these.
var tokenFields = []string{
	"uuid", "alias", "description",
	"default_status", "default_content", "default_content_type", "timeout", "listen",
	"expiry", "request_limit", "cors", "actions",
	"premium", "premium_expires_at", "expires_at", "latest_request_id", "latest_request_at", "created_at", "updated_at",
}

// tokenResult pairs the documented fields of a token object (tokenFields)
// with the token's addresses.
func (h *handlers) tokenResult(token json.RawMessage) (TokenResult, error) {
	var fields map[string]json.RawMessage
	var uuid string
	if json.Unmarshal(token, &fields) != nil || json.Unmarshal(fields["uuid"], &uuid) != nil || uuid == "" {
		return TokenResult{}, fmt.Errorf("the capture API sent a token without a uuid")
	}
	kept := make(map[string]json.RawMessage, len(tokenFields))
	for _, name := range tokenFields {
		if raw, ok := fields[name]; ok {
			kept[name] = raw
		}
	}
	copied, err := jsonx.Marshal(kept)
	if err != nil {
		return TokenResult{}, err
	}
	out := TokenResult{Token: jsonx.Unescape(copied), CaptureURL: h.client.CaptureURL(hooksvc.TokenID(uuid))}
	if h.hosted() && hooksvc.UUIDPattern.MatchString(uuid) {
		id := strings.ToLower(uuid)
		out.EmailAddress = id + "@emailhook.site"
		out.DNSName = "*." + id + ".dnshook.site"
		out.SubdomainURL = "https://" + id + ".webhook.site"
	}
	return out, nil
}

// hosted reports whether hookmcp talks to the public service, the only one
// with email, DNS and subdomain addresses.
func (h *handlers) hosted() bool {
	u := h.cfg.APIURL
	host, port, err := httpx.CanonicalHostPort(u)
	return err == nil && u.Scheme == "https" && host == "webhook.site" && port == "443" && strings.Trim(u.Path, "/") == ""
}
