package main

import (
	"testing"

	"github.com/mcpforge/servers/shared/mcptest"
)

// toolNames are the tools tools/list gives, sorted.
var toolNames = []string{"create_token", "delete_request", "delete_requests", "delete_token", "get_latest_request", "get_request", "get_token", "list_requests", "send_test_request", "update_token", "wait_for_request"}

// TestToolListing checks what docs/clients.md says hookmcp offers.
func TestToolListing(t *testing.T) {
	mcptest.CheckToolListing(t, "../docs/clients.md", "hookmcp", toolNames)
}

// TestClientDocs checks the assistant configurations in docs/clients.md and
// README.md: every JSON block parses, and every configuration of hookmcp
// starts the built binary and answers tools/list.
func TestClientDocs(t *testing.T) {
	for _, doc := range []string{"../docs/clients.md", "../README.md"} {
		t.Run(doc, func(t *testing.T) {
			mcptest.CheckClientDocs(t, doc, mcptest.DocServer{Name: "hookmcp", Binary: binary, EnvPrefix: "HOOKSVC_"})
		})
	}
}
