package main

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// confirmAddReview is a mutation the Star Wars test server runs.
const confirmAddReview = `mutation AddReview($ep: Episode!, $review: ReviewInput!) { createReview(episode: $ep, review: $review) { stars } }`

// addReview calls graphql_query with the mutation in session.
func addReview(t *testing.T, session *mcp.ClientSession) mcptest.Confirmed {
	t.Helper()
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "graphql_query", Arguments: map[string]any{
		"query":          confirmAddReview,
		"variables":      map[string]any{"ep": "JEDI", "review": map[string]any{"stars": 4, "commentary": "fine"}},
		"allowMutations": true,
	}})
	if err != nil {
		t.Fatal(err)
	}
	return mcptest.Confirmed{Text: mcptest.Text(res), IsError: res.IsError,
		Declined: "the user declined mutation AddReview; the mutation was not sent",
		Refused:  "mutation AddReview needs the user's confirmation (--confirm-mutations require), and the user cannot be asked: on the stateless HTTP transport"}
}

// TestConfirmMutationsBinary: the built binary with
// GRAPHQL_CONFIRM_MUTATIONS=require asks the user before a mutation is
// sent, over stdio (input_required on 2026-07-28, elicitation/create on
// 2025-11-25) and over its own --transport http at 2026-07-28; sends it on
// a yes and not on a no. Over its stateless HTTP at 2025-11-25, where no
// one can be asked, require refuses and nothing is sent, and ask (the
// default) sends it unasked.
func TestConfirmMutationsBinary(t *testing.T) {
	srv, rec := testservers.Start(t, testservers.Starwars())
	require := append(os.Environ(), "GRAPHQL_CONFIRM_MUTATIONS=require")
	overHTTP := func(env []string) mcp.Transport {
		cmd := exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "--endpoint", srv.URL)
		cmd.Env = env
		return &mcp.StreamableClientTransport{Endpoint: mcptest.StartHTTP(t, cmd), MaxRetries: -1}
	}
	mcptest.ConfirmBinary(t, mcptest.Confirming{
		Stdio: func() mcp.Transport {
			cmd := exec.Command(binary, "--endpoint", srv.URL)
			cmd.Env = require
			return &mcp.CommandTransport{Command: cmd}
		},
		HTTP: func() mcp.Transport { return overHTTP(require) },
		Done: rec.Operations,
		Act: func(t *testing.T, session *mcp.ClientSession) mcptest.Confirmed {
			got := addReview(t, session)
			got.Question = "run the GraphQL mutation AddReview against " + srv.URL
			return got
		},
	})
	t.Run("http/2025-11-25/ask", func(t *testing.T) {
		p := mcptest.Answering("accept", true)
		before := rec.Operations()
		got := addReview(t, p.Dial(t, overHTTP(os.Environ()), "2025-11-25"))
		if got.IsError || rec.Operations() != before+1 || len(p.Questions()) != 0 {
			t.Fatalf("ask: error %v, %d sent, asked %d times: %s", got.IsError, rec.Operations()-before, len(p.Questions()), got.Text)
		}
	})
}

// TestConfirmStateDiesWithTheProcess: the state a 2026-07-28 question
// carries is signed with a key each process makes when it starts: the
// user's yes with the state one graphqlmcp gave is not taken by another
// (as after a restart), which asks again and sends nothing; the process
// that asked takes it.
func TestConfirmStateDiesWithTheProcess(t *testing.T) {
	srv, rec := testservers.Start(t, testservers.Starwars())
	start := func() *mcp.ClientSession {
		opts := mcptest.Answering("accept", true).Client()
		opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
		cmd := exec.Command(binary, "--endpoint", srv.URL)
		cmd.Env = append(os.Environ(), "GRAPHQL_CONFIRM_MUTATIONS=require")
		client := mcp.NewClient(&mcp.Implementation{Name: "confirm-test", Version: "1"}, opts)
		session, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { session.Close() })
		return session
	}
	call := func(session *mcp.ClientSession, responses mcp.InputResponseMap, state string) *mcp.CallToolResult {
		t.Helper()
		res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "graphql_query", Arguments: map[string]any{
			"query":          confirmAddReview,
			"variables":      map[string]any{"ep": "JEDI", "review": map[string]any{"stars": 4, "commentary": "fine"}},
			"allowMutations": true,
		}, InputResponses: responses, RequestState: state})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	asker, other := start(), start()
	first := call(asker, nil, "")
	if !first.NeedsInput() || first.RequestState == "" {
		t.Fatalf("first call: %s", mcptest.Text(first))
	}
	yes := mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}}
	if again := call(other, yes, first.RequestState); !again.NeedsInput() || rec.Operations() != 0 {
		t.Fatalf("another process took the state: needs input %v, %d sent: %s", again.NeedsInput(), rec.Operations(), mcptest.Text(again))
	}
	if done := call(asker, yes, first.RequestState); done.IsError || done.NeedsInput() || rec.Operations() != 1 {
		t.Fatalf("the process that asked: %s, %d sent", mcptest.Text(done), rec.Operations())
	}
}
