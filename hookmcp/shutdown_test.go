package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestShutdownAnswersWaitForRequest: a wait_for_request that is watching
// (its first progress notification sent) when the input ends, or when a
// SIGTERM comes, gets a tool error saying the server is shutting down, and
// the process exits cleanly and promptly.
func TestShutdownAnswersWaitForRequest(t *testing.T) {
	for _, tt := range mcptest.Endings() {
		t.Run(tt.Name, func(t *testing.T) {
			srv := httptest.NewServer(fakehooksvc.New(fakehooksvc.Options{}))
			defer srv.Close()
			resp, err := http.Post(srv.URL+"/token", "application/json", strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			var token struct{ UUID string }
			json.NewDecoder(resp.Body).Decode(&token)
			resp.Body.Close()

			cmd := exec.Command(binary)
			cmd.Env = append(os.Environ(), "HOOKSVC_API_URL="+srv.URL)
			s := mcptest.StartRawStdio(t, cmd)
			s.Initialize(t)
			s.Send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait_for_request","arguments":{"token_id":"`+token.UUID+
				`","timeout_seconds":60},"_meta":{"progressToken":"w"}}}`)
			if msg := s.Next(t); msg["method"] != "notifications/progress" {
				t.Fatalf("want the wait's first progress notification, got %v", msg)
			}
			if err := tt.Do(s); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			text, isErr := mcptest.ToolError(s.Answer(t, 2))
			if !isErr || !strings.HasPrefix(text, "server shutting down "+tt.Reason) || !strings.Contains(text, "wait_for_request") {
				t.Errorf("the wait in flight got %q (tool error %v), want a tool error saying the server is shutting down %s", text, isErr, tt.Reason)
			}
			if err := s.Exit(t, mcptest.ExitBound); err != nil {
				t.Errorf("exit: %v", err)
			}
			t.Logf("answered and exited %s after the %s", time.Since(start).Round(time.Millisecond), tt.Name)
		})
	}
}
