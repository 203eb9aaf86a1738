package tools

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

// deleteCalls are the three deletes, each of someToken's things.
var deleteCalls = []struct {
	tool string
	args map[string]any
}{
	{"delete_request", map[string]any{"token_id": someToken, "request_id": someRequest}},
	{"delete_requests", map[string]any{"token_id": someToken, "all": true}},
	{"delete_token", map[string]any{"token_id": someToken}},
}

// TestOpenSourceDeleteOfNothing: the open-source server answers a delete
// of a token's requests, when it has none, with 200 {"status":false}: that
// is its answer (nothing to delete), said as 0 deleted, not refused as
// another server's; its 200 {"status":true} to a token's delete is a delete
// done.
func TestOpenSourceDeleteOfNothing(t *testing.T) {
	h := connectFake(t, fakehooksvc.Options{OpenSource: true}, config.Config{})
	id := h.createToken(t, nil)
	res := h.call(t, "delete_requests", map[string]any{"token_id": id, "all": true})
	if res.IsError {
		t.Fatalf("delete_requests of a token without requests: %s", mcptest.Text(res))
	}
	contains(t, mcptest.Text(res), "Token "+id+" had no requests to delete: the API answered that it deleted nothing (0 deleted)")
	if strings.Contains(mcptest.Text(res), "accepted") {
		t.Errorf("a delete of nothing said as done: %s", mcptest.Text(res))
	}
	h.capture(t, id, "POST", "text/plain", "one")
	res = h.call(t, "delete_requests", map[string]any{"token_id": id, "all": true})
	if res.IsError || !strings.Contains(mcptest.Text(res), "Asked the API to delete all requests of token "+id+"; it accepted") {
		t.Fatalf("delete_requests of one request: %s", mcptest.Text(res))
	}
	if out := h.ok(t, "delete_token", map[string]any{"token_id": id}); out["deleted"] != true {
		t.Errorf("delete_token: %v", out)
	}
	if got := h.failure(t, "get_token", map[string]any{"token_id": id}); !strings.Contains(got, "not found or expired (HTTP 410)") {
		t.Errorf("the token after its delete: %s", got)
	}
}

