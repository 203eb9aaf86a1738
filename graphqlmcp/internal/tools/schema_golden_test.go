package tools

import (
	"flag"
	"testing"

	"github.com/mcpforge/servers/shared/mcptest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestToolSchemas compares each tool as tools/list shows it (description,
// annotations, input and output schemas) with testdata/<tool>.json. Run
// go test ./internal/tools -run TestToolSchemas -update after a deliberate
// change, and review the diff. The server has the default configuration.
func TestToolSchemas(t *testing.T) {
	cfg := testConfig(t, "http://localhost:4000/graphql")
	cfg.Validate = true
	h := connect(t, cfg, nil)
	mcptest.CheckToolSchemas(t, h.session, "testdata", *update, []string{"graphql_introspect", "graphql_query"})
}

// TestToolListSize records what graphqlmcp's tool list costs a model's
// context (testdata/tools_list_size.txt; docs/benchmarks.md compares it
// with the peers') and holds it to its budget.
func TestToolListSize(t *testing.T) {
	cfg := testConfig(t, "http://localhost:4000/graphql")
	cfg.Validate = true
	h := connect(t, cfg, nil)
	mcptest.CheckToolListSize(t, h.session, "testdata/tools_list_size.txt", *update, mcptest.ListSize{Whole: 4_000})
}
