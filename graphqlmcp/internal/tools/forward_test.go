package tools

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/config"
	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/mcptest"
)

// echoSDL is the schema of echoAuth.
const echoSDL = `type Query { auth: String team: String }`

// echoAuth answers every operation with the Authorization and X-Team
// headers it received, as an endpoint that echoes a credential into its
// answer would.
func echoAuth() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"auth": r.Header.Get("Authorization"), "team": r.Header.Get("X-Team")}})
	})
}

// withHeaders is an HTTP client that sends headers with every request, as
// an MCP client configured with them does.
func withHeaders(headers map[string][]string) *http.Client {
	return &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		for name, values := range headers {
			r.Header[name] = values
		}
		return http.DefaultTransport.RoundTrip(r)
	})}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// serveHTTP serves a graphqlmcp of cfg over Streamable HTTP on loopback and
// returns its URL and its log.
func serveHTTP(t *testing.T, cfg config.Config) (string, *mcptest.SyncBuffer) {
	t.Helper()
	logs := &mcptest.SyncBuffer{}
	server := NewServer(Options{
		Config:  cfg,
		HTTP:    upstream.NewHTTPClient("graphqlmcp-test"),
		Logger:  slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Version: "test",
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	t.Cleanup(srv.Close)
	return srv.URL, logs
}

func connectHTTP(t *testing.T, url string, headers map[string][]string) *mcp.ClientSession {
	t.Helper()
	return mcptest.ConnectClient(t, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: withHeaders(headers)})
}

// TestForwardedHeaders: over HTTP, the headers --forward-header names go
// from each client's request to the default endpoint, over a startup header
// of the same name; an endpoint that echoes one has it redacted from the
// result; a per-call endpoint on another origin gets none of them.
func TestForwardedHeaders(t *testing.T) {
	srv, rec := testservers.Start(t, echoAuth())
	other, otherRec := testservers.Start(t, echoAuth())
	cfg := withSchemaFile(t, testConfig(t, srv.URL), echoSDL)
	cfg.Validate = false // the other origin has no schema to check against
	cfg.Headers = map[string]string{"Authorization": "Bearer operator-token-000", "X-Shared": "shared-secret-000"}
	cfg.ForwardHeaders = []string{"Authorization", "x-team"}
	url, logs := serveHTTP(t, cfg)

	alice := connectHTTP(t, url, map[string][]string{"Authorization": {"Bearer alice-token-111"}, "X-Team": {"team-alice-111"}})
	bob := connectHTTP(t, url, map[string][]string{"Authorization": {"Bearer bob-token-222"}})
	nobody := connectHTTP(t, url, nil)
	ctx := context.Background()
	for _, c := range []struct {
		session *mcp.ClientSession
		auth    string
		team    string
	}{{alice, "Bearer alice-token-111", "team-alice-111"}, {bob, "Bearer bob-token-222", ""}, {nobody, "Bearer operator-token-000", ""}} {
		before := rec.Count()
		res := mcptest.Call(t, ctx, c.session, "graphql_query", map[string]any{"query": "{ auth team }"})
		if res.IsError {
			t.Fatalf("call: %s", mcptest.Text(res))
		}
		sent := rec.Requests()[before:]
		if len(sent) != 1 || sent[0].Header.Get("Authorization") != c.auth || sent[0].Header.Get("X-Team") != c.team || sent[0].Header.Get("X-Shared") != "shared-secret-000" {
			t.Errorf("the endpoint received %v, want Authorization %q and X-Team %q with the startup X-Shared", sent, c.auth, c.team)
		}
		text := mcptest.Text(res)
		for _, secret := range []string{"alice-token-111", "bob-token-222", "team-alice-111", "operator-token-000"} {
			if strings.Contains(text, secret) {
				t.Errorf("the result shows the forwarded %s: %s", secret, text)
			}
		}
		if !strings.Contains(text, upstream.Redacted) {
			t.Errorf("the echo was not redacted: %s", text)
		}
	}

	// Another origin, named by the call: nothing forwarded, no startup header.
	res := mcptest.Call(t, ctx, alice, "graphql_query", map[string]any{"query": "{ auth team }", "endpoint": other.URL + "/graphql"})
	if res.IsError {
		t.Fatalf("call to another origin: %s", mcptest.Text(res))
	}
	for _, got := range otherRec.Requests() {
		if got.Header.Get("Authorization") != "" || got.Header.Get("X-Team") != "" || got.Header.Get("X-Shared") != "" {
			t.Errorf("another origin received %v", got.Header)
		}
	}
	if otherRec.Count() == 0 {
		t.Error("the other origin received nothing")
	}

	// A call's own header cannot replace a forwarded one.
	res = mcptest.Call(t, ctx, alice, "graphql_query", map[string]any{"query": "{ auth }", "headers": map[string]any{"authorization": "Bearer mallory-333"}})
	if !res.IsError || !strings.Contains(mcptest.Text(res), `headers: "authorization" is forwarded from the HTTP request of your MCP client (--forward-header), and a call cannot replace it; remove it from headers`) {
		t.Errorf("a call header over a forwarded one: %s", mcptest.Text(res))
	}

	// Given twice by the client: which to send would be a guess.
	twice := connectHTTP(t, url, map[string][]string{"X-Team": {"a-team-444", "b-team-555"}})
	res = mcptest.Call(t, ctx, twice, "graphql_query", map[string]any{"query": "{ team }"})
	if !res.IsError || !strings.Contains(mcptest.Text(res), `gives the header "x-team" 2 times`) {
		t.Errorf("a header given twice: %s", mcptest.Text(res))
	}

	// Bounded: each call redacts every spelling of what it forwards.
	long := connectHTTP(t, url, map[string][]string{"X-Team": {strings.Repeat("t", 8<<10+1)}})
	res = mcptest.Call(t, ctx, long, "graphql_query", map[string]any{"query": "{ team }"})
	if !res.IsError || !strings.Contains(mcptest.Text(res), `the header "x-team" of your MCP client's HTTP request is 8193 bytes, over the 8192 bytes graphqlmcp forwards`) {
		t.Errorf("a header over the bound: %s", mcptest.Text(res))
	}

	for _, secret := range []string{"alice-token-111", "bob-token-222", "team-alice-111", "operator-token-000", "a-team-444"} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("the log shows %s:\n%s", secret, logs.String())
		}
	}
}