// answering is a stand-in for the API that answers every request with
// status, contentType (none when empty) and body.
func answering(t *testing.T, status int, contentType, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestDeletesTakeTheAPIsAnswers: every answer the real servers give a
// delete is taken: an empty body with any 2xx (the hosted service answers
// 200 where its docs say 204; an empty body labelled text/html is no web
// page), or {"status":…} / {"success":…}. A delete of one thing that the
// API says deleted nothing is not reported done; a delete of all requests
// says 0 deleted.
func TestDeletesTakeTheAPIsAnswers(t *testing.T) {
	h := connect(t, config.Config{})
	done := []struct{ status, contentType, body string }{
		{"204", "", ""},
		{"204", "text/html; charset=UTF-8", ""},
		{"200", "", ""},
		{"200", "text/html; charset=UTF-8", "\n"},
		{"200", "application/json", `{"status":true}`},
		{"200", "application/json", `{"success":true}`},
		{"202", "application/json", `{"status": true, "message": "queued"}`},
	}
	for _, answer := range done {
		t.Run(answer.status+" "+answer.contentType+" "+answer.body, func(t *testing.T) {
			status := map[string]int{"200": 200, "202": 202, "204": 204}[answer.status]
			api := h.reconnect(t, config.Config{APIURL: mustParse(t, answering(t, status, answer.contentType, answer.body)), APIKey: envKey})
			for _, call := range deleteCalls {
				res := api.call(t, call.tool, call.args)
				if res.IsError {
					t.Errorf("%s: %s", call.tool, mcptest.Text(res))
				}
			}
		})
	}
	for _, body := range []string{`{"status":false}`, `{"success":false}`} {
		t.Run(body, func(t *testing.T) {
			api := h.reconnect(t, config.Config{APIURL: mustParse(t, answering(t, 200, "application/json", body)), APIKey: envKey})
			all := api.call(t, "delete_requests", map[string]any{"token_id": someToken, "all": true})
			if all.IsError {
				t.Fatalf("delete_requests: %s", mcptest.Text(all))
			}
			contains(t, mcptest.Text(all), "had no requests to delete", "(0 deleted)")
			contains(t, api.failure(t, "delete_request", map[string]any{"token_id": someToken, "request_id": someRequest}),
				"Deleting request "+someRequest+" of token "+someToken+" failed: the capture API answered HTTP 200 with "+body+": it deleted nothing")
			got := api.failure(t, "delete_token", map[string]any{"token_id": someToken})
			contains(t, got, "Deleting token "+someToken+" failed: the capture API answered HTTP 200 with "+body+": it deleted nothing",
				"get_token shows whether it still exists")
			if strings.Contains(got, "HOOKSVC_API_URL") {
				t.Errorf("the API's own answer called another server's: %s", got)
			}
		})
	}
}

// TestDeletesStillRefuseOthers: what is clearly not the API stays refused,
// empty or not: a capture URL's answer (X-Token-Id) with an empty body, a
// web page, JSON of another shape.
func TestDeletesStillRefuseOthers(t *testing.T) {
	capture := newStranger(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Token-Id", someToken)
		w.WriteHeader(http.StatusOK)
	})
	h := connect(t, config.Config{})
	api := h.reconnect(t, config.Config{APIURL: mustParse(t, capture.URL)})
	for _, call := range deleteCalls {
		contains(t, api.failure(t, call.tool, call.args), "is a capture URL", "Set HOOKSVC_API_URL to the service's base URL")
	}
	for _, answer := range []struct{ contentType, body, says string }{
		{"text/html", "<html><title>Acme</title></html>", "that URL is a web page, not the API"},
		{"application/json", `{"deleted":1}`, "not the capture API's answer"},
		{"application/json", `{"status":"ok"}`, "not the capture API's answer"},
		{"text/plain", "OK", "a text/plain body, not the capture API's JSON"},
	} {
		other := h.reconnect(t, config.Config{APIURL: mustParse(t, answering(t, 200, answer.contentType, answer.body))})
		for _, call := range deleteCalls {
			got := other.failure(t, call.tool, call.args)
			contains(t, got, answer.says, "HOOKSVC_API_URL")
			if strings.Contains(got, "0 deleted") {
				t.Errorf("%s on %s: %s", call.tool, answer.body, got)
			}
		}
	}
}

// TestEmptyHTMLIsNoWebPage: an empty answer labelled text/html is said as
// an empty body where JSON was expected, never as a web page.
func TestEmptyHTMLIsNoWebPage(t *testing.T) {
	h := connect(t, config.Config{})
	api := h.reconnect(t, config.Config{APIURL: mustParse(t, answering(t, 200, "text/html; charset=UTF-8", ""))})
	got := api.failure(t, "get_token", map[string]any{"token_id": someToken})
	contains(t, got, "answered HTTP 200 with an empty body, not the capture API's JSON")
	if strings.Contains(got, "web page") {
		t.Errorf("an empty body called a web page: %s", got)
	}
}

// TestAPIRefusalWith2xx: the API's own error answer, its envelope or
// Laravel's, sent with a 2xx status, is the API refusing: its message is
// said, and the base URL is not blamed.
func TestAPIRefusalWith2xx(t *testing.T) {
	h := connect(t, config.Config{})
	for _, answer := range []struct{ body, says string }{
		{`{"success":false,"error":{"message":"Your plan allows one URL","id":null}}`, "Your plan allows one URL"},
		{`{"message":"The given data was invalid.","errors":{"default_status":["The default status must be between 200 and 599."]}}`,
			"The given data was invalid. (default_status: The default status must be between 200 and 599.)"},
	} {
		api := h.reconnect(t, config.Config{APIURL: mustParse(t, answering(t, 200, "application/json", answer.body)), APIKey: envKey})
		for tool, got := range failAll(t, api) {
			contains(t, got, "failed: the capture API refused it (HTTP 200 with its error answer): "+answer.says)
			if strings.Contains(got, "HOOKSVC_API_URL") || strings.Contains(got, "not the capture API") {
				t.Errorf("%s: the API's refusal blamed on the base URL: %s", tool, got)
			}
			if strings.HasPrefix(tool, "delete_") {
				contains(t, got, "Nothing confirms that anything was deleted")
			}
		}
	}
}

