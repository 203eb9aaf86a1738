package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// toolNames are the tools tools/list gives, sorted.
var toolNames = []string{"graphql_introspect", "graphql_query"}

// TestToolListing checks what docs/clients.md says graphqlmcp offers.
func TestToolListing(t *testing.T) {
	mcptest.CheckToolListing(t, "../docs/clients.md", "graphqlmcp", toolNames)
}

// TestClientDocs checks the assistant configurations in README.md and docs/:
// every client's JSON block parses, and every configuration of graphqlmcp
// starts the built binary and answers tools/list.
func TestClientDocs(t *testing.T) {
	mcptest.CheckAllClientDocs(t, mcptest.DocServer{Name: "graphqlmcp", Binary: binary, EnvPrefix: "GRAPHQL_"})
}

// TestDocErrors drives the built binary into every situation the error table
// of docs/graphqlmcp.md lists and checks the message it quotes against the
// one sent, so the table says what a user will read.
func TestDocErrors(t *testing.T) {
	api, _ := testservers.Start(t, testservers.Starwars())
	faults := testservers.NewFaults()
	faults.HugeBytes = 5 << 20
	faults.RedirectTo = "http://169.254.169.254/latest/meta-data"
	fault, _ := testservers.Start(t, faults)
	odd := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/unauthorized":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"errors":"Invalid API key"}`)
		case "/page":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html><body>Welcome</body></html>")
		case "/nointrospection":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"errors":[{"message":"GraphQL introspection is not allowed"}]}`)
		case "/persisted":
			w.Header().Set("Content-Type", "application/graphql-response+json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"errors":[{"message":"PersistedQueryOnly","extensions":{"code":"PERSISTED_QUERY_ONLY"}}]}`)
		case "/getonly":
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Allow", "GET, HEAD")
			w.WriteHeader(http.StatusMethodNotAllowed)
			io.WriteString(w, "Method Not Allowed")
		}
	}))
	t.Cleanup(odd.Close)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()

	start := func(args ...string) *mcp.ClientSession {
		return mcptest.ConnectClient(t, &mcp.CommandTransport{Command: exec.Command(binary, append([]string{"--endpoint", api.URL}, args...)...)})
	}
	session := start()
	never := start("--mutations", "never")
	allowed := start("--allow-endpoint", api.URL)
	unchecked := start("--validate=false") // the fragment checks of the pricing, which validation would otherwise come before
	readOnly := start("--read-only", "--mutations", "always")
	call := mcptest.ErrorText
	query := func(args map[string]any) func(*testing.T) string { return call(session, "graphql_query", args) }
	q := func(text string) func(*testing.T) string { return query(map[string]any{"query": text}) }
	at := func(endpoint, text string) func(*testing.T) string {
		return query(map[string]any{"query": text, "endpoint": endpoint})
	}
	texts := func(fns ...func(*testing.T) string) func(*testing.T) []string {
		return func(t *testing.T) []string {
			var out []string
			for _, fn := range fns {
				out = append(out, fn(t))
			}
			return out
		}
	}
	kill := "mutation Kill { createReview(episode: JEDI, review: {stars: 1}) { stars } }"
	hang := func(t *testing.T) string {
		go func() { <-faults.Arrived; <-faults.Hung }()
		return query(map[string]any{"query": "{ a }", "endpoint": fault.URL + "/hang", "timeout": 200})(t)
	}
	mcptest.CheckDocErrors(t, "../docs/graphqlmcp.md", map[string]func(*testing.T) []string{
		"no `query`":                                     texts(query(map[string]any{})),
		"syntax error":                                   texts(q("{\n  hero { name ")),
		"several operations, no name":                    texts(q("query A { hero { name } } query B { hero { id } }")),
		"unknown `operationName`":                        texts(query(map[string]any{"query": "query A { hero { name } }", "operationName": "Z"})),
		"an operation name repeated":                     texts(q("query X { hero { name } } query X { hero { id } }")),
		"an anonymous operation beside others":           texts(q("{ hero { name } } " + kill)),
		"only fragments":                                 texts(q("fragment F on Character { name }")),
		"mutation not allowed":                           texts(q(kill)),
		"mutation under `never`":                         texts(call(never, "graphql_query", map[string]any{"query": kill, "allowMutations": true})),
		"mutation under `--read-only`":                   texts(call(readOnly, "graphql_query", map[string]any{"query": kill, "allowMutations": true})),
		"a dry run of a mutation not allowed":            texts(query(map[string]any{"query": kill, "dryRun": true})),
		"`variables` not an object":                      texts(query(map[string]any{"query": "{ hero { name } }", "variables": 7})),
		"`variables` a string that is not a JSON object": texts(query(map[string]any{"query": "{ hero { name } }", "variables": "{e: 1}"})),
		"subscription":                                   texts(q("subscription S { reviewAdded { stars } }")),
		"over the ceiling":                               texts(q("{ hero { friendsConnection(first: 50) { edges { node { friendsConnection(first: 20) { edges { cursor } } } } } } }")),
		"too many fields":                                texts(q("{ hero { " + manyFields(1001) + "} }")),
		"not valid on the schema":                        texts(q("{\n  hero {\n    nmae\n  }\n}")),
		"variables not valid":                            texts(query(map[string]any{"query": "query ($e: Episode) { hero(episode: $e) { name } }", "variables": map[string]any{"e": "NOPE"}})),
		"nested too deep":                                texts(q("{ hero " + strings.Repeat("{ friends ", 101) + "{ name }" + strings.Repeat(" }", 102))),
		"redirect refused":                               texts(at(fault.URL+"/redirect", "{ hero { name } }")),
		"fragment cycle / undefined": texts(call(unchecked, "graphql_query", map[string]any{"query": "{ hero { ...A } } fragment A on Character { ...A }"}),
			call(unchecked, "graphql_query", map[string]any{"query": "{ hero { ...X } }"})),
		"bad endpoint":                      texts(at("ftp://example.com/graphql", "{ a }")),
		"endpoint not allowed":              texts(call(allowed, "graphql_query", map[string]any{"query": "{ a }", "endpoint": fault.URL + "/echo"})),
		"link-local endpoint":               texts(at("http://169.254.169.254/graphql", "{ a }")),
		"forbidden header":                  texts(query(map[string]any{"query": "{ a }", "headers": map[string]any{"host": "x"}})),
		"bad header name / value":           texts(query(map[string]any{"query": "{ a }", "headers": map[string]any{"X Bad": "x"}}), query(map[string]any{"query": "{ a }", "headers": map[string]any{"X-Bad": "a\nb"}})),
		"timeout out of range or not whole": texts(query(map[string]any{"query": "{ a }", "timeout": 0})),
		"unknown argument":                  texts(query(map[string]any{"query": "{ a }", "endpont": "x"})),
		"wrong type":                        texts(query(map[string]any{"query": "{ a }", "timeout": "x"})),
		"timeout fired":                     texts(hang),
		"connection failed":                 texts(at(closed.URL, "{ a }")),
		"response too large":                texts(at(fault.URL+"/huge", "{ a }")),
		"HTTP failure, not GraphQL":         texts(at(fault.URL+"/html500", "{ a }")),
		"401 or 403, not GraphQL (`{\"errors\":\"Invalid API key\"}`)": texts(at(odd.URL+"/unauthorized", "{ a }")),
		"2xx, not GraphQL":          texts(at(odd.URL+"/page", "{ a }")),
		"introspection disabled":    texts(call(session, "graphql_introspect", map[string]any{"endpoint": odd.URL + "/nointrospection"})),
		"persisted operations only": texts(call(session, "graphql_introspect", map[string]any{"endpoint": odd.URL + "/persisted"})),
		"POST refused (HTTP 405)":   texts(call(session, "graphql_introspect", map[string]any{"endpoint": odd.URL + "/getonly"})),
	})
}

// manyFields is n fields of distinct names.
func manyFields(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("f" + strconv.Itoa(i) + " ")
	}
	return b.String()
}

// TestDocFlags: every flag --help lists has its row in docs/graphqlmcp.md's
// "Command line" table, so a new flag cannot go undocumented.
func TestDocFlags(t *testing.T) {
	mcptest.CheckDocFlags(t, binary, "../docs/graphqlmcp.md", "## Command line")
}
