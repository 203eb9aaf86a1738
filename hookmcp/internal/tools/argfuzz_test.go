package tools

import (
	"testing"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestArgumentFuzz calls every tool with arguments drawn from its own input
// schema, as a client that trusts the schema would: no value the schema
// allows is refused for a rule the schema states differently, and every
// result fits its output schema and has all of it in its text. The token
// most calls use exists and has requests, so that calls reach the rules;
// the destructive tools get a token of their own, or none that exists.
func TestArgumentFuzz(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "application/json", `{"first":true}`)
	first := h.ok(t, "get_latest_request", map[string]any{"token_id": id})["request_id"].(string)
	h.capture(t, id, "PUT", "text/plain", "second")
	victim := h.createToken(t, nil)
	mcptest.ArgumentFuzz(t, h.session, 23, 12, func(tool string) map[string]any {
		switch tool {
		case "delete_token", "delete_request":
			return nil // a random UUID: not found
		case "delete_requests":
			return map[string]any{"token_id": victim}
		case "wait_for_request":
			// A request newer than first is there: the wait returns at once.
			return map[string]any{"token_id": id, "after_request_id": first, "query": "", "timeout_seconds": 1}
		}
		return map[string]any{"token_id": id}
	})
}
