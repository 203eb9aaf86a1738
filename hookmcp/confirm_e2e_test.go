package main

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

// dialWith connects a client whose user is p over transport, asking for
// version, and checks the version it got.
func dialWith(t *testing.T, transport mcp.Transport, p *mcptest.Person, version string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "confirm-test", Version: "1"}, p.Client())
	session, err := client.Connect(context.Background(), transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	if got := session.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("the session speaks %s, want %s", got, version)
	}
	return session
}

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
	stdio := func() mcp.Transport {
		cmd := exec.Command(binary)
		cmd.Env = env
		return &mcp.CommandTransport{Command: cmd}
	}
	overHTTP := func() mcp.Transport {
		cmd := exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0")
		cmd.Env = env
		return &mcp.StreamableClientTransport{Endpoint: mcptest.StartHTTP(t, cmd), MaxRetries: -1}
	}
	deletes := func() int {
		n := 0
		for _, r := range fake.Received() {
			if r.Method == "DELETE" {
				n++
			}
		}
		return n
	}
	deleteToken := func(t *testing.T, session *mcp.ClientSession) (string, string, bool) {
		t.Helper()
		created := mcptest.Call(t, context.Background(), session, "create_token", nil)
		id := mcptest.Structured(t, created)["token"].(map[string]any)["uuid"].(string)
		res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_token", Arguments: map[string]any{"token_id": id}})
		if err != nil {
			t.Fatal(err)
		}
		return id, mcptest.Text(res), res.IsError
	}
	for _, c := range []struct {
		name      string
		transport func() mcp.Transport
		version   string
	}{
		{"stdio/2026-07-28", stdio, "2026-07-28"},
		{"stdio/2025-11-25", stdio, "2025-11-25"},
		{"http/2026-07-28", overHTTP, "2026-07-28"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, answer := range []*mcptest.Person{mcptest.Answering("decline", nil), mcptest.Answering("accept", true)} {
				session := dialWith(t, c.transport(), answer, c.version)
				before := deletes()
				id, text, isError := deleteToken(t, session)
				asked := answer.Questions()
				if len(asked) != 1 || !strings.Contains(asked[0], "delete the capture token "+id) || strings.Contains(asked[0], key) {
					t.Fatalf("%s: asked %q", answer.Answer.Action, asked)
				}
				yes := answer.Answer.Action == "accept"
				if sent := deletes() - before; sent != map[bool]int{true: 1, false: 0}[yes] || isError == yes {
					t.Fatalf("%s: %d deletes, error %v: %s", answer.Answer.Action, sent, isError, text)
				}
				if !yes && !strings.Contains(text, "the user declined deleting token "+id+"; nothing was deleted") {
					t.Errorf("decline: %s", text)
				}
			}
		})
	}
	t.Run("http/2025-11-25", func(t *testing.T) {
		p := mcptest.Answering("accept", true)
		session := dialWith(t, overHTTP(), p, "2025-11-25")
		before := deletes()
		id, text, isError := deleteToken(t, session)
		if !isError || deletes() != before || len(p.Questions()) != 0 {
			t.Fatalf("require: error %v, %d deletes, asked %d times: %s", isError, deletes()-before, len(p.Questions()), text)
		}
		if !strings.Contains(text, "deleting token "+id+" needs the user's confirmation (--confirm-deletes require), and the user cannot be asked: on the stateless HTTP transport") {
			t.Errorf("require: %s", text)
		}
	})
}
