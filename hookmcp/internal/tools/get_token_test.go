package tools

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/shared/mcptest"
)

func TestGetToken(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, map[string]any{"default_content": "hi"})
	out := h.ok(t, "get_token", map[string]any{"token_id": id})
	if req := h.last(t); req.Method != http.MethodGet || req.Path != "/token/"+id {
		t.Errorf("sent %s %s", req.Method, req.Path)
	}
	if out["token"].(map[string]any)["default_content"] != "hi" || out["capture_url"] != h.url+"/"+id {
		t.Errorf("result: %v", out)
	}
	for _, hostedOnly := range []string{"email_address", "dns_name", "subdomain_url"} {
		if _, ok := out[hostedOnly]; ok {
			t.Errorf("a self-hosted service's token shows %s: %v", hostedOnly, out[hostedOnly])
		}
	}
}

// toFake sends every request to the fake, whatever its URL says: the hosted
// service cannot be reached from a test.
type toFake struct{ fake *url.URL }

func (rt toFake) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host = rt.fake.Scheme, rt.fake.Host
	return http.DefaultTransport.RoundTrip(req)
}

// TestTokenAddressesHosted: on the hosted service a token also has an email
// address, a DNS name and a subdomain URL.
func TestTokenAddressesHosted(t *testing.T) {
	h := connect(t, config.Config{})
	server := NewServer(Options{
		Config: config.Config{APIURL: mustParse(t, "https://webhook.site"), Timeout: 5 * time.Second},
		HTTP:   &http.Client{Transport: toFake{mustParse(t, h.url)}},
		Logger: slog.New(slog.DiscardHandler), Version: "test",
	})
	session := mcptest.Connect(t, server)
	res := mcptest.Call(t, context.Background(), session, "create_token", nil)
	out := mcptest.Structured(t, res)
	id := out["token"].(map[string]any)["uuid"].(string)
	want := map[string]any{
		"capture_url": "https://webhook.site/" + id, "email_address": id + "@emailhook.site",
		"dns_name": id + ".dnshook.site", "subdomain_url": "https://" + id + ".webhook.site",
	}
	for name, value := range want {
		if out[name] != value {
			t.Errorf("%s = %v, want %v", name, out[name], value)
		}
	}
}

func TestGetTokenDefaultID(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	withDefault := h.reconnect(t, config.Config{TokenID: id})
	withDefault.ok(t, "get_token", nil)
	if got := h.last(t).Path; got != "/token/"+id {
		t.Errorf("path = %s, want the default token's", got)
	}
	// token_id still wins over the default.
	other := h.createToken(t, nil)
	withDefault.ok(t, "get_token", map[string]any{"token_id": other})
	if got := h.last(t).Path; got != "/token/"+other {
		t.Errorf("path = %s, want the token_id given", got)
	}
}

func TestGetTokenUppercaseID(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	upper := []byte(id)
	for i, c := range upper {
		if c >= 'a' && c <= 'f' {
			upper[i] = c - 'a' + 'A'
		}
	}
	h.ok(t, "get_token", map[string]any{"token_id": string(upper)})
	if got := h.last(t).Path; got != "/token/"+id {
		t.Errorf("path = %s, want the lower-case UUID", got)
	}
}

func TestGetTokenErrors(t *testing.T) {
	h := connect(t, config.Config{})
	unknown := "00000000-0000-4000-8000-000000000000"
	contains(t, h.failure(t, "get_token", map[string]any{"token_id": unknown}),
		"token "+unknown+" was not found or expired (HTTP 404)", "create_token")

	deleted := h.createToken(t, nil)
	h.ok(t, "delete_token", map[string]any{"token_id": deleted})
	contains(t, h.failure(t, "get_token", map[string]any{"token_id": deleted}), "not found or expired (HTTP 404)")
}

func TestPrivateToken(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, map[string]any{"api_key": envKey})
	// Without a key the API redirects to a login page: never followed.
	msg := h.failure(t, "get_token", map[string]any{"token_id": id})
	contains(t, msg, "authentication required (the API answered HTTP 302", "Set HOOKSVC_API_KEY in hookmcp's environment to that account's key, or pass api_key")
	for _, r := range h.fake.Received() {
		if r.Path == "/login" {
			t.Error("the redirect to the login page was followed")
		}
	}
	contains(t, h.failure(t, "get_token", map[string]any{"token_id": id, "api_key": callKey}),
		"the api_key passed in this call was refused", "HTTP 401")
	h.ok(t, "get_token", map[string]any{"token_id": id, "api_key": envKey})
}
