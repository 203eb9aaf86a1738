package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
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

// tokenResult pairs a token object with its addresses.
func (h *handlers) tokenResult(token json.RawMessage) (TokenResult, error) {
	var head struct {
		UUID string `json:"uuid"`
	}
	if err := json.Unmarshal(token, &head); err != nil || head.UUID == "" {
		return TokenResult{}, fmt.Errorf("the capture API sent a token without a uuid")
	}
	out := TokenResult{Token: jsonx.Unescape(token), CaptureURL: h.client.CaptureURL(hooksvc.TokenID(head.UUID))}
	if h.hosted() && hooksvc.UUIDPattern.MatchString(head.UUID) {
		id := strings.ToLower(head.UUID)
		out.EmailAddress = id + "@emailhook.site"
		out.DNSName = id + ".dnshook.site"
		out.SubdomainURL = "https://" + id + ".webhook.site"
	}
	return out, nil
}

// hosted reports whether hookmcp talks to the public service, the only one
// with email, DNS and subdomain addresses.
func (h *handlers) hosted() bool {
	u := h.cfg.APIURL
	return u.Scheme == "https" && strings.EqualFold(u.Host, "webhook.site") && strings.Trim(u.Path, "/") == ""
}
