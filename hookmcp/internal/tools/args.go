package tools

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
)

// The arguments shared by several tools. Every tool takes api_key; every
// tool but create_token takes token_id.

// KeyArg is the per-call API key.
type KeyArg struct {
	APIKey string `json:"api_key,omitempty" jsonschema:"API key for this call; overrides HOOKSVC_API_KEY. Needed for private tokens and account features"`
}

// TokenArg addresses a token.
type TokenArg struct {
	TokenID string `json:"token_id,omitempty" jsonschema:"token UUID (not an alias: the API takes UUIDs only); defaults to HOOKSVC_TOKEN_ID"`
	KeyArg
}

// TokenSettings are a token's configurable fields, shared by create_token and
// update_token. A nil field was not given.
type TokenSettings struct {
	DefaultStatus      *float64 `json:"default_status,omitempty" jsonschema:"HTTP status the capture URL answers with, 200 to 599 (API default 200)"`
	DefaultContent     *string  `json:"default_content,omitempty" jsonschema:"body the capture URL answers with (API default empty)"`
	DefaultContentType *string  `json:"default_content_type,omitempty" jsonschema:"Content-Type of that answer, e.g. application/json (API default text/plain)"`
	Timeout            *float64 `json:"timeout,omitempty" jsonschema:"seconds the capture URL waits before answering, 0 to 30 (API default 0)"`
	Listen             *float64 `json:"listen,omitempty" jsonschema:"seconds to wait for a response from the Set Response endpoint, 0 to 10 (API default 0)"`
	Expiry             *float64 `json:"expiry,omitempty" jsonschema:"seconds until the token expires, 1 to 604800 (API default 604800, one week)"`
	RequestLimit       *float64 `json:"request_limit,omitempty" jsonschema:"how many requests the token keeps, oldest dropped first, 0 to 10000; 0 keeps none (API default 10000)"`
	Cors               *bool    `json:"cors,omitempty" jsonschema:"add CORS headers to the capture URL's answers"`
	Alias              *string  `json:"alias,omitempty" jsonschema:"custom alias of 3 to 32 letters, digits, _ or -"`
	Actions            *bool    `json:"actions,omitempty" jsonschema:"enable Custom Actions (an account feature)"`
}

// Bounds of the arguments, as the API enforces them.
var (
	settingBounds = map[string][2]float64{
		"default_status": {200, 599},
		"timeout":        {0, 30},
		"listen":         {0, 10},
		"expiry":         {1, 604800},
		"request_limit":  {0, 10000},
	}
	aliasPattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{3,32}$`)
	// cloneFromPattern is a token UUID or an alias.
	cloneFromPattern = regexp.MustCompile(`^(` + strings.Trim(hooksvc.UUIDPattern.String(), "^$") + `|` + strings.Trim(aliasPattern.String(), "^$") + `)$`)
	// datePattern is the API's date format, yyyy-MM-dd HH:mm:ss.
	datePattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$`)
)

const (
	dateLayout = "2006-01-02 15:04:05"
	exampleID  = "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d"
)

// fields returns the settings that were given, by their API names, with
// whole numbers as integers. It checks every bound first.
func (s TokenSettings) fields() (map[string]any, error) {
	out := map[string]any{}
	numbers := map[string]*float64{
		"default_status": s.DefaultStatus, "timeout": s.Timeout, "listen": s.Listen,
		"expiry": s.Expiry, "request_limit": s.RequestLimit,
	}
	for _, name := range hooksvc.Settings {
		if v, ok := numbers[name]; ok && v != nil {
			n, err := wholeNumber(name, *v, settingBounds[name][0], settingBounds[name][1])
			if err != nil {
				return nil, err
			}
			out[name] = n
		}
	}
	if s.Alias != nil {
		if err := checkAlias("alias", *s.Alias); err != nil {
			return nil, err
		}
		out["alias"] = *s.Alias
	}
	for name, v := range map[string]*string{"default_content": s.DefaultContent, "default_content_type": s.DefaultContentType} {
		if v != nil {
			out[name] = *v
		}
	}
	for name, v := range map[string]*bool{"cors": s.Cors, "actions": s.Actions} {
		if v != nil {
			out[name] = *v
		}
	}
	return out, nil
}

// wholeNumber checks that v is an integer within [min, max].
func wholeNumber(name string, v, min, max float64) (int, error) {
	if v != math.Trunc(v) || v < min || v > max {
		return 0, fmt.Errorf("%s must be a whole number from %g to %g; got %g", name, min, max, v)
	}
	return int(v), nil
}

func checkAlias(name, v string) error {
	if !aliasPattern.MatchString(v) {
		return fmt.Errorf("%s must be 3 to 32 letters, digits, _ or - (pattern %s); got %q", name, aliasPattern, v)
	}
	return nil
}

func checkUUID(name, v string) error {
	if !hooksvc.UUIDPattern.MatchString(v) {
		return fmt.Errorf("%s must be a token UUID such as %s; got %q. The API does not accept a token's alias in its place: use the uuid that create_token returned (the last part of the capture URL)", name, exampleID, v)
	}
	return nil
}

// parseDate checks a date argument; an empty one is absent.
func parseDate(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(dateLayout, v)
	if !datePattern.MatchString(v) || err != nil {
		return time.Time{}, fmt.Errorf("%s must be a UTC date and time written yyyy-MM-dd HH:mm:ss, such as 2026-11-21 14:30:00; got %q", name, v)
	}
	return t, nil
}

// Schema adjustments: the bounds an assistant should see.

func boundProperty(s *jsonschema.Schema, name string, min, max float64) {
	p := s.Properties[name]
	p.Minimum, p.Maximum = ptr(min), ptr(max)
}

func adjustTokenArg(s *jsonschema.Schema) {
	s.Properties["token_id"].Pattern = hooksvc.UUIDPattern.String()
}

func adjustSettings(s *jsonschema.Schema) {
	for name, b := range settingBounds {
		boundProperty(s, name, b[0], b[1])
	}
	s.Properties["alias"].Pattern = aliasPattern.String()
}

func adjustDate(s *jsonschema.Schema, name string) {
	p := s.Properties[name]
	p.Pattern = datePattern.String()
}
