package mcptest

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CheckAllClientDocs runs CheckClientDocs on every file DocFiles gives, one
// subtest each, and fails unless the docs start server over stdio at least
// once: a server the docs never configure is not checked at all.
func CheckAllClientDocs(t *testing.T, server DocServer) {
	t.Helper()
	started := 0
	for _, doc := range DocFiles(t) {
		t.Run(doc, func(t *testing.T) {
			started += CheckClientDocs(t, doc, server)
		})
	}
	if started == 0 {
		t.Errorf("the docs give no stdio configuration for %s", server.Name)
	}
	t.Logf("started %d configurations", started)
}

// RunLines runs every client line of docs (DocLines, read knowing servers)
// that registers server in its client, one subtest each named where the
// line stands (Run: its tools must be want and pass exercise), and fails
// unless there is at least one.
func (c *DocClients) RunLines(t *testing.T, server string, servers, docs []string, stand Stand, want []string, exercise func(*testing.T, *mcp.ClientSession)) {
	t.Helper()
	ran := 0
	for _, line := range DocLines(t, servers, docs...) {
		if line.Server != server {
			continue
		}
		ran++
		t.Run(line.Where, func(t *testing.T) {
			c.Run(t, line, stand, want, exercise)
		})
	}
	if ran == 0 {
		t.Fatalf("the docs give no client line for %s", server)
	}
	t.Logf("ran %d client lines", ran)
}
