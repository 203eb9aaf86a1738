package tools

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
)

const (
	someToken   = "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d"
	someRequest = "1b4e28ba-2fa1-4d3b-a3f5-ef19b8f2c1a0"
)

// stranger is a server that is not the capture API: it answers every
// request with answer, and counts the requests that carried an API key.
type stranger struct {
	*httptest.Server
	mu   sync.Mutex
	keys int
}

func newStranger(t *testing.T, answer http.HandlerFunc) *stranger {
	t.Helper()
	s := &stranger{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Api-Key") != "" {
			s.mu.Lock()
			s.keys++
			s.mu.Unlock()
		}
		answer(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *stranger) keysReceived() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys
}

// everyTokenCall is a call of each tool that reaches the API for a token.
var everyTokenCall = []struct {
	tool string
	args map[string]any
}{
	{"get_token", map[string]any{"token_id": someToken}},
	{"update_token", map[string]any{"token_id": someToken, "default_status": 201}},
	{"list_requests", map[string]any{"token_id": someToken}},
	{"get_latest_request", map[string]any{"token_id": someToken}},
	{"get_request", map[string]any{"token_id": someToken, "request_id": someRequest}},
	{"wait_for_request", map[string]any{"token_id": someToken, "timeout_seconds": 1}},
	{"delete_request", map[string]any{"token_id": someToken, "request_id": someRequest}},
	{"delete_requests", map[string]any{"token_id": someToken, "all": true}},
	{"delete_token", map[string]any{"token_id": someToken}},
}

// failAll calls every token tool against h and returns each error text,
// failing the test for a call that succeeds: none may make up a result or
// report a deletion on the word of a server that is not the API.
func failAll(t *testing.T, h *harness) map[string]string {
	t.Helper()
	texts := map[string]string{}
	for _, call := range everyTokenCall {
		res := h.call(t, call.tool, call.args)
		if !res.IsError {
			t.Errorf("%s succeeded against a server that is not the API: %s", call.tool, text(res))
			continue
		}
		texts[call.tool] = text(res)
		if strings.Contains(texts[call.tool], envKey) {
			t.Errorf("%s: the key shows: %s", call.tool, texts[call.tool])
		}
	}
	return texts
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// TestJSONCaptureURLIsNotTheAPI: an alias-form capture URL (which the
// start-up check cannot tell by a UUID) whose token answers JSON marks its
// answer with X-Token-Id: no call takes it for the API, and the key never
// goes there (a request without it is sent first, and is captured).
func TestJSONCaptureURLIsNotTheAPI(t *testing.T) {
	capture := newStranger(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Token-Id", someRequest)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`)
	})
	h := connect(t, config.Config{})
	wrong := h.reconnect(t, config.Config{APIURL: mustParse(t, capture.URL+"/my-alias"), APIKey: envKey})
	for tool, text := range failAll(t, wrong) {
		contains(t, text, "nothing was sent: HOOKSVC_API_URL ("+capture.URL+"/my-alias) is a capture URL of token "+someRequest,
			"Set HOOKSVC_API_URL to the service's base URL, "+capture.URL+", when starting hookmcp")
		if strings.Contains(text, "has not captured") || strings.Contains(text, "deleted") {
			t.Errorf("%s: %s", tool, text)
		}
	}
	if got := capture.keysReceived(); got != 0 {
		t.Errorf("the capture URL received the key %d times, want never", got)
	}
	// Without a key nothing is checked first: the first call is captured,
	// and says so.
	keyless := h.reconnect(t, config.Config{APIURL: mustParse(t, capture.URL+"/my-alias")})
	for tool, text := range failAll(t, keyless) {
		contains(t, text, "is a capture URL", capture.URL+", when starting hookmcp")
		if strings.Contains(text, "has not captured") || strings.Contains(text, "deleted") {
			t.Errorf("%s: %s", tool, text)
		}
	}
}

// TestForeignJSONIsNotTheAPI: JSON that lacks what the API's answers hold
// (a listing's data of requests, an object's uuid, a delete's status) is
// refused as not the API's, and no delete is reported done on its word.
func TestForeignJSONIsNotTheAPI(t *testing.T) {
	for _, body := range []string{`{"ok":true}`, `{"data":[1,2],"total":2}`, `{"status":"fine","uuid":""}`} {
		t.Run(body, func(t *testing.T) {
			other := newStranger(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, body)
			})
			h := connect(t, config.Config{})
			wrong := h.reconnect(t, config.Config{APIURL: mustParse(t, other.URL), APIKey: envKey})
			for tool, text := range failAll(t, wrong) {
				contains(t, text, other.URL+" answered HTTP 200 with ", "not the capture API's answer",
					"Check that HOOKSVC_API_URL (--api-url) is the API's base URL")
				if strings.HasPrefix(tool, "delete_") {
					contains(t, text, "Nothing confirms that anything was deleted")
				}
			}
		})
	}
}

