package tools

import (
	"context"
	"io"
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
//
// The sub-benchmark "php" has the fake write its answers as the hosted
// service's PHP does, every slash and every letter beyond ASCII escaped:
// each request is then respelled as it is compacted
// (jsonx.AppendCompactUnescape) before it is written.
func BenchmarkRequestsResource(b *testing.B) {
	b.Run("go", func(b *testing.B) { benchmarkRequestsResource(b, fakehooksvc.Options{}) })
	b.Run("php", func(b *testing.B) { benchmarkRequestsResource(b, fakehooksvc.Options{PHPEscapes: true}) })
}

func benchmarkRequestsResource(b *testing.B, opts fakehooksvc.Options) {
	h := connectFake(b, opts, config.Config{ResourceMaxBytes: config.MaxResourceMaxBytes})
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

// BenchmarkReadEncoding writes a text of 2,000 webhook requests (about 1.3
// MB) out as a JSON string, as a read's answer leaves the server: the work
// done after the last page, before the answer's last byte.
func BenchmarkReadEncoding(b *testing.B) {
	item := []byte(`{"uuid":"6f0e2a52-2c5e-4c70-9a3b-6e3f1c2d9b10","content":"{\"ref\":\"refs/heads/main\",\"head_commit\":{\"message\":\"` + strings.Repeat("x", 500) + `\"}}","headers":{"content-type":["application/json"]}}`)
	text := &chunkedText{}
	for range 2000 {
		text.write(item)
		text.write([]byte(","))
	}
	e := &readEncoding{before: []byte(`{"contents":[{"uri":"hooksvc://token/x/requests","text":`), after: []byte(`}]}`), text: text}
	b.SetBytes(int64(text.size))
	for b.Loop() {
		if _, err := e.WriteTo(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
