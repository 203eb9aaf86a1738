package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestInspector drives the built binary with the official MCP Inspector's
// CLI, over stdio and over Streamable HTTP, against the Star Wars API on
// loopback. scripts/e2e installs the Inspector and runs it.
func TestInspector(t *testing.T) {
	inspector := mcptest.NewInspector(t)
	srv, rec := testservers.Start(t, testservers.Starwars())

	t.Run("stdio", func(t *testing.T) {
		// The header reaches the server the way a client's "env" block passes it.
		target := mcptest.StdioTarget([]string{"GRAPHQL_HEADERS=" + `{"Authorization":"Bearer e2e-secret-123"}`}, binary, "--endpoint", srv.URL)
		inspectorSession(t, inspector, target)
		notGraphQLAnswers(t, inspector, target)
		for _, r := range rec.Requests() {
			if r.Header.Get("Authorization") != "Bearer e2e-secret-123" {
				t.Fatalf("%s %s reached the API without the GRAPHQL_HEADERS header", r.Method, r.Path)
			}
		}
	})
	t.Run("http", func(t *testing.T) {
		cmd := exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "-e", srv.URL)
		target := mcptest.HTTPTarget(mcptest.StartHTTP(t, cmd))
		inspectorSession(t, inspector, target)
		mcptest.Stop(t, cmd)
	})
}

// inspectorSession lists the tools under the strict schema check and calls
// each tool, checking what the Inspector prints.
func inspectorSession(t *testing.T, inspector *mcptest.Inspector, target mcptest.Target) {
	inspector.CheckStrictTools(t, target, toolNames)

	res := inspector.CallTool(t, target, "graphql_query", map[string]any{
		"query":     "query Hero($episode: Episode) { hero(episode: $episode) { name } }",
		"variables": map[string]any{"episode": "EMPIRE"},
	})
	if got := mcptest.Structured(t, res)["data"]; res.IsError || !strings.Contains(mcptest.Text(res), `"Luke Skywalker"`) {
		t.Errorf("graphql_query: isError=%v data=%v text=%s", res.IsError, got, mcptest.Text(res))
	}

	res = inspector.CallTool(t, target, "graphql_query", map[string]any{
		"query": `mutation { createReview(episode: JEDI, review: {stars: 5}) { stars } }`,
	})
	if !res.IsError || !strings.Contains(mcptest.Text(res), "allowMutations") {
		t.Errorf("a mutation without allowMutations: isError=%v text=%s, want a refusal naming allowMutations", res.IsError, mcptest.Text(res))
	}

	res = inspector.CallTool(t, target, "graphql_query", map[string]any{"query": "{ hero { nope } }"})
	if !res.IsError || !strings.Contains(mcptest.Text(res), "nope") || strings.Contains(mcptest.Text(res), "e2e-secret-123") {
		t.Errorf("a query the API rejects: isError=%v text=%s, want its error, without the header", res.IsError, mcptest.Text(res))
	}

	res = inspector.CallTool(t, target, "graphql_introspect", map[string]any{"types": []string{"Droid"}})
	if res.IsError || !strings.Contains(mcptest.Text(res), "type Droid implements Character") {
		t.Errorf("graphql_introspect: isError=%v text=%s", res.IsError, mcptest.Text(res))
	}
	if view := mcptest.Structured(t, res)["view"]; view != "types" {
		t.Errorf("graphql_introspect view = %v, want types", view)
	}
}

// notGraphQLAnswers calls graphql_query against endpoints whose answers
// are JSON but not GraphQL responses. The official TypeScript client checks
// structuredContent against the tool's output schema and throws -32602 when
// it does not match, so the model would never learn, say, that its
// credentials are wrong: each must come back as a result the client
// accepts, an error naming the status, or valid structured content.
func notGraphQLAnswers(t *testing.T, inspector *mcptest.Inspector, target mcptest.Target) {
	answers := map[string]struct {
		status int
		body   string
		want   string // in the text; "" for a valid response
	}{
		"string-errors":   {401, `{"errors":"[API] Invalid API key or access token"}`, "HTTP 401"},
		"object-errors":   {400, `{"errors":{"message":"bad"}}`, "HTTP 400"},
		"text-data":       {200, `{"data":"text"}`, "not a GraphQL response"},
		"string-list":     {200, `{"errors":["text"]}`, "not a GraphQL response"},
		"array":           {200, `[1,2]`, "not a GraphQL response"},
		"number":          {200, `42`, "not a GraphQL response"},
		"null":            {200, `null`, "not a GraphQL response"},
		"text-extensions": {200, `{"data":{"a":1},"extensions":"text"}`, ""},
	}
	mux := http.NewServeMux()
	for path, a := range answers {
		mux.HandleFunc("/"+path, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(a.status)
			io.WriteString(w, a.body)
		})
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	for path, a := range answers {
		res := inspector.CallTool(t, target, "graphql_query", map[string]any{"query": "{ a }", "endpoint": srv.URL + "/" + path})
		switch {
		case a.want == "" && (res.IsError || res.StructuredContent == nil):
			t.Errorf("%s: isError=%v, structured %v, want a valid response: %s", path, res.IsError, res.StructuredContent, mcptest.Text(res))
		case a.want != "" && (!res.IsError || res.StructuredContent != nil || !strings.Contains(mcptest.Text(res), a.want)):
			t.Errorf("%s: isError=%v, structured %v, text %q; want an error naming %q without structured content", path, res.IsError, res.StructuredContent, mcptest.Text(res), a.want)
		}
	}
}

// TestConformance runs the official conformance suite against the binary over
// Streamable HTTP. testdata/conformance-baseline.yml lists the scenarios that
// need the suite's own fixture tools, prompts and resources, with reasons.
func TestConformance(t *testing.T) {
	srv, _ := testservers.Start(t, testservers.Starwars())
	cmd := exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "-e", srv.URL)
	url := mcptest.StartHTTP(t, cmd)
	mcptest.Conformance(t, url, "testdata/conformance-baseline.yml")
	mcptest.Stop(t, cmd)
}
