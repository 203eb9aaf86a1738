package mcptest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Person answers a server's elicitations as the user at the client would,
// and keeps the message of each.
type Person struct {
	Answer *mcp.ElicitResult
	// Away never answers: the question waits until the call ends.
	Away bool
	// Reading, when set, runs while the person reads each question, before
	// the answer: what changes in the world meanwhile.
	Reading func()

	mu    sync.Mutex
	asked []string
}

// Answering is a Person who answers action, with the form's confirm box
// set to confirm unless it is nil.
func Answering(action string, confirm any) *Person {
	res := &mcp.ElicitResult{Action: action}
	if confirm != nil {
		res.Content = map[string]any{"confirm": confirm}
	}
	return &Person{Answer: res}
}

func (p *Person) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	p.mu.Lock()
	p.asked = append(p.asked, req.Params.Message)
	answer, reading := p.Answer, p.Reading
	p.mu.Unlock()
	if reading != nil {
		reading()
	}
	if p.Away {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return answer, nil
}

// SetAnswer changes the answer to the next questions.
func (p *Person) SetAnswer(answer *mcp.ElicitResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.Answer = answer
}

// Questions are the messages the person was shown, in order.
func (p *Person) Questions() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.asked...)
}

// Client is a test client's options: one that declares elicitation, its
// answers p's, or (p nil) one that does not.
func (p *Person) Client() *mcp.ClientOptions {
	if p == nil {
		return nil
	}
	return &mcp.ClientOptions{ElicitationHandler: p.elicit}
}

// A Link connects a client to a server one way, and names the protocol
// version the session then speaks, which decides how a server asks the user
// (input_required from 2026-07-28, elicitation/create before).
type Link struct {
	Name    string
	Version string
	Connect func(t *testing.T, server *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession
}

// Dial connects over l and checks the version the session speaks.
func (l Link) Dial(t *testing.T, server *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	session := l.Connect(t, server, opts)
	if got := session.InitializeResult().ProtocolVersion; got != l.Version {
		t.Fatalf("%s: the session speaks %s, want %s", l.Name, got, l.Version)
	}
	return session
}

// InMemory connects over in-memory pipes, as stdio does, asking for version
// (the SDK's latest when empty).
func InMemory(version string) func(*testing.T, *mcp.Server, *mcp.ClientOptions) *mcp.ClientSession {
	return func(t *testing.T, server *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
		t.Helper()
		ct, st := mcp.NewInMemoryTransports()
		ss, err := server.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		session := versionSession(t, ct, opts, version)
		t.Cleanup(func() { session.Close(); ss.Wait() })
		return session
	}
}

// OverHTTP connects over Streamable HTTP through the go-sdk's handler,
// stateless (as the servers' --transport http serves it) or with sessions,
// asking for version (the SDK's latest when empty).
func OverHTTP(stateless bool, version string) func(*testing.T, *mcp.Server, *mcp.ClientOptions) *mcp.ClientSession {
	return func(t *testing.T, server *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
		t.Helper()
		handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: stateless})
		srv := httptest.NewServer(handler)
		t.Cleanup(srv.Close)
		return versionSession(t, &mcp.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1}, opts, version)
	}
}

func versionSession(t *testing.T, transport mcp.Transport, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts)
	session, err := client.Connect(context.Background(), transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	return session
}

// AskingLinks are the ways a client that can ask is asked: 2026-07-28
// through the tool result (input_required), on stdio's in-memory stand-in
// and stateless HTTP; earlier versions by a request the server sends while
// the call waits (elicitation/create), in memory and over HTTP with
// sessions. (Stateless HTTP at an earlier version cannot be asked:
// StatelessEarlier.)
func AskingLinks() []Link {
	return []Link{
		{"in-memory/2026-07-28", "2026-07-28", InMemory("")},
		{"in-memory/2025-11-25", "2025-11-25", InMemory("2025-11-25")},
		{"in-memory/2025-06-18", "2025-06-18", InMemory("2025-06-18")},
		{"http-sessions/2025-11-25", "2025-11-25", OverHTTP(false, "")},
		{"http-stateless/2026-07-28", "2026-07-28", OverHTTP(true, "")},
	}
}

// StatelessEarlier is stateless HTTP at 2025-11-25: no request reaches the
// client, and its calls carry no capabilities.
func StatelessEarlier() Link {
	return Link{"http-stateless/2025-11-25", "2025-11-25", OverHTTP(true, "2025-11-25")}
}