// TestWebPageDeletesAreNotDone: a base URL that answers every method with
// a web page gets no delete reported done.
func TestWebPageDeletesAreNotDone(t *testing.T) {
	site := newStranger(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!DOCTYPE html><html><head><title>Acme Home</title></head></html>")
	})
	h := connect(t, config.Config{})
	page := h.reconnect(t, config.Config{APIURL: mustParse(t, site.URL), APIKey: envKey})
	for tool, text := range failAll(t, page) {
		contains(t, text, site.URL+` answered HTTP 200 with a web page (HTML) titled "Acme Home", not the capture API's JSON: that URL is a web page, not the API`)
		if strings.HasPrefix(tool, "delete_") {
			contains(t, text, "Nothing was deleted on its word")
		}
	}
}

// TestRedirectingBaseURL: a base URL that redirects (http to https, a
// moved host) is said to redirect, with where to and the URL to use; only a
// redirect to the service's login page means a key is missing or refused.
// The Location's query and user info, which may hold a credential, never
// show.
func TestRedirectingBaseURL(t *testing.T) {
	moved := newStranger(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://user:pw@hooks.example"+r.URL.Path+"?sig=s3cret", http.StatusMovedPermanently)
	})
	h := connect(t, config.Config{})
	for _, key := range []string{envKey, ""} {
		wrong := h.reconnect(t, config.Config{APIURL: mustParse(t, moved.URL), APIKey: key})
		for tool, text := range failAll(t, wrong) {
			contains(t, text, moved.URL+" redirects (HTTP 301) to https://hooks.example/token/"+someToken,
				"Set HOOKSVC_API_URL (--api-url) to https://hooks.example when starting hookmcp")
			for _, never := range []string{"HOOKSVC_API_KEY", "login", "s3cret", "pw@"} {
				if strings.Contains(text, never) {
					t.Errorf("%s (key %q): %q shows in %s", tool, key, never, text)
				}
			}
		}
	}
}

// TestForeign404IsNotAMissingToken: a wrong base path whose server answers
// 404 in plain text or in JSON that is not the API's error envelope is said
// to be the wrong base URL, never a missing token, by tools and by the
// requests resource.
func TestForeign404IsNotAMissingToken(t *testing.T) {
	for _, answer := range []struct{ contentType, body string }{
		{"text/plain; charset=utf-8", "404 page not found"},
		{"application/json", `{"detail":"Not Found"}`},
	} {
		t.Run(answer.contentType, func(t *testing.T) {
			other := newStranger(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", answer.contentType)
				w.WriteHeader(http.StatusNotFound)
				io.WriteString(w, answer.body)
			})
			h := connect(t, config.Config{})
			wrong := h.reconnect(t, config.Config{APIURL: mustParse(t, other.URL+"/v1")})
			for tool, text := range failAll(t, wrong) {
				contains(t, text, other.URL+"/v1 answered HTTP 404 to ", "nothing is served there, so "+other.URL+"/v1 is not the capture API's base URL")
				if strings.Contains(text, "not found or expired") {
					t.Errorf("%s: %s", tool, text)
				}
			}
			_, err := wrong.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: requestsURI(someToken)})
			var rpcErr *jsonrpc.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code == -32002 || !strings.Contains(rpcErr.Message, "is not the capture API's base URL") {
				t.Errorf("resource: %v", err)
			}
		})
	}
}

// TestWaitAgainstHangingAPI: wait_for_request against an API that does not
// answer ends at its own timeout_seconds saying so, not as a connection
// problem: the connection was fine.
func TestWaitAgainstHangingAPI(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(release) })
	h := connect(t, config.Config{})
	slow := h.reconnect(t, config.Config{APIURL: mustParse(t, hang.URL)})
	text := slow.failure(t, "wait_for_request", map[string]any{"token_id": someToken, "timeout_seconds": 1})
	contains(t, text, "the capture API at "+hang.URL+" did not answer: no answer came within 1s, the time left to this call")
	for _, never := range []string{"connecting", "firewall", "HOOKSVC_TIMEOUT"} {
		if strings.Contains(text, never) {
			t.Errorf("%q in %s", never, text)
		}
	}
}
