package mcptest

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Confirming is what ConfirmBinary needs of one server: a built binary
// whose operator requires the user's confirmation for one kind of action
// (graphqlmcp's mutations, hookmcp's deletes).
type Confirming struct {
	// Stdio and HTTP are the binary, confirmation required, over stdio
	// and over its own stateless --transport http: a new process each call.
	Stdio, HTTP func() mcp.Transport
	// Done counts the actions the upstream has seen so far (mutations
	// sent, deletes).
	Done func() int
	// Act runs the action in session.
	Act func(t *testing.T, session *mcp.ClientSession) Confirmed
	// Secret is a credential the server holds, which no question may show.
	Secret string
}

// Confirmed is what an action answered, and what its answers must say.
type Confirmed struct {
	Text    string // the result's text
	IsError bool
	// Question is what the question put to the user must contain; Declined
	// what the result must say after a no; Refused what it must say where
	// no one can be asked.
	Question, Declined, Refused string
}

// ConfirmBinary checks that c's binary asks the user before the action,
// over stdio (input_required on 2026-07-28, elicitation/create on
// 2025-11-25) and over its own HTTP at 2026-07-28, one subtest each
// (stdio/2026-07-28, stdio/2025-11-25, http/2026-07-28), and acts on a yes
// and not on a no; and that over its stateless HTTP at 2025-11-25
// (subtest http/2025-11-25), where no one can be asked, it refuses without
// asking, and does nothing.
func ConfirmBinary(t *testing.T, c Confirming) {
	t.Helper()
	for _, link := range []struct {
		name      string
		transport func() mcp.Transport
		version   string
	}{
		{"stdio/2026-07-28", c.Stdio, "2026-07-28"},
		{"stdio/2025-11-25", c.Stdio, "2025-11-25"},
		{"http/2026-07-28", c.HTTP, "2026-07-28"},
	} {
		t.Run(link.name, func(t *testing.T) {
			for _, answer := range []*Person{Answering("decline", nil), Answering("accept", true)} {
				before := c.Done()
				got := c.Act(t, answer.Dial(t, link.transport(), link.version))
				if got.Question == "" || got.Declined == "" || got.Refused == "" {
					t.Fatalf("Act must say what the question, a no and a refusal say: %+v", got)
				}
				asked := answer.Questions()
				if len(asked) != 1 || !strings.Contains(asked[0], got.Question) || (c.Secret != "" && strings.Contains(asked[0], c.Secret)) {
					t.Fatalf("%s: asked %q", answer.Answer.Action, asked)
				}
				yes := answer.Answer.Action == "accept"
				if done := c.Done() - before; done != map[bool]int{true: 1, false: 0}[yes] || got.IsError == yes {
					t.Fatalf("%s: %d done, error %v: %s", answer.Answer.Action, done, got.IsError, got.Text)
				}
				if !yes && !strings.Contains(got.Text, got.Declined) {
					t.Errorf("decline: %s", got.Text)
				}
			}
		})
	}
	t.Run("http/2025-11-25", func(t *testing.T) {
		p := Answering("accept", true)
		before := c.Done()
		got := c.Act(t, p.Dial(t, c.HTTP(), "2025-11-25"))
		if !got.IsError || c.Done() != before || len(p.Questions()) != 0 {
			t.Fatalf("require: error %v, %d done, asked %d times: %s", got.IsError, c.Done()-before, len(p.Questions()), got.Text)
		}
		if !strings.Contains(got.Text, got.Refused) {
			t.Errorf("require: %s", got.Text)
		}
	})
}

// Dial connects a client whose user is p over transport, asking for
// version, and checks the version it got.
func (p *Person) Dial(t *testing.T, transport mcp.Transport, version string) *mcp.ClientSession {
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
