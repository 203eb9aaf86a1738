package tools

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/config"
	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/mcptest"
	"github.com/mcpforge/servers/shared/mcptool"
)

// addReview is a mutation the Star Wars test server runs.
const addReview = `mutation AddReview($ep: Episode!, $review: ReviewInput!) { createReview(episode: $ep, review: $review) { stars commentary } }`

// confirming is a server on the Star Wars test server reached over l by a
// client whose user is p (nil: a client that declares no elicitation), with
// cfg adjusted by adjust; it returns the session and the upstream's record.
func confirming(t *testing.T, l mcptest.Link, p *mcptest.Person, adjust func(*config.Config)) (*harness, *testservers.Recorder, string) {
	t.Helper()
	srv, rec := testservers.Start(t, testservers.Starwars())
	cfg := testConfig(t, srv.URL)
	if adjust != nil {
		adjust(&cfg)
	}
	logs := &mcptest.SyncBuffer{}
	server := NewServer(Options{
		Config: cfg, HTTP: upstream.NewHTTPClient("graphqlmcp-test"), Version: "test",
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	return &harness{session: l.Dial(t, server, p.Client()), logs: logs, server: server}, rec, srv.URL
}

func reviewArgs(commentary string) map[string]any {
	return map[string]any{
		"query":          addReview,
		"variables":      map[string]any{"ep": "JEDI", "review": map[string]any{"stars": 5, "commentary": commentary}},
		"allowMutations": true,
	}
}

// TestMutationAsksTheUser: a mutation the guard allows is shown to the user
// (the endpoint, the operation as sent, its variables) and sent only on a
// yes; decline, cancel and an unticked box send nothing and say why. On
// every link a client that can ask is asked.
func TestMutationAsksTheUser(t *testing.T) {
	mcptest.AsksTheUser(t, func(t *testing.T, l mcptest.Link, p *mcptest.Person) mcptest.Asked {
		h, rec, endpoint := confirming(t, l, p, nil)
		res := h.call(t, "graphql_query", reviewArgs("great"))
		return mcptest.Asked{Result: res, Done: rec.Operations() == 1,
			Question:  []string{"run the GraphQL mutation AddReview against " + endpoint, "mutation AddReview ($ep: Episode!, $review: ReviewInput!) {\n\tcreateReview(episode: $ep, review: $review) {", `Variables: {"ep":"JEDI","review":{"commentary":"great","stars":5}}`},
			Accepted:  `"stars":5`,
			Declined:  "the user declined mutation AddReview; the mutation was not sent. Do not retry it unless the user asks",
			Cancelled: "the user cancelled the confirmation of mutation AddReview without choosing; the mutation was not sent",
			Unticked:  "the user did not tick the box confirming mutation AddReview; the mutation was not sent",
		}
	})
}

// TestConfirmOnlyMutationsTheGuardAllows: a query is never asked about, and
// a mutation the guard refuses is refused before anyone is asked.
func TestConfirmOnlyMutationsTheGuardAllows(t *testing.T) {
	p := mcptest.Answering("accept", true)
	h, rec, _ := confirming(t, mcptest.AskingLinks()[0], p, nil)
	if res := h.call(t, "graphql_query", map[string]any{"query": "{ hero { name } }"}); res.IsError {
		t.Fatal(mcptest.Text(res))
	}
	args := reviewArgs("x")
	delete(args, "allowMutations")
	contains(t, mcptest.Text(h.call(t, "graphql_query", args)), "pass allowMutations: true")
	if n := len(p.Questions()); n != 0 || rec.Operations() != 1 {
		t.Fatalf("asked %d times, sent %d operations; want the query alone sent, no one asked", n, rec.Operations())
	}
}

// TestConfirmMutationsSetting: a client that declares no elicitation gets
// the mutation unasked under ask (as before confirmation existed) and a
// refusal under require; never asks no one. On stateless HTTP a client
// before 2026-07-28 cannot be asked: as a client without elicitation.
func TestConfirmMutationsSetting(t *testing.T) {
	links := mcptest.AskingLinks()
	for _, l := range []mcptest.Link{links[0], links[1], mcptest.StatelessEarlier()} {
		p := mcptest.Answering("decline", nil)
		if l.Name != mcptest.StatelessEarlier().Name {
			p = nil
		}
		h, rec, _ := confirming(t, l, p, nil)
		if res := h.call(t, "graphql_query", reviewArgs("x")); res.IsError || rec.Operations() != 1 {
			t.Fatalf("%s, ask: %s; %d sent", l.Name, mcptest.Text(res), rec.Operations())
		}
		if l.Name == mcptest.StatelessEarlier().Name {
			contains(t, h.logs.String(), "running without the user's confirmation", "stateless HTTP transport")
		}

		h, rec, _ = confirming(t, l, p, func(c *config.Config) { c.ConfirmMutations = "require" })
		msg := mcptest.Text(h.call(t, "graphql_query", reviewArgs("x")))
		contains(t, msg, "mutation AddReview needs the user's confirmation (--confirm-mutations require), and the user cannot be asked: ", "the mutation was not sent")
		if rec.Operations() != 0 {
			t.Fatalf("%s, require: the mutation was sent", l.Name)
		}
	}
	p := mcptest.Answering("decline", nil)
	h, rec, _ := confirming(t, links[0], p, func(c *config.Config) { c.ConfirmMutations = "never" })
	if res := h.call(t, "graphql_query", reviewArgs("x")); res.IsError || rec.Operations() != 1 || len(p.Questions()) != 0 {
		t.Fatalf("never: %s; %d sent, asked %d times", mcptest.Text(res), rec.Operations(), len(p.Questions()))
	}
}

// TestConfirmMessageBoundedAndRedacted: the question holds no startup
// secret (in the operation or its variables), and a large operation is cut
// to mcptool.MaxConfirmMessage bytes, saying so.
func TestConfirmMessageBoundedAndRedacted(t *testing.T) {
	const secret = "s3cr3t-startup-token-0123456789"
	p := mcptest.Answering("decline", nil)
	h, _, _ := confirming(t, mcptest.AskingLinks()[1], p, func(c *config.Config) {
		c.Headers = map[string]string{"Authorization": "Bearer " + secret}
	})
	long := strings.Repeat("a very long review ", 600)
	args := reviewArgs(secret + " " + long)
	args["query"] = strings.Replace(addReview, "} }", fmt.Sprintf(`} second: createReview(episode: JEDI, review: {stars: 1, commentary: %q}) { stars } }`, secret), 1)
	h.call(t, "graphql_query", args)
	asked := p.Questions()
	if len(asked) != 1 {
		t.Fatalf("asked %d times", len(asked))
	}
	if strings.Contains(asked[0], secret) || len(asked[0]) > mcptool.MaxConfirmMessage {
		t.Fatalf("the question shows the secret, or is %d bytes (over %d): %.300q", len(asked[0]), mcptool.MaxConfirmMessage, asked[0])
	}
	contains(t, asked[0], "bytes more; all the variables are in the tool call's arguments", upstream.Redacted, "Run it?")
}

// TestConfirmMutationRoundTripByHand: at 2026-07-28 the first call answers
// input_required and sends nothing; the answer counts only with its state
// and for the same operation and variables.
func TestConfirmMutationRoundTripByHand(t *testing.T) {
	opts := mcptest.Answering("accept", true).Client()
	opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	l := mcptest.Link{Name: "in-memory/2026-07-28", Version: "2026-07-28", Connect: func(t *testing.T, s *mcp.Server, _ *mcp.ClientOptions) *mcp.ClientSession {
		return mcptest.InMemory("")(t, s, opts)
	}}
	h, rec, _ := confirming(t, l, nil, nil)
	call := func(args map[string]any, responses mcp.InputResponseMap, state string) *mcp.CallToolResult {
		t.Helper()
		res, err := h.session.CallTool(t.Context(), &mcp.CallToolParams{Name: "graphql_query", Arguments: args, InputResponses: responses, RequestState: state})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := call(reviewArgs("one"), nil, "")
	if !first.NeedsInput() || first.RequestState == "" || rec.Operations() != 0 {
		t.Fatalf("first call: needs input %v, state %q, %d sent", first.NeedsInput(), first.RequestState, rec.Operations())
	}
	yes := mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}}
	// Other variables with this state: asked again, not sent.
	if again := call(reviewArgs("two"), yes, first.RequestState); !again.NeedsInput() || rec.Operations() != 0 {
		t.Fatalf("other variables with the state: needs input %v, %d sent", again.NeedsInput(), rec.Operations())
	}
	// The same operation and variables sent as someone else (other
	// per-call headers): asked again, not sent.
	as := reviewArgs("one")
	as["headers"] = map[string]any{"Authorization": "Bearer someone-else"}
	if again := call(as, yes, first.RequestState); !again.NeedsInput() || rec.Operations() != 0 {
		t.Fatalf("other headers with the state: needs input %v, %d sent", again.NeedsInput(), rec.Operations())
	}
	if done := call(reviewArgs("one"), yes, first.RequestState); done.IsError || done.NeedsInput() || rec.Operations() != 1 {
		t.Fatalf("with the answer and its state: %s, %d sent", mcptest.Text(done), rec.Operations())
	}
}

func contains(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(got, want) {
			t.Errorf("%q\ndoes not contain %q", got, want)
		}
	}
}

// TestConfirmMessageHidesForwardedHeaders: over HTTP, a value forwarded
// from the client's request (--forward-header) is a secret too: the
// question shows it redacted.
func TestConfirmMessageHidesForwardedHeaders(t *testing.T) {
	const forwardedSecret = "forwarded-secret-0123456789"
	p := mcptest.Answering("decline", nil)
	l := mcptest.Link{Name: "http-sessions/2025-11-25", Version: "2025-11-25", Connect: func(t *testing.T, s *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
		srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
		t.Cleanup(srv.Close)
		client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts)
		session, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: withHeaders(map[string][]string{"X-Api-Key": {forwardedSecret}}), MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { session.Close() })
		return session
	}}
	h, rec, _ := confirming(t, l, p, func(c *config.Config) { c.ForwardHeaders = []string{"X-Api-Key"} })
	h.call(t, "graphql_query", reviewArgs("key "+forwardedSecret))
	asked := strings.Join(p.Questions(), "\n")
	if asked == "" || strings.Contains(asked, forwardedSecret) || rec.Operations() != 0 {
		t.Fatalf("the question shows the forwarded value, or none was asked, or the mutation was sent (%d): %q", rec.Operations(), asked)
	}
	contains(t, asked, upstream.Redacted)
}
