package tools

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
)

func TestCreateToken(t *testing.T) {
	h := connect(t, config.Config{})
	out := h.ok(t, "create_token", map[string]any{
		"default_status": 201, "default_content": `{"ok":true}`, "default_content_type": "application/json",
		"timeout": 2, "expiry": 3600, "cors": true, "alias": "ci-hook",
	})
	req := h.last(t)
	if req.Method != http.MethodPost || req.Path != "/token" {
		t.Errorf("sent %s %s, want POST /token", req.Method, req.Path)
	}
	// Only the arguments given, whole numbers as integers.
	var body map[string]any
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatalf("body %s: %v", req.Body, err)
	}
	want := map[string]any{
		"default_status": 201.0, "default_content": `{"ok":true}`, "default_content_type": "application/json",
		"timeout": 2.0, "expiry": 3600.0, "cors": true, "alias": "ci-hook",
	}
	if diff := cmp.Diff(want, body); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
	contains(t, string(req.Body), `"expiry":3600,`, `"timeout":2}`)
	if got := req.Header.Get("Accept"); got != "application/json" {
		t.Errorf("Accept = %q", got)
	}
	if got := req.Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type = %q", got)
	}
	if _, sent := req.Header["Api-Key"]; sent {
		t.Error("an Api-Key header was sent with no key configured")
	}
	token := out["token"].(map[string]any)
	id := token["uuid"].(string)
	if out["capture_url"] != h.url+"/"+id || token["default_status"] != 201.0 || token["alias"] != "ci-hook" {
		t.Errorf("result: %v", out)
	}
	// The capture URL captures.
	h.capture(t, id, "POST", "text/plain", "hello")
	page := h.ok(t, "list_requests", map[string]any{"token_id": id})
	if page["total"] != 1.0 {
		t.Errorf("after one capture, total = %v", page["total"])
	}
}

func TestCreateTokenEmpty(t *testing.T) {
	h := connect(t, config.Config{})
	out := h.ok(t, "create_token", nil)
	if body := string(h.last(t).Body); body != "{}" {
		t.Errorf("body = %s, want {}", body)
	}
	if out["token"].(map[string]any)["default_status"] != 200.0 {
		t.Errorf("API default not applied: %v", out)
	}
}

func TestCreateTokenCloneFrom(t *testing.T) {
	h := connect(t, config.Config{})
	source := h.createToken(t, map[string]any{"default_content": "from the source", "alias": "source-hook"})
	for _, ref := range []string{source, "source-hook"} {
		out := h.ok(t, "create_token", map[string]any{"clone_from": ref, "timeout": 1})
		if got := string(h.last(t).Body); got != `{"clone_from":"`+ref+`","timeout":1}` {
			t.Errorf("body = %s", got)
		}
		if tok := out["token"].(map[string]any); tok["default_content"] != "from the source" || tok["timeout"] != 1.0 {
			t.Errorf("clone of %s: %v", ref, tok)
		}
	}
}

func TestCreateTokenWithKey(t *testing.T) {
	h := connect(t, config.Config{APIKey: envKey})
	h.ok(t, "create_token", nil)
	if got := h.last(t).Header.Get("Api-Key"); got != envKey {
		t.Errorf("Api-Key = %q, want the configured key", got)
	}
	h.ok(t, "create_token", map[string]any{"api_key": callKey})
	if got := h.last(t).Header.Get("Api-Key"); got != callKey {
		t.Errorf("Api-Key = %q, want the call's key", got)
	}
}

func TestCreateTokenRefused(t *testing.T) {
	h := connect(t, config.Config{})
	h.createToken(t, map[string]any{"alias": "taken"})
	msg := h.failure(t, "create_token", map[string]any{"alias": "taken"})
	contains(t, msg, "the API refused the values (HTTP 422): alias: The alias has already been taken.")
	msg = h.failure(t, "create_token", map[string]any{"clone_from": "no-such-alias"})
	contains(t, msg, "clone_from: The selected clone from is invalid.")
}

// TestCreateTokenRefusedLaravel: the hosted service's 422 comes in
// Laravel's form; the error names the field and its rule as for the flat
// form.
func TestCreateTokenRefusedLaravel(t *testing.T) {
	h := connect(t, config.Config{})
	h.fake.Inject(fakehooksvc.Fault{Method: "POST", Status: 422,
		Body: `{"message":"The given data was invalid.","errors":{"default_status":["The default status must be between 200 and 599."]}}`})
	contains(t, h.failure(t, "create_token", map[string]any{"default_status": 201}),
		"Creating a token failed: the API refused the values (HTTP 422): default_status: The default status must be between 200 and 599.")
}

// TestCreateTokenListenHosted: the hosted service ignores listen when a
// token is created, so create_token sets it with an update (the whole token
// read and written back, as update_token does) and reads it back; when the
// update is ignored too, the result says listen was not applied.
func TestCreateTokenListenHosted(t *testing.T) {
	fake := fakehooksvc.New(fakehooksvc.Options{APIKeys: []string{envKey, callKey}})
	var ignorePut atomic.Bool
	url := proxyFake(t, fake, func(r *http.Request, body []byte) []byte {
		var fields map[string]any
		if (r.Method == http.MethodPost && r.URL.Path == "/token" || r.Method == http.MethodPut && ignorePut.Load()) && json.Unmarshal(body, &fields) == nil {
			delete(fields, "listen")
			body, _ = json.Marshal(fields)
		}
		return body
	}, nil)
	h := serve(t, fake, url, config.Config{})
	out := h.ok(t, "create_token", map[string]any{"listen": 5, "default_status": 201})
	token := out["token"].(map[string]any)
	id := token["uuid"].(string)
	if token["listen"] != 5.0 || token["default_status"] != 201.0 || out["not_applied"] != nil || out["note"] != nil {
		t.Errorf("result: %v", out)
	}
	if diff := cmp.Diff([]string{"POST /token", "GET /token/" + id, "PUT /token/" + id}, h.apiCalls()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if got := h.ok(t, "get_token", map[string]any{"token_id": id})["token"].(map[string]any)["listen"]; got != 5.0 {
		t.Errorf("listen read back = %v", got)
	}

	ignorePut.Store(true)
	out = h.ok(t, "create_token", map[string]any{"listen": 3})
	if diff := cmp.Diff([]any{"listen"}, out["not_applied"]); diff != "" {
		t.Errorf("not_applied (-want +got):\n%s", diff)
	}
	contains(t, fmt.Sprint(out["note"]), "The token was created, but the service did not apply listen (it shows listen 0)")

	// A service that applies listen on create (the open-source server)
	// gets no update.
	h = connectFake(t, fakehooksvc.Options{OpenSource: true}, config.Config{})
	h.ok(t, "create_token", map[string]any{"listen": 2})
	if diff := cmp.Diff([]string{"POST /token"}, h.apiCalls()); diff != "" {
		t.Errorf("calls where create applies listen (-want +got):\n%s", diff)
	}
}
