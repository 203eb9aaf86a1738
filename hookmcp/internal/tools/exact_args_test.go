package tools

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestExactArguments: every tool runs the arguments a client shows. A
// property named in another case ("TOKEN_ID", "Cors") or named twice is
// refused with an error that names it, and nothing reaches the service
// (its API or a capture URL): encoding/json alone would match "TOKEN_ID" to
// token_id and keep the last of two, acting on what the client did not show.
func TestExactArguments(t *testing.T) {
	fake := fakehooksvc.New(fakehooksvc.Options{APIKeys: []string{envKey, callKey}})
	var received atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		received.Add(1)
		fake.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	h := serve(t, fake, srv.URL, config.Config{APIKey: envKey})
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "application/json", `{"n":1}`)
	request := h.ok(t, "get_latest_request", map[string]any{"token_id": id})["request_id"].(string)

	mcptest.ExactArguments(t, h.session, func(tool string) map[string]any {
		switch tool {
		case "create_token":
			return map[string]any{}
		case "get_request", "delete_request":
			return map[string]any{"token_id": id, "request_id": request}
		}
		return map[string]any{"token_id": id}
	}, func() int { return int(received.Load()) })

	// The token and its request are still there.
	h.ok(t, "get_request", map[string]any{"token_id": id, "request_id": request})
}
