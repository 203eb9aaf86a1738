package main

import (
	"strings"
	"testing"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// starwarsOps are saved operations against the Star Wars API: a query with
// an enum argument and a default, one with an ID, and a mutation.
const starwarsOps = "internal/tools/testdata/operations/starwars"

// TestInspectorSavedOperations: the official MCP Inspector's CLI lists the
// saved operations' tools with its --strict schema check (no problem a
// client would reject) and calls one, whose structured result it holds to
// the tool's output schema; an argument the input schema refuses comes back
// as a tool error naming it, with nothing sent. scripts/e2e runs it.
func TestInspectorSavedOperations(t *testing.T) {
	inspector := mcptest.NewInspector(t)
	srv, rec := testservers.Start(t, testservers.Starwars())
	target := mcptest.StdioTarget(nil, binary, "--endpoint", srv.URL, "--operations", starwarsOps)
	inspector.CheckStrictTools(t, target, []string{"create_review", "graphql_introspect", "graphql_query", "hero_of_episode", "starship_length"})

	res := inspector.CallTool(t, target, "hero_of_episode", map[string]any{"episode": "EMPIRE"})
	if res.IsError || !strings.Contains(mcptest.Text(res), "Luke Skywalker") || mcptest.Structured(t, res)["data"] == nil {
		t.Errorf("hero_of_episode: isError=%v text=%s", res.IsError, mcptest.Text(res))
	}
	before := len(rec.Requests())
	res = inspector.CallTool(t, target, "hero_of_episode", map[string]any{"episode": "PHANTOM"})
	if !res.IsError || !strings.Contains(mcptest.Text(res), "episode") {
		t.Errorf("hero_of_episode with an episode the enum lacks: isError=%v text=%s, want a refusal naming episode", res.IsError, mcptest.Text(res))
	}
	for _, r := range rec.Requests()[before:] {
		if !strings.Contains(string(r.Body), "IntrospectionQuery") {
			t.Errorf("a refused call sent %s", r.Body)
		}
	}
}
