package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
)

// BenchmarkRequestsResource reads the requests resource of a token holding
// 2,000 webhook requests of about 600 bytes through an in-memory session.
// Profile it with -cpuprofile or -memprofile to see where a read's time and
// memory go (the server's share: focus on readRequestPages, readPage and
// processResult); scripts/bench measures the same read from outside.
func BenchmarkRequestsResource(b *testing.B) {
	h := connectFake(b, fakehooksvc.Options{}, config.Config{ResourceMaxBytes: config.MaxResourceMaxBytes})
	id := h.createToken(b, nil)
	body := `{"ref":"refs/heads/main","repository":{"full_name":"octocat/Hello-World"},"head_commit":{"message":"` + strings.Repeat("x", 500) + `"}}`
	for range 2000 {
		h.capture(b, id, "POST", "application/json", body)
	}
	params := &mcp.ReadResourceParams{URI: requestsURI(id)}
	for b.Loop() {
		res, err := h.session.ReadResource(context.Background(), params)
		if err != nil || !strings.HasPrefix(res.Contents[0].Text, "[{") {
			b.Fatal(err)
		}
		// MB/s of the text: the pages read, checked and written, the
		// answer encoded, and the in-memory client's decoding of it.
		b.SetBytes(int64(len(res.Contents[0].Text)))
	}
}
