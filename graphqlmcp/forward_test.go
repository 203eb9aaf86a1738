package main

import (
	"context"
	"encoding/json"
	"net/http"
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

// whoSDL is the schema of whoami, as a --schema file.
const whoSDL = "type Query { whoami: String }"

// whoami answers each operation with the Authorization it received, as an
// endpoint that echoes a credential would.
func whoami() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"whoami": r.Header.Get("Authorization")}})
	})
}

func schemaFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "schema.graphql")
	if err := os.WriteFile(path, []byte(whoSDL), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// bearer is an HTTP client that sends Authorization: Bearer token with
// every request, as an MCP client configured with a header does.
func bearer(token string) *http.Client {
	return &http.Client{Transport: headerTransport{"Authorization": "Bearer " + token}}
}

type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for name, value := range h {
		r.Header.Set(name, value)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestForwardHeaderOverHTTP: the built binary, serving Streamable HTTP with
// --forward-header Authorization, sends each of two clients' own
// Authorization to the endpoint; the endpoint's echo of it is redacted
// from the result; a per-call endpoint on another origin receives none;
// no log line, at debug level, shows one.
func TestForwardHeaderOverHTTP(t *testing.T) {
	srv, rec := testservers.Start(t, whoami())
	other, otherRec := testservers.Start(t, whoami())
	cmd := exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "--log-level", "debug",
		"-e", srv.URL+"/graphql", "--schema", schemaFile(t), "--validate=false", "--forward-header", "Authorization")
	stderr := &mcptest.SyncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := stderr.Await(ctx, "url="); err != nil {
		t.Fatalf("the server never logged its URL: %v\n%s", err, stderr)
	}
	endpoint := regexp.MustCompile(`url=(http://\S+)`).FindStringSubmatch(stderr.String())[1]
	if !strings.Contains(stderr.String(), "forwarding the headers Authorization of each client's HTTP request to the default endpoint's origin") {
		t.Errorf("no startup line about forwarding:\n%s", stderr)
	}

	for _, token := range []string{"alice-token-123456", "bob-token-654321"} {
		session := mcptest.ConnectClient(t, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: bearer(token)})
		before := rec.Count()
		res := mcptest.Call(t, ctx, session, "graphql_query", map[string]any{"query": "{ whoami }"})
		if res.IsError || strings.Contains(mcptest.Text(res), token) || !strings.Contains(mcptest.Text(res), "[REDACTED]") {
			t.Errorf("%s: isError=%v: %s", token, res.IsError, mcptest.Text(res))
		}
		if sent := rec.Requests()[before:]; len(sent) != 1 || sent[0].Header.Get("Authorization") != "Bearer "+token {
			t.Errorf("the endpoint did not receive %s's own Authorization: %v", token, sent)
		}
		res = mcptest.Call(t, ctx, session, "graphql_query", map[string]any{"query": "{ whoami }", "endpoint": other.URL + "/graphql"})
		if res.IsError {
			t.Errorf("another origin: %s", mcptest.Text(res))
		}
	}
	for _, got := range otherRec.Requests() {
		if got.Header.Get("Authorization") != "" {
			t.Errorf("another origin received Authorization: %v", got.Header)
		}
	}
	if otherRec.Count() != 2 {
		t.Errorf("another origin received %d requests, want 2", otherRec.Count())
	}
	mcptest.Stop(t, cmd)
	for _, token := range []string{"alice-token-123456", "bob-token-654321"} {
		if strings.Contains(stderr.String(), token) {
			t.Errorf("the log shows %s:\n%s", token, stderr)
		}
	}
}

// TestForwardHeaderInertOverStdio: over stdio --forward-header is accepted,
// says at start that it does nothing there, and nothing is forwarded.
func TestForwardHeaderInertOverStdio(t *testing.T) {
	srv, rec := testservers.Start(t, whoami())
	cmd := exec.Command(binary, "-e", srv.URL, "--schema", schemaFile(t), "--forward-header", "Authorization")
	stderr := &mcptest.SyncBuffer{}
	cmd.Stderr = stderr
	session := mcptest.ConnectClient(t, &mcp.CommandTransport{Command: cmd})
	res := mcptest.Call(t, context.Background(), session, "graphql_query", map[string]any{"query": "{ whoami }"})
	if res.IsError || rec.Count() != 1 || rec.Requests()[0].Header.Get("Authorization") != "" {
		t.Errorf("isError=%v, sent %v: %s", res.IsError, rec.Requests(), mcptest.Text(res))
	}
	session.Close()
	if !strings.Contains(stderr.String(), "level=WARN") || !strings.Contains(stderr.String(), "--forward-header Authorization has no effect over stdio") {
		t.Errorf("no warning that forwarding does nothing over stdio:\n%s", stderr)
	}
}

// TestForwardHeaderStartupErrors: a name that cannot be forwarded stops the
// start with one line naming the flag, the rule and the fix.
func TestForwardHeaderStartupErrors(t *testing.T) {
	mcptest.CheckStartupErrors(t, spec, []mcptest.UsageCase{
		{Name: "framing header", Args: []string{"--forward-header", "Host"}, Want: `--forward-header (GRAPHQL_FORWARD_HEADERS) must name headers a caller may set: header "Host" cannot be set: the HTTP layer frames the request itself, so that the endpoint reads the operation graphqlmcp checked; remove it`},
		{Name: "MCP session header", Env: []string{"GRAPHQL_FORWARD_HEADERS=Authorization,Mcp-Session-Id"}, Want: `--forward-header (GRAPHQL_FORWARD_HEADERS) must not name "Mcp-Session-Id": it belongs to the MCP connection between the client and graphqlmcp, not to the API; remove it`},
		{Name: "Authorization with --http-token", Args: []string{"--transport", "http", "--http-token", "0123456789abcdef0123", "--forward-header", "Authorization"},
			Want: "--forward-header (GRAPHQL_FORWARD_HEADERS) must not name Authorization while --http-token is set: clients send the token as Authorization: Bearer <token>, which would go upstream; " +
				"serve without --http-token (on loopback, or behind a proxy that authenticates, with --insecure-no-auth), or forward another header", Secret: "0123456789abcdef0123"},
		// The token a client sends for graphqlmcp is for graphqlmcp alone
		// (MCP's authorization spec forbids passing it through).
		{Name: "Authorization with --oauth-issuer", Args: []string{"--transport", "http", "--oauth-issuer", "https://auth.example.com", "--oauth-resource", "https://mcp.example.com/mcp", "--forward-header", "Authorization"},
			Want: "--forward-header (GRAPHQL_FORWARD_HEADERS) must not name Authorization while --oauth-issuer is set: clients send their OAuth access token for graphqlmcp as Authorization: Bearer <token>, " +
				"which is for graphqlmcp alone and must not go upstream; forward another header"},
	})
}
