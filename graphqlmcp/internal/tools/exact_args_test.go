package tools

import (
	"testing"

	"github.com/mcpforge/servers/graphqlmcp/internal/config"
	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestExactArguments: both tools run the arguments a client shows. A
// property named in another case ("Query", "ALLOWMUTATIONS") or named twice
// is refused with an error that names it, and nothing is sent, not even an
// introspection: encoding/json alone would match "Query" to query and keep
// the last of two, running what the client did not show.
func TestExactArguments(t *testing.T) {
	srv, rec := testservers.Start(t, testservers.Starwars())
	cfg := validating(t, srv.URL)
	cfg.Mutations = config.MutationsNever
	h := connect(t, cfg, nil)
	mcptest.ExactArguments(t, h.session, func(tool string) map[string]any {
		if tool == "graphql_query" {
			return map[string]any{"query": "{ hero { name } }", "endpoint": srv.URL}
		}
		return map[string]any{"endpoint": srv.URL}
	}, rec.Count)

	// The example: the shown query runs; the hidden mutation is refused.
	res := h.call(t, "graphql_query", map[string]any{"query": "{ hero { name } }", "Query": "mutation { createReview(episode: JEDI, review: {stars: 1}) { stars } }"})
	if !res.IsError || rec.Count() != 0 {
		t.Fatalf("isError=%v, %d requests: %s", res.IsError, rec.Count(), mcptest.Text(res))
	}
}
