package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// binary is the graphqlmcp built for this test run.
var binary string

func TestMain(m *testing.M) {
	var dir string
	var err error
	binary, dir, err = mcptest.BuildBinary("graphqlmcp")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// exercise lists the tools and calls each once against the starwars API.
func exercise(t *testing.T, session *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "graphql_introspect,graphql_query" {
		t.Errorf("tools = %v", names)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "graphql_query", Arguments: map[string]any{"query": "{ hero { name } }"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"R2-D2"`) {
		t.Errorf("graphql_query: %v %+v", err, res)
	}
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "graphql_introspect", Arguments: map[string]any{"types": []string{"Droid"}}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "type Droid implements Character") {
		t.Errorf("graphql_introspect: %v %+v", err, res)
	}
}

func TestStdio(t *testing.T) {
	srv, _ := testservers.Start(t, testservers.Starwars())
	cmd := exec.Command(binary, "--endpoint", srv.URL, "--headers", `{"Authorization":"Bearer stdio-secret-123"}`)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	session := mcptest.ConnectClient(t, &mcp.CommandTransport{Command: cmd})
	exercise(t, session)
	session.Close()
	if strings.Contains(stderr.String(), "stdio-secret-123") {
		t.Errorf("stderr shows a header value:\n%s", stderr.String())
	}
	if strings.Contains(stderr.String(), "register it") {
		t.Errorf("the terminal hint was printed to a client that is not a terminal:\n%s", stderr.String())
	}
}

// TestTerminalHint starts the server the way a person would, on a terminal
// (script(1) provides one), and expects one hint line.
func TestTerminalHint(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) is not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "-qec", binary, "/dev/null")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(line, "graphqlmcp is an MCP server") || !strings.Contains(line, "claude mcp add") {
		t.Errorf("first line on the terminal = %q, want the hint", line)
	}
}

func TestStreamableHTTP(t *testing.T) {
	srv, _ := testservers.Start(t, testservers.Starwars())
	cmd := exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "-e", srv.URL)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	// The server logs its URL once it listens.
	lines := bufio.NewScanner(stderr)
	urlPattern := regexp.MustCompile(`url=(http://\S+/mcp)`)
	var endpoint string
	for lines.Scan() {
		if m := urlPattern.FindStringSubmatch(lines.Text()); m != nil {
			endpoint = m[1]
			break
		}
	}
	if endpoint == "" {
		t.Fatal("the server never logged its URL")
	}
	go io.Copy(io.Discard, stderr)

	health, err := http.Get(strings.TrimSuffix(endpoint, "/mcp") + "/healthz")
	if err != nil || health.StatusCode != http.StatusOK {
		t.Fatalf("/healthz: %v %v", err, health)
	}
	health.Body.Close()

	exercise(t, mcptest.ConnectClient(t, &mcp.StreamableClientTransport{Endpoint: endpoint}))

	// DNS rebinding protection: a foreign Host on a loopback address is refused.
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Host = "evil.example.com"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Host answered %d, want 403", resp.StatusCode)
	}

	// SIGTERM shuts it down cleanly.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Error("the server did not stop after SIGTERM")
	}
}

// TestBadStartupValues: each stops the process with exit code 2 and one
// clear line on stderr, before anything is served.
func TestBadStartupValues(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  []string
		want string
	}{
		{"headers not JSON", []string{"-H", "Authorization: Bearer x"}, nil, "--headers: must be a JSON object of string values"},
		{"headers not strings", []string{"-H", `{"X-Retries": 3}`}, nil, `the value of "X-Retries" is not a string`},
		{"headers with Host", []string{"-H", `{"Host": "example.com"}`}, nil, `header "Host" cannot be set`},
		{"headers from the environment", nil, []string{"GRAPHQL_HEADERS=[1]"}, "--headers: must be a JSON object"},
		{"timeout zero", []string{"-t", "0"}, nil, "--timeout must be between 1 and 600000 milliseconds, got 0"},
		{"timeout not a number", []string{"--timeout", "soon"}, nil, `invalid value "soon" for flag -timeout`},
		{"timeout not a number in the environment", nil, []string{"GRAPHQL_TIMEOUT=soon"}, `could not parse "soon" as int value from environment variable "GRAPHQL_TIMEOUT"`},
		{"maxComplexity zero", []string{"-m", "0"}, nil, "--maxComplexity must be at least 1, got 0"},
		{"maxComplexity from the environment", nil, []string{"GRAPHQL_MAX_COMPLEXITY=-1"}, "--maxComplexity must be at least 1, got -1"},
		{"endpoint not absolute", []string{"-e", "localhost:4000/graphql"}, nil, "--endpoint: \"localhost:4000/graphql\" is not an absolute http(s) URL"},
		{"endpoint not http", []string{"-e", "ftp://example.com/graphql"}, nil, "is not an absolute http(s) URL"},
		{"mutations unknown", []string{"--mutations", "sometimes"}, nil, `--mutations must be per-call, never or always, got "sometimes"`},
		{"transport unknown", []string{"--transport", "sse"}, nil, `--transport "sse" is not a transport`},
		{"allow-endpoint not a URL", []string{"--allow-endpoint", "example.com"}, nil, "--allow-endpoint:"},
		{"unknown flag", []string{"--endpont", "http://x"}, nil, "flag provided but not defined: -endpont"},
		{"stray argument", []string{"http://x"}, nil, `unexpected argument "http://x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(binary, tt.args...)
			cmd.Env = append(os.Environ(), tt.env...)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			exit, ok := err.(*exec.ExitError)
			if !ok || exit.ExitCode() != 2 {
				t.Fatalf("exit: %v, want code 2; stderr: %s", err, stderr.String())
			}
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "graphqlmcp: ") || !strings.Contains(lines[0], tt.want) {
				t.Errorf("stderr = %q, want one line containing %q", stderr.String(), tt.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout is not empty: %q", stdout.String())
			}
		})
	}
}

func TestHelpAndVersion(t *testing.T) {
	out, err := exec.Command(binary, "--help").CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--endpoint", "GRAPHQL_ENDPOINT", "--headers", "GRAPHQL_HEADERS", "--timeout", "GRAPHQL_TIMEOUT", "--maxComplexity", "GRAPHQL_MAX_COMPLEXITY", "--transport"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	out, err = exec.Command(binary, "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "graphqlmcp version ") {
		t.Errorf("--version: %v %q", err, out)
	}
}
