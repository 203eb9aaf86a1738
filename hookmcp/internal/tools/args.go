package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
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

func checkUUID(name, v string) error {
	if !hooksvc.UUIDPattern.MatchString(v) {
		return fmt.Errorf("%s must be a token UUID such as %s; got %q. The API does not accept a token's alias in its place: use the uuid that create_token returned (the last part of the capture URL)", name, hooksvc.ExampleUUID, v)
	}
	return nil
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
		return "", "", "", fmt.Errorf("request_id must be a request UUID such as %s; got %q. list_requests shows the ids of a token's requests", hooksvc.ExampleUUID, truncate(args.RequestID, 100))
	}
	return id, key, hooksvc.RequestID(strings.ToLower(args.RequestID)), nil
}

func adjustRequestArg(s *jsonschema.Schema) {
	adjustTokenArg(s)
	s.Properties["request_id"].Format = "uuid"
}
