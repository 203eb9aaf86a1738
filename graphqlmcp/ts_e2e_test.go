package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// tsClient runs scripts/ts-client/client.mjs (the official TypeScript SDK,
// pinned) with args and decodes the JSON line it prints. scripts/e2e
// installs it and sets MCP_TS_CLIENT; the test is skipped without it.
func tsClient(t *testing.T, args ...string) map[string]any {
	t.Helper()
	script := os.Getenv("MCP_TS_CLIENT")
	if script == "" {
		t.Skip("MCP_TS_CLIENT is not set; scripts/e2e installs the TypeScript SDK and sets it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "node", append([]string{script}, args...)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client.mjs %s: %v\n%s", strings.Join(args[1:], " "), err, stderr.String())
	}
	var result map[string]any
	if err := json.Unmarshal(out, &result); err != nil {
		t.Fatalf("client.mjs printed %q: %v", out, err)
	}
	return result
}

// bigSchema writes an SDL file whose printed schema is over 1 MiB, more
// than the Python SDK 2.0 reads in one SSE event.
func bigSchema(t *testing.T) string {
	t.Helper()
	var sdl strings.Builder
	sdl.WriteString("type Query {\n")
	for i := range 6000 {
		fmt.Fprintf(&sdl, "  item%d: Item%d\n", i, i)
	}
	sdl.WriteString("}\n")
	for i := range 6000 {
		fmt.Fprintf(&sdl, "\"\"\"Item %d of a schema large enough that its SDL passes one mebibyte, the most one SSE event may carry for some SDKs.\"\"\"\ntype Item%d {\n  id: ID!\n  name: String\n  count(first: Int = 10): Int\n}\n", i, i)
	}
	path := filepath.Join(t.TempDir(), "big.graphql")
	if err := os.WriteFile(path, []byte(sdl.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTypeScriptSDK: the official TypeScript SDK reads graphqlmcp's
// graphql://schema of over 1 MiB over Streamable HTTP, answered as one
// JSON body (not an SSE event), byte for byte what the go-sdk client reads
// over stdio, with or without a progress callback (graphqlmcp sends no
// progress, so asking for it changes nothing: an SSE event of over 1 MiB
// is more than the Python SDK 2.0 reads); and a request over the 4 MiB
// limit shows it the limit.
// frameMarker is a third-party frame's random marker (mcptool.Untrusted).
var frameMarker = regexp.MustCompile(`untrusted-[0-9a-f]{32}`)

func TestTypeScriptSDK(t *testing.T) {
	srv, _ := testservers.Start(t, testservers.Starwars())
	schemaFile := bigSchema(t)
	cmd := exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "-e", srv.URL, "--schema", schemaFile)
	endpoint := mcptest.StartHTTP(t, cmd)

	stdio := mcptest.ConnectClient(t, &mcp.CommandTransport{Command: exec.Command(binary, "-e", srv.URL, "--schema", schemaFile)})
	want, err := stdio.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "graphql://schema"})
	if err != nil {
		t.Fatal(err)
	}
	// The SDL is framed as third-party data, whose random marker differs
	// from read to read: both sides write it untrusted-MARKER.
	sum := sha256.Sum256([]byte(frameMarker.ReplaceAllString(want.Contents[0].Text, "untrusted-MARKER")))
	for _, progress := range [][]string{nil, {"--progress"}} {
		read := tsClient(t, append([]string{endpoint, "read", "graphql://schema"}, progress...)...)
		if read["bytes"] != float64(len(want.Contents[0].Text)) || read["sha256"] != hex.EncodeToString(sum[:]) || len(want.Contents[0].Text) <= 1<<20 {
			t.Errorf("%v: the TypeScript SDK read %v bytes (sha256 %v); over stdio the schema is %d bytes (sha256 %x), want the same and over 1 MiB",
				progress, read["bytes"], read["sha256"], len(want.Contents[0].Text), sum)
		}
		if read["contentType"] != "application/json" {
			t.Errorf("%v: resources/read was answered as %v, want application/json (one body, not an SSE event)", progress, read["contentType"])
		}
	}
	for _, call := range [][]string{
		{"graphql_introspect", `{}`},
		// The upstream (Star Wars) is not the schema's: its answer is
		// an error, which is as much an answer.
		{"graphql_query", `{"query":"{ item0 { id } }"}`},
	} {
		got := tsClient(t, endpoint, "call", call[0], call[1], "--progress")
		result, _ := got["result"].(map[string]any)
		if got["contentType"] != "application/json" || got["progress"] != float64(0) || result["content"] == nil {
			t.Errorf("%s with a progress callback: answered as %v, %v progress notifications, result %.300v; want application/json, none, an answer",
				call[0], got["contentType"], got["progress"], result)
		}
	}

	oversize := tsClient(t, endpoint, "oversize", "graphql_query", "query")
	if msg, _ := oversize["error"].(string); !strings.Contains(msg, "limit of 4194304 bytes (4 MiB)") {
		t.Errorf("a 5 MiB call showed the TypeScript SDK: %v", oversize["error"])
	}
	mcptest.Stop(t, cmd)
}
