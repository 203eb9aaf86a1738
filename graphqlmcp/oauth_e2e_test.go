package main

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestOAuthTypeScriptSDK: graphqlmcp over HTTP as an OAuth resource server
// of a real authorization server (oauth2-mock-server), reached by the
// official TypeScript SDK's OAuth client (discovery through the 401 and the
// Protected Resource Metadata, PKCE, the resource parameter). A client
// granted mcp:read and mcp:write runs a query; one granted mcp:read only
// reads the schema (graphql_introspect is read-only) and runs a query
// (graphql_query judges each call: app.Spec.ScopeCheckedTools), and a
// mutation is refused to it naming mcp:write. A token for another audience
// gets 401 invalid_token, and so do the issuer's tokens that are expired or
// name another issuer, and tokens forged from its own: unsigned (alg none)
// and signed with a key not in its JWKS.
func TestOAuthTypeScriptSDK(t *testing.T) {
	issuer, dir := mcptest.OAuthIssuer(t)
	srv, _ := testservers.Start(t, testservers.Starwars())
	addr := mcptest.FreeLoopbackAddr(t)
	resource := "http://" + addr + "/mcp"
	cmd := exec.Command(binary, "--listen", addr, "-e", srv.URL, "--oauth-issuer", issuer, "--oauth-resource", resource)
	endpoint := mcptest.StartHTTP(t, cmd)
	if endpoint != resource {
		t.Fatalf("serving at %s, not %s", endpoint, resource)
	}

	writer := mcptest.OAuthClient(t, dir, endpoint, "writer", "graphql_query", `{"query":"{ hero { name } }"}`)
	mcptest.CheckOAuthDiscovery(t, writer, endpoint, issuer, "mcp:read mcp:write")
	if got, _ := json.Marshal(writer["results"]); !strings.Contains(string(got), "R2-D2") || strings.Contains(string(got), `"isError":true`) {
		t.Errorf("graphql_query with mcp:write answered %s", got)
	}

	reader := mcptest.OAuthClient(t, dir, endpoint, "reader", "graphql_introspect", `{}`, "graphql_query", `{"query":"{ hero { name } }"}`,
		"graphql_query", `{"query":"mutation { kill }","allowMutations":true}`)
	results, _ := reader["results"].([]any)
	if reader["tokenScope"] != "mcp:read" || len(results) != 3 {
		t.Fatalf("the reader was granted %v and got %v", reader["tokenScope"], reader["results"])
	}
	if read, _ := json.Marshal(results[0]); strings.Contains(string(read), `"isError":true`) || !strings.Contains(string(read), "hero") {
		t.Errorf("graphql_introspect with mcp:read answered %.500s", read)
	}
	if query, _ := json.Marshal(results[1]); strings.Contains(string(query), `"isError":true`) || !strings.Contains(string(query), "R2-D2") {
		t.Errorf("a query with mcp:read answered %s", query)
	}
	if refused, _ := json.Marshal(results[2]); !strings.Contains(string(refused), `"isError":true`) || !strings.Contains(string(refused), "mcp:write") {
		t.Errorf("a mutation with mcp:read answered %s", refused)
	}

	other := mcptest.OAuthTokenFor(t, issuer, "mcp:read mcp:write", "http://127.0.0.1:1/mcp")
	status, challenge := mcptest.PostMCP(t, endpoint, other, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if status != 401 || !strings.Contains(challenge, `error="invalid_token"`) || !strings.Contains(challenge, "another audience") {
		t.Errorf("a token for another audience: HTTP %d, WWW-Authenticate %q", status, challenge)
	}
	mcptest.CheckOAuthBadTokens(t, issuer, endpoint)
	mcptest.Stop(t, cmd)
}
