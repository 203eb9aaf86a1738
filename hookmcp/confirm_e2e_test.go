package main

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestConfirmDeletesBinary: the built binary with
// HOOKSVC_CONFIRM_DELETES=require asks the user before delete_token, over
// stdio (input_required on 2026-07-28, elicitation/create on 2025-11-25)
// and over its own --transport http at 2026-07-28; deletes on a yes and not
// on a no. Over its stateless HTTP at 2025-11-25, where no one can be
// asked, require refuses and nothing is deleted.
func TestConfirmDeletesBinary(t *testing.T) {
	const key = "confirm-e2e-key-0123456789"
	fake := fakehooksvc.New(fakehooksvc.Options{APIKeys: []string{key}})
	api := httptest.NewServer(fake)
	t.Cleanup(api.Close)
	env := append(os.Environ(), "HOOKSVC_API_KEY="+key, "HOOKSVC_API_URL="+api.URL, "HOOKSVC_SOCKET_URL=off", "HOOKSVC_CONFIRM_DELETES=require")
	mcptest.ConfirmBinary(t, mcptest.Confirming{
		Stdio: func() mcp.Transport {
			cmd := exec.Command(binary)
			cmd.Env = env
			return &mcp.CommandTransport{Command: cmd}
		},
		HTTP: func() mcp.Transport {
			cmd := exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0")
			cmd.Env = env
			return &mcp.StreamableClientTransport{Endpoint: mcptest.StartHTTP(t, cmd), MaxRetries: -1}
		},
		Done: func() int {
			n := 0
			for _, r := range fake.Received() {
				if r.Method == "DELETE" {
					n++
				}
			}
			return n
		},
		Act: func(t *testing.T, session *mcp.ClientSession) mcptest.Confirmed {
			t.Helper()
			created := mcptest.Call(t, context.Background(), session, "create_token", nil)
			id := mcptest.Structured(t, created)["token"].(map[string]any)["uuid"].(string)
			res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_token", Arguments: map[string]any{"token_id": id}})
			if err != nil {
				t.Fatal(err)
			}
			return mcptest.Confirmed{Text: mcptest.Text(res), IsError: res.IsError,
				Question: "delete the capture token " + id,
				Declined: "the user declined deleting token " + id + "; nothing was deleted",
				Refused:  "deleting token " + id + " needs the user's confirmation (--confirm-deletes require), and the user cannot be asked: on the stateless HTTP transport"}
		},
		Secret: key,
	})
}
