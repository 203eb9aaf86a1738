package tools

import (
	"strings"
	"testing"

	"github.com/mcpforge/servers/hookmcp/internal/config"
)

// TestTestRequestNamesNeverShowASecret: send_test_request refuses a header
// whose name is a whole header line, a query parameter whose name is too
// long, or a header or query parameter whose name is the API key, without
// showing the name: it may hold a secret.
func TestTestRequestNamesNeverShowASecret(t *testing.T) {
	h := connect(t, config.Config{APIKey: envKey})
	id := h.createToken(t, nil)
	for _, tt := range []struct {
		args   map[string]any
		want   string
		secret string
	}{
		{map[string]any{"headers": map[string]any{"Authorization: Bearer SECRETV20": ""}},
			"is not a valid HTTP header name: it holds a colon at character 14", "SECRETV20"},
		{map[string]any{"headers": map[string]any{"ghp_SECRETV20": "x\r\ny"}},
			"header <a 13-character name, not shown: it may hold a secret>: a value is one line", "SECRETV20"},
		{map[string]any{"headers": map[string]any{envKey: "x"}}, "the name of a header holds the API key", envKey},
		{map[string]any{"query": map[string]any{envKey: "1"}}, "the name of a query parameter holds the API key", envKey},
		{map[string]any{"query": map[string]any{"token=SECRETV20" + strings.Repeat("x", maxTestValueBytes): "1"}},
			"query parameter <a 8015-character name, not shown: it may hold a secret>: a name must not be empty", "SECRETV20"},
	} {
		h.fake.Reset()
		tt.args["token_id"] = id
		text := h.failure(t, "send_test_request", tt.args)
		contains(t, text, tt.want)
		if strings.Contains(text+h.logs.String(), tt.secret) {
			t.Errorf("%v: the secret shows: %s", tt.args, text)
		}
		if sent := h.fake.Received(); len(sent) != 0 {
			t.Errorf("%v: sent %v", tt.args, sent)
		}
	}
}
