package main

import (
	"testing"

	"github.com/mcpforge/servers/shared/mcptest"
)

// toolNames are the tools tools/list gives, sorted.
var toolNames = []string{"graphql_introspect", "graphql_query"}

// TestToolListing checks what docs/clients.md says graphqlmcp offers.
func TestToolListing(t *testing.T) {
	mcptest.CheckToolListing(t, "../docs/clients.md", "graphqlmcp", toolNames)
}

// TestClientDocs checks the assistant configurations in docs/clients.md and
// README.md: every JSON block parses, and every configuration of graphqlmcp
// starts the built binary and answers tools/list.
func TestClientDocs(t *testing.T) {
	for _, doc := range []string{"../docs/clients.md", "../README.md"} {
		t.Run(doc, func(t *testing.T) {
			mcptest.CheckClientDocs(t, doc, mcptest.DocServer{Name: "graphqlmcp", Binary: binary, EnvPrefix: "GRAPHQL_"})
		})
	}
}
