package main

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"

	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/app"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestProtocolVersions connects a go-sdk client pinned to each protocol
// version the SDK speaks (mcp.SupportedProtocolVersions, 2024-11-05 to
// 2026-07-28) to the built binary over stdio and over its stateless
// Streamable HTTP, and to the server over the SDK's stateful Streamable HTTP
// handler, and checks on the wire: the version agreed and how (initialize,
// or server/discover with the version in every request's _meta), the cache
// hints of every result that carries them (private, stale at once), the
// server's icon, a token made and its requests read, and its id completed.
func TestProtocolVersions(t *testing.T) {
	fake := httptest.NewServer(fakehooksvc.New(fakehooksvc.Options{}))
	t.Cleanup(fake.Close)
	statelessURL := mcptest.StartHTTP(t, exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "--api-url", fake.URL))
	statefulURL := mcptest.StatefulHTTP(t, buildServer(t, "--api-url", fake.URL))

	for _, version := range mcp.SupportedProtocolVersions() {
		t.Run(version+"/stdio", func(t *testing.T) {
			transport, wire := mcptest.StdioWire(t, exec.Command(binary, "--api-url", fake.URL))
			speak(t, transport, wire, version, version, true)
		})
		t.Run(version+"/http-stateless", func(t *testing.T) {
			transport, wire := mcptest.HTTPWire(statelessURL)
			speak(t, transport, wire, version, version, false)
		})
		t.Run(version+"/http-stateful", func(t *testing.T) {
			// The SDK's stateful handler serves the versions of the
			// initialize handshake only: a 2026-07-28 client falls back
			// to 2025-11-25 there.
			want := version
			if version >= "2026-07-28" {
				want = "2025-11-25"
			}
			transport, wire := mcptest.HTTPWire(statefulURL)
			speak(t, transport, wire, version, want, true)
		})
	}
}

// speak runs one session pinned to version, which must agree on want.
// sessions says whether the transport keeps one server session for the
// client's session; without (stateless HTTP), each request is a session of
// its own, and a token made in one is not offered in another.
func speak(t *testing.T, transport mcp.Transport, wire *mcptest.Wire, version, want string, sessions bool) {
	ctx := context.Background()
	session := mcptest.ConnectVersion(t, transport, version)
	if got := mcptest.Negotiated(session); got != want {
		t.Fatalf("asked for %s, agreed on %s, want %s", version, got, want)
	}
	if _, err := session.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := session.ListResourceTemplates(ctx, nil); err != nil {
		t.Fatal(err)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "create_token", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("create_token: %v %+v", err, res)
	}
	token := mcptest.Structured(t, res)["token"].(map[string]any)["uuid"].(string)
	read, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "hooksvc://token/" + token + "/requests"})
	if err != nil || read.Contents[0].Text != "[]" {
		t.Fatalf("reading the new token's requests: %v %+v", err, read)
	}
	done, err := session.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "hooksvc://token/{token_id}/requests"},
		Argument: mcp.CompleteParamsArgument{Name: "token_id", Value: token[:4]},
	})
	if err != nil || done.Completion.Values == nil || slices.Contains(done.Completion.Values, token) != sessions {
		t.Fatalf("completing %s: %v %+v", token[:4], err, done)
	}

	mcptest.CheckVersionOnWire(t, wire, want)
	mcptest.CheckCacheHints(t, wire, func(mcptest.Exchange) int { return 0 })
	icons := mcptest.ServerIcons(t, wire)
	if len(icons) != 1 {
		t.Fatalf("the server's icons on the wire: %+v", icons)
	}
	mcptest.CheckSVGIcon(t, icons[0])
	for _, list := range wire.Results("tools/list") {
		if strings.Contains(string(list), "data:image") {
			t.Errorf("tools/list carries the icon: %s", mcptest.Short(list, 300))
		}
	}
}

// buildServer builds hookmcp's server from command-line arguments, as the
// binary does, for a transport the binary does not offer.
func buildServer(t *testing.T, args ...string) *mcp.Server {
	t.Helper()
	s := spec(func(string) string { return "" })
	var server *mcp.Server
	cmd := &cli.Command{Name: s.Name, Flags: s.Flags, Action: func(ctx context.Context, cmd *cli.Command) error {
		var err error
		server, err = s.Build(ctx, cmd, app.Env{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), UserAgent: "hookmcp-test", Version: "test"})
		return err
	}}
	if err := cmd.Run(context.Background(), append([]string{s.Name}, args...)); err != nil {
		t.Fatal(err)
	}
	return server
}
