package tools

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpforge/servers/graphqlmcp/internal/config"
	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestBodyReadAsAFormCarriesNoField: against a real GraphQL server that
// reads the body as a form because of a header of its own
// (X-Body-As-Form, which graphqlmcp cannot know about), under --mutations
// never, a form field smuggled anywhere the guard judges as data (a string
// literal, a default value, a variable's value or name, in each of the
// spellings a form parser decodes) never runs: the body sent holds none of
// & ; = + %, and is the same JSON.
func TestBodyReadAsAFormCarriesNoField(t *testing.T) {
	handler, wiped := formDecoding(t)
	srv, rec := testservers.Start(t, handler)
	var calls []map[string]any
	for _, field := range []string{"&query=mutation{wipe}&", ";query=mutation{wipe};", "%26query%3Dmutation%7Bwipe%7D%26", "&query=mutation+{wipe}&", "&&query==mutation{wipe}"} {
		literal, _ := json.Marshal(field)
		calls = append(calls,
			map[string]any{"query": "query { a(x: " + string(literal) + ") }"},
			map[string]any{"query": "query Q($x: String = " + string(literal) + ") { a(x: $x) }"},
			map[string]any{"query": "query Q($x: String) { a(x: $x) }", "variables": map[string]any{"x": field}},
			map[string]any{"query": "query Q($x: String) { a(x: $x) }", "variables": map[string]any{"x": "1", field: field}},
			map[string]any{"query": "query Q($x: Float) { a }", "variables": map[string]any{"x": 1e21, "y": field}},
		)
	}
	for _, validate := range []bool{false, true} {
		cfg := testConfig(t, srv.URL)
		cfg.Validate, cfg.Mutations = validate, config.MutationsNever
		h := connect(t, cfg, nil)
		for _, args := range calls {
			args["headers"] = map[string]any{"X-Body-As-Form": "1"}
			before, operations := len(rec.Requests()), rec.Operations()
			res := h.call(t, "graphql_query", args)
			for _, got := range rec.Requests()[before:] {
				if i := bytes.IndexAny(got.Body, "&;=+%"); i >= 0 {
					t.Errorf("validate=%v, %v: the body holds %q, which a form parser reads as structure: %s", validate, args, got.Body[i], got.Body)
				}
				if !json.Valid(got.Body) {
					t.Errorf("validate=%v: the body is not JSON: %s", validate, got.Body)
				}
			}
			// Without --validate the operation goes out (the server,
			// reading a form, finds no query in it); with it, the
			// introspection fails by the call's header and nothing else is
			// sent (TestIntrospectionFailureBlamesTheCallsHeaders).
			if !validate && rec.Operations() == operations {
				t.Errorf("%v: nothing was sent: %.300s", args, mcptest.Text(res))
			}
		}
	}
	if wiped.Load() {
		t.Fatal("under --mutations never, a mutation smuggled as data ran on a server that reads the body as a form")
	}
}