// TestKeylessCheckFailsClosed: when the request without the key that
// checks a base URL with a path gets no answer (here the connection is
// dropped), the call is refused and the key is not sent; the next call
// checks again, and goes on once the check is answered.
func TestKeylessCheckFailsClosed(t *testing.T) {
	fake := fakehooksvc.New(fakehooksvc.Options{APIKeys: []string{envKey}})
	var dropping atomic.Bool
	dropping.Store(true)
	var checks, keys atomic.Int32
	srv := httptest.NewServer(http.StripPrefix("/api", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Api-Key") != "" {
			keys.Add(1)
		} else {
			checks.Add(1)
			if dropping.Load() {
				conn, _, err := http.NewResponseController(w).Hijack()
				if err != nil {
					t.Error(err)
					return
				}
				conn.Close()
				return
			}
		}
		fake.ServeHTTP(w, r)
	})))
	t.Cleanup(srv.Close)
	h := serve(t, fake, srv.URL, config.Config{APIURL: mustParse(t, srv.URL+"/api"), APIKey: envKey})
	for range 2 {
		got := h.failure(t, "create_token", map[string]any{})
		contains(t, got, "Creating a token failed: nothing was sent with the API key. HOOKSVC_API_URL ("+srv.URL+"/api) has a path",
			"that check failed: ", "the next call tries again", "Check HOOKSVC_API_URL (--api-url)")
	}
	if got := keys.Load(); got != 0 {
		t.Fatalf("the key was sent %d times while the check got no answer, want never", got)
	}
	before := checks.Load()
	if before < 2 {
		t.Errorf("%d checks for two calls, want one each at least", before)
	}
	dropping.Store(false)
	h.createToken(t, nil)
	h.createToken(t, nil)
	if got := checks.Load() - before; got != 1 {
		t.Errorf("%d checks once answered, want 1: an answered check is not repeated", got)
	}
	if got := keys.Load(); got != 2 {
		t.Errorf("the key went %d times after the check, want 2 (one per call)", got)
	}
}

// TestKeylessCheckAnsweredTooLarge: a check whose answer is over the size
// bound is no answer either: the call is refused and the key not sent.
func TestKeylessCheckAnsweredTooLarge(t *testing.T) {
	big := newStranger(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		chunk := []byte(strings.Repeat(" ", 1<<20))
		for range 33 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	h := connect(t, config.Config{})
	api := h.reconnect(t, config.Config{APIURL: mustParse(t, big.URL+"/api"), APIKey: envKey})
	got := api.failure(t, "get_token", map[string]any{"token_id": someToken})
	contains(t, got, "Reading token "+someToken+" failed: nothing was sent with the API key", "that check failed: its answer is over the limit of 32 MiB")
	if n := big.keysReceived(); n != 0 {
		t.Errorf("the key was sent %d times, want never", n)
	}
}

// TestFilteredDeleteOfNothing: a filtered delete that the API answers with
// {"status":false} says it deleted nothing, though requests matched just
// before: never that they were deleted.
func TestFilteredDeleteOfNothing(t *testing.T) {
	fake := fakehooksvc.New(fakehooksvc.Options{APIKeys: []string{envKey}})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete && strings.HasSuffix(r.URL.Path, "/request") {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"status":false}`)
			return
		}
		fake.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	h := serve(t, fake, srv.URL, config.Config{})
	id := h.createToken(t, nil)
	h.capture(t, id, "PUT", "text/plain", "one")
	h.capture(t, id, "POST", "text/plain", "two")
	res := h.call(t, "delete_requests", map[string]any{"token_id": id, "query": "method:PUT"})
	if res.IsError {
		t.Fatalf("delete_requests: %s", mcptest.Text(res))
	}
	contains(t, mcptest.Text(res), "The API answered that it deleted nothing (0 deleted) of the requests of token "+id, "though 1 matched just before")
	if strings.Contains(mcptest.Text(res), "accepted") {
		t.Errorf("a delete of nothing said as done: %s", mcptest.Text(res))
	}
}
