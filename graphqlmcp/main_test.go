package main

import (
	"context"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// binary is the graphqlmcp built for this test run; sampleBinary the sample
// GraphQL API's command.
var binary, sampleBinary string

func TestMain(m *testing.M) {
	mcptest.RunWithBinaries(m,
		mcptest.Binary{Path: &binary, Name: "graphqlmcp", Pkg: "."},
		mcptest.Binary{Path: &sampleBinary, Name: "samplegraphql", Pkg: "./cmd/samplegraphql"})
}

// exercise lists the tools and calls each once against the starwars API.
func exercise(t *testing.T, session *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	mcptest.CheckToolNames(t, session, toolNames)
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "graphql_query", Arguments: map[string]any{"query": "{ hero { name } }"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"R2-D2"`) {
		t.Errorf("graphql_query: %v %+v", err, res)
	}
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "graphql_introspect", Arguments: map[string]any{"types": []string{"Droid"}}})
	if err != nil || res.IsError || !strings.Contains(mcptest.LastText(res), "type Droid implements Character") {
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

// TestSampleAPI is the offline way to try graphqlmcp that the docs give: the
// sample GraphQL API's command on loopback, and graphqlmcp pointed at it.
func TestSampleAPI(t *testing.T) {
	sample := exec.Command(sampleBinary, "-listen", "127.0.0.1:0")
	endpoint := mcptest.StartHTTP(t, sample)
	exercise(t, mcptest.ConnectClient(t, &mcp.CommandTransport{Command: exec.Command(binary, "--endpoint", endpoint)}))
	mcptest.Stop(t, sample)
}

// TestTerminalHint starts the server the way a person would, on a terminal,
// and expects one hint line.
func TestTerminalHint(t *testing.T) {
	line := mcptest.TerminalFirstLine(t, binary)
	if !strings.Contains(line, "graphqlmcp is an MCP server") || !strings.Contains(line, "claude mcp add") {
		t.Errorf("first line on the terminal = %q, want the hint", line)
	}
}

func TestStreamableHTTP(t *testing.T) {
	srv, _ := testservers.Start(t, testservers.Starwars())
	cmd := exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "-e", srv.URL)
	endpoint := mcptest.StartHTTP(t, cmd)

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
	mcptest.Stop(t, cmd)
}

// TestBadStartupValues: the built binary stops on a bad value with exit code
// 2 and one line on stderr, before anything is served. Every error text is
// checked in-process by TestStartupErrors.
func TestBadStartupValues(t *testing.T) {
	mcptest.CheckUsageErrors(t, binary, "graphqlmcp", []mcptest.UsageCase{
		{Name: "endpoint query not repeated", Env: []string{"GRAPHQL_ENDPOINT=example.com/graphql?token=SECRET8"}, Want: "--endpoint (GRAPHQL_ENDPOINT) must be an absolute http(s) URL", Secret: "SECRET8"},
	})
}

func TestHelpAndVersion(t *testing.T) {
	mcptest.CheckHelpAndVersion(t, binary, "graphqlmcp", []string{"--endpoint", "GRAPHQL_ENDPOINT", "--headers", "GRAPHQL_HEADERS", "--timeout", "GRAPHQL_TIMEOUT", "--maxComplexity", "GRAPHQL_MAX_COMPLEXITY", "--transport"})
}

// TestStdioSurvivesMalformedLines: the built binary answers malformed
// JSON-RPC lines with errors and keeps serving (they once ended it).
func TestStdioSurvivesMalformedLines(t *testing.T) {
	mcptest.CheckSurvivesMalformedLines(t, binary, "--endpoint", "http://127.0.0.1:1/graphql")
}
