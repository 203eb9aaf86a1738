package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/shared/mcptool"
)

// The arguments shared by several tools. Every tool takes api_key; every
// tool but create_token takes token_id.

// KeyArg is the per-call API key.
type KeyArg struct {
	// Its use is told once, in the server's instructions.
	APIKey string `json:"api_key,omitempty"`
}

// TokenArg addresses a token.
type TokenArg struct {
	TokenID string `json:"token_id,omitempty"`
	KeyArg
}

// Schema adjustments: the bounds an assistant should see.

// adjustDates states a date filter's format in the schema, so that a client
// that checks arguments refuses what the handler would.
func adjustDates(s *jsonschema.Schema) {
	for _, name := range []string{"date_from", "date_to"} {
		s.Properties[name].Pattern = hooksvc.DateOrExprPattern.String()
	}
}

// adjustTokenArg leaves token_id a plain string: it takes a capture URL, an
// email address or a DNS name as well as a UUID (hooksvc.ParseToken).
func adjustTokenArg(s *jsonschema.Schema) {}

// adjustSettings shows the API's rules of the token settings.
func adjustSettings(s *jsonschema.Schema) {
	for name, b := range hooksvc.SettingBounds {
		p := s.Properties[name]
		p.Type, p.Types = "integer", nil
		p.Minimum, p.Maximum = ptr(float64(b.Min)), ptr(float64(b.Max))
	}
	s.Properties["alias"].Pattern = hooksvc.AliasPattern.String()
}

// resolveDates checks a pair of date filters, each an absolute UTC time or
// an expression such as now-7d, and returns them absolute: the listing that
// counts or checks a filter takes absolute dates only.
func resolveDates(dateFrom, dateTo string, now time.Time) (from, to string, err error) {
	from, fromTime, err := hooksvc.ResolveDate("date_from", dateFrom, now)
	if err != nil {
		return "", "", err
	}
	to, toTime, err := hooksvc.ResolveDate("date_to", dateTo, now)
	if err != nil {
		return "", "", err
	}
	if from != "" && to != "" && fromTime.After(toTime) {
		return "", "", fmt.Errorf("date_from (%s) is after date_to (%s), so no request could match; swap them", resolved(dateFrom, from), resolved(dateTo, to))
	}
	return from, to, nil
}

// resolved writes a date argument with its absolute time when it was an
// expression.
func resolved(given, absolute string) string {
	if given == absolute {
		return given
	}
	return given + ", " + absolute + " UTC"
}

// RequestArg addresses one captured request of a token.
type RequestArg struct {
	RequestID string `json:"request_id"`
	TokenArg
}

// request resolves the token, key and request id of a call.
func (h *handlers) request(args RequestArg) (id hooksvc.TokenID, key string, requestID hooksvc.RequestID, err error) {
	id, key, err = h.access(args.TokenID, args.APIKey)
	if err != nil {
		return "", "", "", err
	}
	if args.RequestID == "" {
		return "", "", "", fmt.Errorf("request_id is required: the uuid of a captured request, as list_requests or get_latest_request gives it")
	}
	if !hooksvc.UUIDPattern.MatchString(args.RequestID) {
		return "", "", "", fmt.Errorf("request_id must be a request UUID such as %s; got %s. list_requests shows the ids of a token's requests", hooksvc.ExampleUUID, hooksvc.Quote(args.RequestID))
	}
	return id, key, hooksvc.RequestID(strings.ToLower(args.RequestID)), nil
}

func adjustRequestArg(s *jsonschema.Schema) {
	adjustTokenArg(s)
	s.Properties["request_id"].Format = "uuid"
}

// given is a call's arguments as written. encoding/json decodes a member
// left out, a null and (for a string) "" alike, to the zero value: a
// handler that must tell them apart (a filter given empty is not a filter
// left out) reads them here.
type given map[string]json.RawMessage

// givenArgs reads the arguments of req, which mcptool has already decoded
// strictly (one JSON object, each name a property, once).
func givenArgs(req *mcp.CallToolRequest) given {
	var g given
	if req != nil && req.Params != nil {
		_ = json.Unmarshal(req.Params.Arguments, &g)
	}
	return g
}

// blank reports an argument given as a string that is empty or only white
// space.
func (g given) blank(name string) bool {
	raw, ok := g[name]
	var s string
	return ok && json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) == ""
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// guarded is t under the rules every hookmcp tool keeps, whatever its own:
//   - null is the value of no argument: no schema allows it, and it would
//     decode as if the argument were left out, which for a filter, a token
//     or a key makes the call reach further than the call says;
//   - token_id and api_key given empty are refused, not read as "use the
//     configured default": an empty token_id would address the default
//     token, an empty api_key send the configured key;
//   - no error shows a key, the configured one or the call's.
func guarded[In, Out any](h *handlers, t mcptool.Tool[In, Out]) mcptool.Tool[In, Out] {
	handle := t.Handle
	t.Handle = func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		var none Out
		g := givenArgs(req)
		for _, name := range slices.Sorted(maps.Keys(g)) {
			if isNull(g[name]) {
				return nil, none, fmt.Errorf("%s is null, which no argument takes: give %s a value, or leave it out; nothing was sent", name, name)
			}
			// A map's values too (headers, query): none of them is null.
			var members map[string]json.RawMessage
			if json.Unmarshal(g[name], &members) == nil {
				for _, member := range slices.Sorted(maps.Keys(members)) {
					if isNull(members[member]) {
						return nil, none, fmt.Errorf("%s holds %s: null, which it does not take: give the member a value, or leave it out; nothing was sent", name, hooksvc.Quote(member))
					}
				}
			}
		}
		if g.blank("token_id") {
			return nil, none, errors.New("token_id is empty: pass a token UUID, or leave token_id out to use the default token (HOOKSVC_TOKEN_ID); nothing was sent")
		}
		if g.blank("api_key") {
			return nil, none, errors.New("api_key is empty: pass the key, or leave api_key out to use HOOKSVC_API_KEY; nothing was sent")
		}
		res, out, err := handle(ctx, req, in)
		if mcptool.IsInputRequired(err) {
			// A question for the user, not a failure: it goes out as it is.
			return nil, none, err
		}
		if err != nil {
			var callKey string
			_ = json.Unmarshal(g["api_key"], &callKey)
			return nil, none, errors.New(h.secrets(callKey).String(err.Error()))
		}
		return res, out, nil
	}
	return t
}

// oneOf is e.Value with a long value quoted short: mcptool.Enum's error
// quotes the value whole, and none of the values it allows is long.
func oneOf(e mcptool.Enum, name, v string) (string, error) {
	const longest = 64
	if len(v) <= longest {
		return e.Value(name, v)
	}
	return "", fmt.Errorf("%s must be one of %s; got %s", name, strings.Join(e, ", "), hooksvc.Quote(v))
}
