package app

import (
	"context"
	"errors"
	"io"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"
)

func testSpec() Spec {
	return Spec{
		Name:      "testmcp",
		EnvPrefix: "TESTMCP",
		Flags:     []cli.Flag{&cli.IntFlag{Name: "size", Value: 1}},
		Build: func(_ context.Context, cmd *cli.Command, env Env) (*mcp.Server, error) {
			if cmd.Int("size") < 1 {
				return nil, errors.New("--size must be at least 1")
			}
			server := mcp.NewServer(&mcp.Implementation{Name: "testmcp", Version: env.Version}, nil)
			mcp.AddTool(server, &mcp.Tool{Name: "ping"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil, nil
			})
			return server, nil
		},
	}
}

func TestRunExitCodes(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--size", "0"}, exitUsage, "testmcp: --size must be at least 1"},
		{[]string{"--size", "x"}, exitUsage, "testmcp: invalid value"},
		{[]string{"--nope"}, exitUsage, "flag provided but not defined"},
		{[]string{"extra"}, exitUsage, `unexpected argument "extra"`},
		{[]string{"--log-level", "loud"}, exitUsage, `--log-level "loud" is not a level`},
		{[]string{"--transport", "carrier-pigeon"}, exitUsage, `--transport "carrier-pigeon" is not a transport`},
		{[]string{"--transport", "http", "--listen", "256.0.0.1:99999"}, exitUsage, "--listen 256.0.0.1:99999"},
	} {
		var stdout, stderr strings.Builder
		code := run(context.Background(), testSpec(), append([]string{"testmcp"}, tt.args...), stdStreams{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr})
		if code != tt.code || !strings.Contains(stderr.String(), tt.want) || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%v: code %d, stderr %q; want %d and one line containing %q", tt.args, code, stderr.String(), tt.code, tt.want)
		}
		if stdout.Len() != 0 {
			t.Errorf("%v: stdout %q, want nothing", tt.args, stdout.String())
		}
	}
}

// TestRunStdio serves a client over in-process pipes and ends cleanly when
// the client goes away.
func TestRunStdio(t *testing.T) {
	clientToServer, serverIn := io.Pipe()
	serverOut, serverToClient := io.Pipe()
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), testSpec(), []string{"testmcp"}, stdStreams{Stdin: clientToServer, Stdout: serverToClient, Stderr: &stderr})
		serverToClient.Close()
	}()

	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	session, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: serverOut, Writer: serverIn}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "ping"})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "pong" {
		t.Fatalf("ping: %v %+v", err, res)
	}
	session.Close()
	if code := <-done; code != exitOK {
		t.Errorf("exit code %d after the client left; stderr: %s", code, stderr.String())
	}
}

func TestVersion(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var settings []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			settings = append(settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return settings
	}
	const path = "github.com/mcpforge/servers/graphqlmcp"
	for _, tc := range []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"checkout build with git", debug.BuildInfo{Main: debug.Module{Path: path, Version: "(devel)"}, Settings: vcs("vcs.revision", "0123456789abcdef", "vcs.modified", "false")},
			"(devel) (commit 0123456789abcdef)"},
		{"checkout build with changes", debug.BuildInfo{Main: debug.Module{Path: path, Version: "(devel)"}, Settings: vcs("vcs.revision", "0123456789abcdef", "vcs.modified", "true")},
			"(devel) (commit 0123456789abcdef-dirty)"},
		{"go install of a release", debug.BuildInfo{Main: debug.Module{Path: path, Version: "v0.3.1"}},
			"v0.3.1 (the commit tagged graphqlmcp/v0.3.1)"},
		{"go install of a commit", debug.BuildInfo{Main: debug.Module{Path: path, Version: "v0.3.2-0.20261121224859-0123456789ab"}},
			"v0.3.2-0.20261121224859-0123456789ab (commit 0123456789ab)"},
		{"git version stamp of a changed tree", debug.BuildInfo{Main: debug.Module{Path: path, Version: "v0.0.0-20261121224859-0123456789ab+dirty"}},
			"v0.0.0-20261121224859-0123456789ab+dirty (commit 0123456789ab)"},
		{"no git", debug.BuildInfo{Main: debug.Module{Path: path}},
			"(devel) (commit not recorded: built outside git or with -buildvcs=false)"},
	} {
		if got := describeVersion(&tc.info); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if ua := userAgent("x"); !strings.HasPrefix(ua, "x/") {
		t.Errorf("userAgent = %q", ua)
	}
}
