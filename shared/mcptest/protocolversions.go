package mcptest

import (
	"context"
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"

	"github.com/mcpforge/servers/shared/app"
)

// VersionedServer is what ProtocolVersions needs of one server.
type VersionedServer struct {
	// Stdio is the built binary over stdio: a new process each call.
	Stdio func() *exec.Cmd
	// StatelessURL is the built binary's own Streamable HTTP endpoint
	// (--transport http, stateless).
	StatelessURL string
	// StatefulURL serves the server the binary builds (BuildServer) through
	// the go-sdk's handler with sessions (StatefulHTTP).
	StatefulURL string
	// Exercise makes the server's own calls in a session pinned to a
	// version. sessions says whether the transport keeps one server
	// session for the client's session; without (stateless HTTP), each
	// request is a session of its own.
	Exercise func(t *testing.T, session *mcp.ClientSession, sessions bool)
	// TTL is the ttlMs a result that carries cache hints must give, by its
	// exchange (CheckCacheHints).
	TTL func(e Exchange) int
}

// ProtocolVersions connects a go-sdk client pinned to each protocol version
// the SDK speaks (mcp.SupportedProtocolVersions) to s over stdio, its
// stateless Streamable HTTP and the SDK's stateful handler, one subtest
// each (<version>/stdio, /http-stateless, /http-stateful), and checks on
// the wire what every server must do whatever its tools: the version
// agreed and how (initialize, or server/discover with the version in every
// request's _meta), the cache hints of every result that carries them, and
// the server's icon, an SVG, kept out of tools/list.
func ProtocolVersions(t *testing.T, s VersionedServer) {
	t.Helper()
	for _, version := range mcp.SupportedProtocolVersions() {
		t.Run(version+"/stdio", func(t *testing.T) {
			transport, wire := StdioWire(t, s.Stdio())
			speakVersion(t, s, transport, wire, version, version, true)
		})
		t.Run(version+"/http-stateless", func(t *testing.T) {
			transport, wire := HTTPWire(s.StatelessURL)
			speakVersion(t, s, transport, wire, version, version, false)
		})
		t.Run(version+"/http-stateful", func(t *testing.T) {
			// The SDK's stateful handler serves the versions of the
			// initialize handshake only: a 2026-07-28 client falls back
			// to 2025-11-25 there.
			want := version
			if version >= "2026-07-28" {
				want = "2025-11-25"
			}
			transport, wire := HTTPWire(s.StatefulURL)
			speakVersion(t, s, transport, wire, version, want, true)
		})
	}
}

// speakVersion runs one session pinned to version, which must agree on
// want.
func speakVersion(t *testing.T, s VersionedServer, transport mcp.Transport, wire *Wire, version, want string, sessions bool) {
	t.Helper()
	ctx := context.Background()
	session := ConnectVersion(t, transport, version)
	if got := Negotiated(session); got != want {
		t.Fatalf("asked for %s, agreed on %s, want %s", version, got, want)
	}
	if _, err := session.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := session.ListResourceTemplates(ctx, nil); err != nil {
		t.Fatal(err)
	}
	s.Exercise(t, session, sessions)

	CheckVersionOnWire(t, wire, want)
	CheckCacheHints(t, wire, s.TTL)
	icons := ServerIcons(t, wire)
	if len(icons) != 1 {
		t.Fatalf("the server's icons on the wire: %+v", icons)
	}
	CheckSVGIcon(t, icons[0])
	// From 2026-07-28 every result names the server; the icon stays in
	// server/discover's, out of the tool list the model reads.
	for _, list := range wire.Results("tools/list") {
		if strings.Contains(string(list), "data:image") {
			t.Errorf("tools/list carries the icon: %s", Short(list, 300))
		}
	}
}

// BuildServer builds the server of spec from command-line arguments, as its
// binary does, for a transport the binary does not offer (StatefulHTTP).
func BuildServer(t *testing.T, spec app.Spec, args ...string) *mcp.Server {
	t.Helper()
	var server *mcp.Server
	cmd := &cli.Command{Name: spec.Name, Flags: spec.Flags, Action: func(ctx context.Context, cmd *cli.Command) error {
		var err error
		server, err = spec.Build(ctx, cmd, app.Env{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), UserAgent: spec.Name + "-test", Version: "test"})
		return err
	}}
	if err := cmd.Run(context.Background(), append([]string{spec.Name}, args...)); err != nil {
		t.Fatal(err)
	}
	return server
}
