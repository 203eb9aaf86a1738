package tools

import (
	"testing"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestArgumentFuzz calls both tools with arguments drawn from their own
// input schemas, as a client that trusts the schema would: no value the
// schema allows is refused for a rule the schema states differently, and
// every result fits its output schema and has all of it in its text. Half
// the queries are random text, half a real one, so that calls reach the
// endpoint too.
func TestArgumentFuzz(t *testing.T) {
	srv, _ := testservers.Start(t, testservers.Starwars())
	h := connect(t, validating(t, srv.URL), nil)
	calls := 0
	mcptest.ArgumentFuzz(t, h.session, 23, 20, func(tool string) map[string]any {
		calls++
		fixed := map[string]any{"endpoint": srv.URL}
		if calls%2 == 0 {
			fixed["query"] = "{ hero { name friends { name } } }"
			fixed["variables"] = map[string]any{}
			fixed["operationName"] = ""
		}
		return fixed
	})
}
