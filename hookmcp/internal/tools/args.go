package tools

import (
	"fmt"

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

func checkUUID(name, v string) error {
	if !hooksvc.UUIDPattern.MatchString(v) {
		return fmt.Errorf("%s must be a token UUID such as %s; got %q. The API does not accept a token's alias in its place: use the uuid that create_token returned (the last part of the capture URL)", name, hooksvc.ExampleUUID, v)
	}
	return nil
}

// Schema adjustments: the bounds an assistant should see.

func adjustTokenArg(s *jsonschema.Schema) {
	s.Properties["token_id"].Pattern = hooksvc.UUIDPattern.String()
}

// adjustSettings shows the API's rules of the token settings.
func adjustSettings(s *jsonschema.Schema) {
	for name, b := range hooksvc.SettingBounds {
		p := s.Properties[name]
		p.Minimum, p.Maximum = ptr(float64(b.Min)), ptr(float64(b.Max))
	}
	s.Properties["alias"].Pattern = hooksvc.AliasPattern.String()
}

func adjustDate(s *jsonschema.Schema, name string) {
	s.Properties[name].Pattern = hooksvc.DatePattern.String()
}
