package tools

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestOddAnswers: API answers of odd types, nulls, huge numbers and PHP's
// [] for {} never panic any tool, and a token tool never passes on a
// token's password or auth settings, nor a listing an account field.
func TestOddAnswers(t *testing.T) {
	h := connect(t, config.Config{})
	const u = `"9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d"`
	req := func(extra string) string {
		return `{"uuid":` + u + `,"token_id":` + u + `,"type":"web","method":"POST","sorting":1` + extra + `}`
	}
	page := func(item string) string {
		return `{"data":[` + item + `],"total":1e400,"per_page":-1,"current_page":"x","is_last_page":null,"from":[],"to":{}}`
	}
	bodies := []string{
		req(`,"files":[],"request":[],"headers":[],"query":[],"content":null`),
		req(`,"files":{"f":null,"g":[null,1,"x",{"id":{}}]},"headers":{"a":null,"b":[1,{}]},"content":123`),
		req(`,"sorting":1e300,"size":"big","created_at":[],"type":{"x":1},"method":null`),
		req(`,"sorting":-9223372036854775809,"destinations":{"a":1},"sender":[],"text_content":{},"html_content":5,"type":"email"`),
		req(`,"type":"dns","hostname":null,"method":[],"url":{}`),
		`{"uuid":[],"listen":"3","password":"p","team_id":1}`, `[]`, `null`, `"x"`, `{}`, `1e999`,
		`{"uuid":` + u + `,"listen":{},"password":"hunter2","auth":{"u":"x"},"team_id":7}`,
	}
	tools := []struct {
		tool string
		args map[string]any
	}{
		{"get_request", map[string]any{"token_id": someToken, "request_id": someToken}},
		{"get_request", map[string]any{"token_id": someToken, "request_id": someToken, "file": "f"}},
		{"get_latest_request", map[string]any{"token_id": someToken}},
		{"list_requests", map[string]any{"token_id": someToken}},
		{"get_token", map[string]any{"token_id": someToken}},
		{"update_token", map[string]any{"token_id": someToken, "cors": true}},
		{"create_token", map[string]any{"listen": 3}},
		{"wait_for_request", map[string]any{"token_id": someToken, "timeout_seconds": 1}},
	}
	for _, b := range append(bodies, func() []string {
		var out []string
		for _, r := range bodies[:5] {
			out = append(out, page(r))
		}
		return out
	}()...) {
		// A raw body is answered as text: the same JSON as the body would
		// hold paths of the result's own (size), which the session's
		// check of text against structured content reads as the result's.
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/raw") {
				io.WriteString(w, "raw body")
				return
			}
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, b)
		}))
		t.Cleanup(srv.Close)
		api := h.reconnect(t, config.Config{APIURL: mustParse(t, srv.URL), APIKey: envKey})
		for _, tc := range tools {
			res := api.call(t, tc.tool, tc.args)
			text := mcptest.Text(res)
			if strings.Contains(strings.ToLower(text), "panic") || strings.Contains(strings.ToLower(api.logs.String()), "panic") {
				t.Errorf("%s panicked on %.120s: %.300s", tc.tool, b, text)
			}
			if !res.IsError && tc.tool == "list_requests" && strings.Contains(text, "team_id") {
				t.Errorf("list_requests passed on team_id: %.300s", text)
			}
			for _, s := range []string{"hunter2", `"auth"`} {
				if !res.IsError && strings.Contains(tc.tool, "token") && strings.Contains(text, s) {
					t.Errorf("%s passed on %s: %.300s", tc.tool, s, text)
				}
			}
		}
	}
}
