package tools

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
)

// TestUpdateTokenKeepsOtherSettings: the API's PUT resets what it is not
// sent, so update_token must read, merge and write back every setting.
func TestUpdateTokenKeepsOtherSettings(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, map[string]any{
		"default_status": 202, "default_content": "kept", "default_content_type": "text/html",
		"timeout": 3, "listen": 2, "expiry": 7200, "request_limit": 50, "cors": true, "alias": "keep-me",
	})
	h.fake.Reset()
	out := h.ok(t, "update_token", map[string]any{"token_id": id, "timeout": 9})
	if diff := cmp.Diff([]string{"GET /token/" + id, "PUT /token/" + id}, h.apiCalls()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	var sent map[string]any
	if err := json.Unmarshal(h.last(t).Body, &sent); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"default_status": 202.0, "default_content": "kept", "default_content_type": "text/html",
		"timeout": 9.0, "listen": 2.0, "expiry": 7200.0, "request_limit": 50.0, "cors": true, "alias": "keep-me", "actions": false,
	}
	if diff := cmp.Diff(want, sent); diff != "" {
		t.Errorf("PUT body (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"timeout"}, out["updated"]); diff != "" {
		t.Errorf("updated (-want +got):\n%s", diff)
	}
	token := h.ok(t, "get_token", map[string]any{"token_id": id})["token"].(map[string]any)
	for name, value := range want {
		if token[name] != value {
			t.Errorf("after the update, %s = %v, want %v", name, token[name], value)
		}
	}
}

func TestUpdateTokenSeveral(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	out := h.ok(t, "update_token", map[string]any{"token_id": id, "cors": true, "default_content": "new", "actions": false})
	if diff := cmp.Diff([]any{"actions", "cors", "default_content"}, out["updated"]); diff != "" {
		t.Errorf("updated (-want +got):\n%s", diff)
	}
	if tok := out["token"].(map[string]any); tok["cors"] != true || tok["default_content"] != "new" {
		t.Errorf("token: %v", tok)
	}
}

func TestUpdateTokenRefused(t *testing.T) {
	h := connect(t, config.Config{})
	h.createToken(t, map[string]any{"alias": "first"})
	id := h.createToken(t, nil)
	contains(t, h.failure(t, "update_token", map[string]any{"token_id": id, "alias": "first"}),
		"alias: The alias has already been taken.")
}
