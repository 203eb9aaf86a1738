package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
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
		"dns_name": "*." + id + ".dnshook.site", "subdomain_url": "https://" + id + ".webhook.site",
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

// proxyFake serves fake through a loopback proxy that plays what the fake
// does not: editRequest may change a request's body before the fake reads
// it, editAnswer a JSON object the fake answers with before it is sent.
// Either may be nil. It returns the proxy's base URL.
func proxyFake(t *testing.T, fake *fakehooksvc.Server, editRequest func(r *http.Request, body []byte) []byte, editAnswer func(r *http.Request, obj map[string]any)) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if editRequest != nil {
			body = editRequest(r, body)
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		rec := httptest.NewRecorder()
		fake.ServeHTTP(rec, r)
		answer := rec.Body.Bytes()
		var obj map[string]any
		if editAnswer != nil && json.Unmarshal(answer, &obj) == nil {
			editAnswer(r, obj)
			answer, _ = json.Marshal(obj)
		}
		maps.Copy(w.Header(), rec.Header())
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		w.Write(answer)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestTokenResultsAllowlist: the hosted service's token object carries
// account data (team, group, user, password and auth settings, the
// creator's address) and may grow members; create_token, get_token and
// update_token copy only the fields they document, so none of it reaches
// the result, structured or text.
func TestTokenResultsAllowlist(t *testing.T) {
	fake := fakehooksvc.New(fakehooksvc.Options{APIKeys: []string{envKey, callKey}})
	account := map[string]any{
		"team_id": "team-7731", "group_id": 5120.0, "user_id": "user-4410", "password": "hunter2-pass",
		"auth_username": "alice-auth", "auth_password": "auth-pass-8812", "require_auth": "require-auth-3", "ip": "203.0.113.9",
		"user_agent": "agent-6620", "redirect": "redirect-5511", "some_new_field": "unknown-9931",
	}
	url := proxyFake(t, fake, nil, func(r *http.Request, obj map[string]any) {
		if _, ok := obj["uuid"]; ok && !strings.Contains(r.URL.Path, "/request") {
			maps.Copy(obj, account)
		}
	})
	h := serve(t, fake, url, config.Config{})
	id := h.createToken(t, map[string]any{"alias": "allow-listed"})
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"create_token", map[string]any{"default_content": "x"}},
		{"get_token", map[string]any{"token_id": id}},
		{"update_token", map[string]any{"token_id": id, "cors": true}},
	} {
		res := h.call(t, call.tool, call.args)
		if res.IsError {
			t.Fatalf("%s: %s", call.tool, mcptest.Text(res))
		}
		out := mcptest.Structured(t, res)
		token := out["token"].(map[string]any)
		shown := mcptest.Text(res) + fmt.Sprint(out)
		for name, value := range account {
			text, isText := value.(string)
			if _, ok := token[name]; ok || strings.Contains(mcptest.Text(res), `"`+name+`"`) || isText && strings.Contains(shown, text) {
				t.Errorf("%s shows %s: %s", call.tool, name, shown)
			}
		}
		for _, name := range []string{"uuid", "default_status", "default_content", "expires_at", "created_at"} {
			if _, ok := token[name]; !ok {
				t.Errorf("%s leaves out %s: %v", call.tool, name, token)
			}
		}
	}
	if token := h.ok(t, "get_token", map[string]any{"token_id": id})["token"].(map[string]any); token["alias"] != "allow-listed" || token["cors"] != true {
		t.Errorf("the settings are not shown: %v", token)
	}
}

// TestTokenReferences: token_id takes what a user pastes (a capture URL
// with any path, the token's subdomain URL, its email address, its DNS
// name, the UUID in capitals) and addresses the token by its UUID; an
// alias in a capture URL is refused, with the fix, and nothing is sent.
func TestTokenReferences(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	host := mustParse(t, h.url).Host
	for _, ref := range []string{
		h.url + "/" + id + "/github/push?delivery=1",
		"http://" + id + "." + host + "/any/path",
		id + "@emailhook.site",
		"x." + id + ".dnshook.site",
		"*." + strings.ToUpper(id) + ".dnshook.site",
		host + "/" + id,
	} {
		h.fake.Reset()
		h.ok(t, "get_token", map[string]any{"token_id": ref})
		h.ok(t, "get_latest_request", map[string]any{"token_id": ref})
		if diff := cmp.Diff([]string{"GET /token/" + id, "GET /token/" + id + "/requests"}, h.apiCalls()); diff != "" {
			t.Errorf("%s: calls (-want +got):\n%s", ref, diff)
		}
	}
	h.fake.Reset()
	out := h.ok(t, "create_token", map[string]any{"clone_from": h.url + "/" + id})
	if got := string(h.last(t).Body); got != `{"clone_from":"`+id+`"}` || out["token"] == nil {
		t.Errorf("clone_from from a capture URL sent %s", got)
	}
	h.fake.Reset()
	contains(t, h.failure(t, "delete_token", map[string]any{"token_id": h.url + "/my-hook/x"}),
		`got "`+h.url+`/my-hook/x". The API does not accept a token's alias in its place: pass the token's UUID`)
	if got := h.fake.Received(); len(got) != 0 {
		t.Errorf("an alias sent %v", got)
	}
}

// TestPastedKeyNotShown: a token_id or file that holds a key (the
// configured one or the call's) is refused without showing it.
func TestPastedKeyNotShown(t *testing.T) {
	h := connect(t, config.Config{APIKey: envKey})
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "x")
	rid := h.ok(t, "get_latest_request", map[string]any{"token_id": id})["request_id"].(string)
	var texts []string
	for _, args := range []map[string]any{
		{"token_id": h.url + "/" + envKey},
		{"token_id": callKey, "api_key": callKey},
		{"token_id": "https://other.example/" + callKey, "api_key": callKey},
		{"token_id": id, "request_id": rid, "file": envKey},
		{"token_id": id, "request_id": rid, "file": callKey + " x", "api_key": callKey},
	} {
		tool := "get_token"
		if args["request_id"] != nil {
			tool = "get_request"
		}
		texts = append(texts, h.failure(t, tool, args))
	}
	all := strings.Join(texts, "\n")
	for _, key := range []string{envKey, callKey} {
		if strings.Contains(all, key) {
			t.Errorf("the key %s shows in an error:\n%s", key, all)
		}
	}
	contains(t, all, "[REDACTED]")
}
