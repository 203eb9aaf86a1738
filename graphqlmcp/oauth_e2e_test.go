package main

import (
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
	cmd, endpoint := mcptest.StartOAuthResource(t, func(addr, resource string) *exec.Cmd {
		return exec.Command(binary, "--listen", addr, "-e", srv.URL, "--oauth-issuer", issuer, "--oauth-resource", resource)
	})

	writer := mcptest.OAuthClient(t, dir, endpoint, "writer", "graphql_query", `{"query":"{ hero { name } }"}`)
	mcptest.CheckOAuthDiscovery(t, writer, endpoint, issuer, "mcp:read mcp:write")
	if got := mcptest.OAuthResults(t, writer, "mcp:read mcp:write", 1); !strings.Contains(got[0], "R2-D2") || mcptest.IsErrorResult(got[0]) {
		t.Errorf("graphql_query with mcp:write answered %s", got[0])
	}

	reader := mcptest.OAuthClient(t, dir, endpoint, "reader", "graphql_introspect", `{}`, "graphql_query", `{"query":"{ hero { name } }"}`,
		"graphql_query", `{"query":"mutation { kill }","allowMutations":true}`)
	results := mcptest.OAuthResults(t, reader, "mcp:read", 3)
	if read := results[0]; mcptest.IsErrorResult(read) || !strings.Contains(read, "hero") {
		t.Errorf("graphql_introspect with mcp:read answered %.500s", read)
	}
	if query := results[1]; mcptest.IsErrorResult(query) || !strings.Contains(query, "R2-D2") {
		t.Errorf("a query with mcp:read answered %s", query)
	}
	if refused := results[2]; !mcptest.IsErrorResult(refused) || !strings.Contains(refused, "mcp:write") {
		t.Errorf("a mutation with mcp:read answered %s", refused)
	}

	mcptest.CheckOAuthRefusals(t, issuer, endpoint)
	mcptest.Stop(t, cmd)
}