// TestForwardedHeaderEchoedInErrors: a forwarded value the endpoint echoes
// in an error page, or in a dry run's request, is redacted there too.
func TestForwardedHeaderEchoedInErrors(t *testing.T) {
	srv, _ := testservers.Start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		w.Write([]byte("<html>no upstream for " + r.Header.Get("Authorization") + "</html>"))
	}))
	cfg := withSchemaFile(t, testConfig(t, srv.URL), echoSDL)
	cfg.ForwardHeaders = []string{"Authorization"}
	url, _ := serveHTTP(t, cfg)
	session := connectHTTP(t, url, map[string][]string{"Authorization": {"Bearer carol-token-666"}})
	res := mcptest.Call(t, context.Background(), session, "graphql_query", map[string]any{"query": "{ auth }"})
	if !res.IsError || strings.Contains(mcptest.Text(res), "carol-token-666") || !strings.Contains(mcptest.Text(res), "502") {
		t.Errorf("isError=%v: %s", res.IsError, mcptest.Text(res))
	}
	res = mcptest.Call(t, context.Background(), session, "graphql_query", map[string]any{"query": `{ auth @skip(if: "carol-token-666") }`, "dryRun": true})
	if !res.IsError || strings.Contains(mcptest.Text(res), "carol-token-666") {
		t.Errorf("a refusal quoting the query shows the forwarded value: %s", mcptest.Text(res))
	}
	res = mcptest.Call(t, context.Background(), session, "graphql_query", map[string]any{"query": `{ auth }`, "dryRun": true})
	if res.IsError || !strings.Contains(mcptest.Text(res), "Authorization: (value not shown)") {
		t.Errorf("dry run: %s", mcptest.Text(res))
	}
}

// TestForwardNothingOverStdio: a session without HTTP (stdio, in memory)
// forwards nothing, whatever --forward-header names.
func TestForwardNothingOverStdio(t *testing.T) {
	srv, rec := testservers.Start(t, echoAuth())
	cfg := withSchemaFile(t, testConfig(t, srv.URL), echoSDL)
	cfg.ForwardHeaders = []string{"Authorization"}
	res := connect(t, cfg, nil).call(t, "graphql_query", map[string]any{"query": "{ auth }"})
	if res.IsError || rec.Count() != 1 || rec.Requests()[0].Header.Get("Authorization") != "" {
		t.Errorf("isError=%v, sent %v", res.IsError, rec.Requests())
	}
}

// TestForwardedHeaderInUncheckedNote: an introspection refusal that echoes
// the forwarded credential is quoted, redacted, in the note of an operation
// that goes unchecked, in a dry run and in a call.
func TestForwardedHeaderInUncheckedNote(t *testing.T) {
	srv, _ := testservers.Start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(r.Header.Get("Accept"), "json") && strings.Contains(readBody(r), "IntrospectionQuery") {
			json.NewEncoder(w).Encode(map[string]any{"errors": []any{map[string]any{"message": "GraphQL introspection is not allowed for " + r.Header.Get("Authorization")}}})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"auth": "ok"}})
	}))
	cfg := validating(t, srv.URL)
	cfg.ForwardHeaders = []string{"Authorization"}
	url, _ := serveHTTP(t, cfg)
	session := connectHTTP(t, url, map[string][]string{"Authorization": {"Bearer dave-token-777"}})
	for _, dryRun := range []bool{true, false} {
		res := mcptest.Call(t, context.Background(), session, "graphql_query", map[string]any{"query": "{ auth }", "dryRun": dryRun})
		text := mcptest.Text(res)
		if res.IsError || !strings.Contains(text, "introspection is not allowed for "+upstream.Redacted) || strings.Contains(text, "dave-token-777") {
			t.Errorf("dryRun %v: isError=%v: %s", dryRun, res.IsError, text)
		}
	}
}

func readBody(r *http.Request) string {
	var b strings.Builder
	io.Copy(&b, r.Body)
	return b.String()
}
