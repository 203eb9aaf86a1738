package tools

import (
	"flag"
	"testing"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/shared/mcptest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestToolSchemas compares each tool as tools/list shows it (description,
// annotations, input and output schemas) with testdata/<tool>.json. Run
// go test ./internal/tools -run TestToolSchemas -update after a deliberate
// change, and review the diff.
func TestToolSchemas(t *testing.T) {
	h := connect(t, config.Config{})
	mcptest.CheckToolSchemas(t, h.session, "testdata", *update, []string{
		"create_token", "delete_request", "delete_requests", "delete_token", "get_latest_request", "get_request", "get_token", "list_requests", "replay_request", "send_test_request", "set_response", "update_token", "verify_signature", "wait_for_request",
	})
}

// TestToolListSize records what hookmcp's tool list costs a model's
// context (testdata/tools_list_size.txt; docs/benchmarks.md compares it
// with the peers') and holds it to its budget.
func TestToolListSize(t *testing.T) {
	h := connect(t, config.Config{})
	mcptest.CheckToolListSize(t, h.session, "testdata/tools_list_size.txt", *update, mcptest.ListSize{Whole: 19_471, Description: 9_850})
}
