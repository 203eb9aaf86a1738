package tools

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestUpdateTokenKeepsOtherSettings: the API's PUT resets what it is not
// sent, so update_token must read, merge and write back every setting.
func TestUpdateTokenKeepsOtherSettings(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, map[string]any{
		"default_status": 202, "default_content": "kept", "default_content_type": "text/html",
		"timeout": 3, "listen": 2, "expiry": 7200, "request_limit": 50, "cors": true, "alias": "keep-me",
	})
	var read map[string]any
	resp, err := http.Get(h.url + "/token/" + id)
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&read)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("the token as read: %v", err)
	}
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
	for name, value := range want {
		if sent[name] != value {
			t.Errorf("PUT body: %s = %v, want %v", name, sent[name], value)
		}
	}
	// The members hookmcp does not know go back as they were; those the
	// API writes itself do not.
	for name, value := range read {
		switch {
		case slices.Contains(readOnlyTokenFields, name):
			if _, ok := sent[name]; ok {
				t.Errorf("PUT body: read-only %s was sent", name)
			}
		case want[name] == nil && !cmp.Equal(sent[name], value):
			t.Errorf("PUT body: %s = %v, want %v as read", name, sent[name], value)
		}
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

// TestUpdateTokenKeepsUnknownSettings: a setting update_token does not name
// (description) survives, and a new token's null settings stay null.
func TestUpdateTokenKeepsUnknownSettings(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	req, _ := http.NewRequest("PUT", h.url+"/token/"+id, strings.NewReader(`{"description":"CI hook for the billing service"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	out := h.ok(t, "update_token", map[string]any{"token_id": id, "cors": true})
	var sent map[string]any
	if err := json.Unmarshal(h.last(t).Body, &sent); err != nil {
		t.Fatal(err)
	}
	for _, readOnly := range []string{"uuid", "created_at", "updated_at", "expires_at", "latest_request_id", "premium", "ip"} {
		if _, ok := sent[readOnly]; ok {
			t.Errorf("the PUT sent the read-only %s back", readOnly)
		}
	}
	if _, ok := sent["expiry"]; !ok || sent["expiry"] != nil || sent["request_limit"] != nil {
		t.Errorf("null settings were not sent back as null: expiry %v, request_limit %v", sent["expiry"], sent["request_limit"])
	}
	token := out["token"].(map[string]any)
	if token["description"] != "CI hook for the billing service" || token["cors"] != true || token["expiry"] != nil || token["request_limit"] != nil {
		t.Errorf("after the update: %v", token)
	}
	if out["not_applied"] != nil || out["note"] != nil {
		t.Errorf("a fully applied update reports %v: %v", out["not_applied"], out["note"])
	}
}

// TestUpdateTokenClearsExpiry: expiry 0 sends null.
func TestUpdateTokenClearsExpiry(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, map[string]any{"expiry": 3600})
	out := h.ok(t, "update_token", map[string]any{"token_id": id, "expiry": 0})
	if !strings.Contains(string(h.last(t).Body), `"expiry":null`) || out["token"].(map[string]any)["expiry"] != nil {
		t.Errorf("sent %s, got %v", h.last(t).Body, out["token"])
	}
	if diff := cmp.Diff([]any{"expiry"}, out["updated"]); diff != "" {
		t.Errorf("updated (-want +got):\n%s", diff)
	}
}

// TestUpdateTokenReportsIgnoredSettings: the open-source server accepts a
// PUT and ignores cors and listen; the result says so.
func TestUpdateTokenReportsIgnoredSettings(t *testing.T) {
	h := connectFake(t, fakehooksvc.Options{OpenSource: true}, config.Config{})
	id := h.createToken(t, nil)
	res := h.call(t, "update_token", map[string]any{"token_id": id, "cors": true, "listen": 5, "default_status": 201})
	if res.IsError {
		t.Fatal(mcptest.Text(res))
	}
	out := mcptest.Structured(t, res)
	if diff := cmp.Diff([]any{"default_status"}, out["updated"]); diff != "" {
		t.Errorf("updated (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"cors", "listen"}, out["not_applied"]); diff != "" {
		t.Errorf("not_applied (-want +got):\n%s", diff)
	}
	contains(t, out["note"].(string), "did not apply cors, listen", "cors false, listen 0", "open-source webhook.site ignores")
}
