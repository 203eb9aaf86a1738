package app

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"
)

func testSpec() Spec {
	return Spec{
		Name:      "testmcp",
		EnvPrefix: "TESTMCP",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "size", Aliases: []string{"s"}, Value: 1, Sources: cli.EnvVars("TESTMCP_SIZE")},
			&cli.DurationFlag{Name: "wait", Value: 5 * time.Minute, Sources: cli.EnvVars("TESTMCP_WAIT")},
			&cli.BoolFlag{Name: "loud", Sources: cli.EnvVars("TESTMCP_LOUD")},
			&cli.StringFlag{Name: "name", Sources: cli.EnvVars("TESTMCP_NAME")},
		},
		Build: func(_ context.Context, cmd *cli.Command, env Env) (*mcp.Server, error) {
			if cmd.Int("size") < 1 {
				return nil, FlagErrorf("size", "must be at least 1, got %d; for example --size 10", cmd.Int("size"))
			}
			if cmd.Int("size") > 100 {
				return nil, errors.New("size over 100 is not a flag error")
			}
			server := mcp.NewServer(&mcp.Implementation{Name: "testmcp", Version: env.Version}, nil)
			mcp.AddTool(server, &mcp.Tool{Name: "ping"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil, nil
			})
			// Tools for the end of a session: one that finishes within the
			// shutdown's grace, one that runs until it is cancelled, one that
			// ignores cancellation.
			mcp.AddTool(server, &mcp.Tool{Name: "sleep"}, func(ctx context.Context, _ *mcp.CallToolRequest, args struct{ Seconds float64 }) (*mcp.CallToolResult, any, error) {
				select {
				case <-time.After(time.Duration(args.Seconds * float64(time.Second))):
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slept"}}}, nil, nil
				case <-ctx.Done():
					return nil, nil, context.Cause(ctx)
				}
			})
			mcp.AddTool(server, &mcp.Tool{Name: "hang"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
				<-ctx.Done()
				return nil, nil, context.Cause(ctx)
			})
			mcp.AddTool(server, &mcp.Tool{Name: "stuck"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				time.Sleep(time.Hour)
				return nil, nil, errors.New("woke up")
			})
			return server, nil
		},
	}
}

// TestRunExitCodes: every bad flag or variable stops the process with exit
// 2 and one line in the project's words, naming the flag and its variable,
// the rule and an example; Go's and urfave/cli's own texts never show.
func TestRunExitCodes(t *testing.T) {
	for _, tt := range []struct {
		args []string
		env  map[string]string
		code int
		want string
	}{
		{[]string{"--size", "0"}, nil, exitUsage, "testmcp: --size (TESTMCP_SIZE) must be at least 1, got 0; for example --size 10"},
		{[]string{"--size", "x"}, nil, exitUsage, `testmcp: --size (TESTMCP_SIZE) must be a whole number; got "x". For example --size 1`},
		{[]string{"-s", "1.5"}, nil, exitUsage, `testmcp: --size (TESTMCP_SIZE) must be a whole number; got "1.5". For example --size 1`},
		{nil, map[string]string{"TESTMCP_SIZE": "ten"}, exitUsage, `testmcp: TESTMCP_SIZE (--size) must be a whole number; got "ten". For example TESTMCP_SIZE=1`},
		{[]string{"--wait", "5"}, nil, exitUsage, `testmcp: --wait (TESTMCP_WAIT) must be a duration with its unit, such as 30s, 5m or 1h30m; got "5". For example --wait 5m`},
		{nil, map[string]string{"TESTMCP_WAIT": "30000"}, exitUsage, `testmcp: TESTMCP_WAIT (--wait) must be a duration with its unit, such as 30s, 5m or 1h30m; got "30000". For example TESTMCP_WAIT=5m`},
		{nil, map[string]string{"TESTMCP_LOUD": "maybe"}, exitUsage, `testmcp: TESTMCP_LOUD (--loud) must be true or false; got "maybe". For example TESTMCP_LOUD=true`},
		{[]string{"--name"}, nil, exitUsage, "testmcp: --name (TESTMCP_NAME) needs a value"},
		{[]string{"--wait"}, nil, exitUsage, "testmcp: --wait (TESTMCP_WAIT) needs a value, such as --wait 5m"},
		{[]string{"--bogus"}, nil, exitUsage, "testmcp: unknown flag --bogus; run testmcp --help to list the flags it takes"},
		{[]string{"-x"}, nil, exitUsage, "testmcp: unknown flag -x; run testmcp --help to list the flags it takes"},
		{[]string{"extra"}, nil, exitUsage, `testmcp: unexpected argument "extra": testmcp takes flags only; run testmcp --help to list them`},
		{[]string{"--log-level", "loud"}, nil, exitUsage, `testmcp: --log-level (TESTMCP_LOG_LEVEL) must be debug, info, warn or error; got "loud". For example --log-level debug`},
		{[]string{"--transport", "carrier-pigeon"}, nil, exitUsage, `testmcp: --transport (TESTMCP_TRANSPORT) must be stdio or http; got "carrier-pigeon". For example --transport http`},
		{[]string{"--transport", "http", "--listen", "127.0.0.1:99999"}, nil, exitUsage, "testmcp: --listen (TESTMCP_LISTEN) cannot listen on 127.0.0.1:99999: "},
		{[]string{"--size", "101"}, nil, exitUsage, "testmcp: size over 100 is not a flag error"},
	} {
		for k, v := range tt.env {
			t.Setenv(k, v)
		}
		var stdout, stderr strings.Builder
		code := Run(context.Background(), testSpec(), append([]string{"testmcp"}, tt.args...), Streams{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr})
		if code != tt.code || !strings.HasPrefix(stderr.String(), tt.want) || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%v %v: code %d, stderr %q; want %d and one line starting %q", tt.args, tt.env, code, stderr.String(), tt.code, tt.want)
		}
		if stdout.Len() != 0 {
			t.Errorf("%v: stdout %q, want nothing", tt.args, stdout.String())
		}
		for k := range tt.env {
			os.Unsetenv(k)
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
		done <- Run(context.Background(), testSpec(), []string{"testmcp"}, Streams{Stdin: clientToServer, Stdout: serverToClient, Stderr: &stderr})
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
			"(devel) (no commit recorded: built outside git or with -buildvcs=false)"},
	} {
		if got := describeVersion(&tc.info); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if ua := userAgent("x"); !strings.HasPrefix(ua, "x/") {
		t.Errorf("userAgent = %q", ua)
	}
}
