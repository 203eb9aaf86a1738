package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/shared/jsonx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// UpdateTokenArgs are update_token's arguments.
type UpdateTokenArgs struct {
	TokenArg
	hooksvc.TokenSettings
}

// readOnlyTokenFields are members of a token object the API writes itself:
// they are not sent back in a PUT. Everything else is, so that a setting
// hookmcp does not know (description, group_id, auth settings, anything
// added later) survives an update.
var readOnlyTokenFields = []string{
	"uuid", "created_at", "updated_at", "expires_at", "latest_request_id", "latest_request_at", "requests",
	"premium", "premium_expires_at", "user_id", "ip", "user_agent",
}

func (h *handlers) updateTokenTool() mcptool.Tool[UpdateTokenArgs, TokenResult] {
	return mcptool.Tool[UpdateTokenArgs, TokenResult]{
		Name:  "update_token",
		Title: "Update a capture token",
		Description: "Change a token's settings: only those given change, every other one stays. " +
			"Returns the token, updated (the settings applied) and not_applied (those the server ignored).",
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: ptr(false), OpenWorldHint: ptr(true)},
		AdjustInput: func(s *jsonschema.Schema) {
			adjustTokenArg(s)
			adjustSettings(s)
		},
		AdjustOutput: adjustTokenResult,
		Handle:       h.updateToken,
	}
}

// updateToken reads the whole token, merges the changes into it and writes
// it back, as the API's own CLI does: the API's PUT resets every setting it
// is not sent. It then reads the answer for each change asked.
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
	token, answer, err := h.putSettings(ctx, key, id, changes)
	if err != nil {
		return nil, TokenResult{}, err
	}
	out, err := h.tokenResult(token)
	if err != nil {
		return nil, TokenResult{}, err
	}
	out.Updated, out.NotApplied = applied(changes, answer)
	if len(out.NotApplied) > 0 {
		out.Note = fmt.Sprintf("The server did not apply %s: its answer shows %s. The open-source webhook.site ignores cors, alias, expiry, listen, request_limit and actions in an update.",
			strings.Join(out.NotApplied, ", "), shown(answer, out.NotApplied))
	}
	return nil, out, nil
}

// putSettings reads the whole token, merges changes into it and writes it
// back, and returns the token the API answered with, whole and by member.
func (h *handlers) putSettings(ctx context.Context, key string, id hooksvc.TokenID, changes map[string]any) (json.RawMessage, map[string]json.RawMessage, error) {
	current, err := h.client.GetToken(ctx, key, id)
	if err != nil {
		return nil, nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(current, &fields); err != nil {
		return nil, nil, errors.New("the capture API sent the token as something other than a JSON object")
	}
	body := map[string]any{}
	for name, raw := range fields {
		if !slices.Contains(readOnlyTokenFields, name) {
			body[name] = raw
		}
	}
	maps.Copy(body, changes)
	token, err := h.client.PutToken(ctx, key, id, body)
	if err != nil {
		return nil, nil, err
	}
	var answer map[string]json.RawMessage
	if err := json.Unmarshal(token, &answer); err != nil {
		return nil, nil, errors.New("the capture API sent the updated token as something other than a JSON object")
	}
	return token, answer, nil
}

// applied splits the settings asked for by whether the token the server
// answered with shows them.
func applied(changes map[string]any, answer map[string]json.RawMessage) (updated, ignored []string) {
	for _, name := range slices.Sorted(maps.Keys(changes)) {
		if sameJSON(changes[name], answer[name]) {
			updated = append(updated, name)
		} else {
			ignored = append(ignored, name)
		}
	}
	return updated, ignored
}

// sameJSON reports whether want, encoded, and got decode to equal values.
func sameJSON(want any, got json.RawMessage) bool {
	encoded, err := jsonx.Marshal(want)
	if err != nil || len(got) == 0 {
		return false
	}
	var a, b any
	if json.Unmarshal(encoded, &a) != nil || json.Unmarshal(got, &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

// shown lists what the token shows for each setting: "cors false, alias null".
func shown(answer map[string]json.RawMessage, names []string) string {
	parts := make([]string, len(names))
	for i, name := range names {
		value := "nothing"
		if raw, ok := answer[name]; ok {
			value = truncate(string(raw), 100)
		}
		parts[i] = name + " " + value
	}
	return strings.Join(parts, ", ")
}
