package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

var uuidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// TestOAuthTypeScriptSDK: hookmcp over HTTP as an OAuth resource server of
// a real authorization server (oauth2-mock-server), reached by the official
// TypeScript SDK's OAuth client: the SDK meets the 401, reads the Protected
// Resource Metadata it names, discovers the authorization server, gets a
// token for this server's resource URL (PKCE, RFC 8707) and calls tools.
// A client the authorization server grants mcp:read and mcp:write creates
// a token; one it grants mcp:read only reads it, and its create_token is
// refused with a tool error naming mcp:write. A token the same server
// issues for another audience gets 401 invalid_token, and so do its tokens
// that are expired or name another issuer, and tokens forged from its own:
// unsigned (alg none) and signed with a key not in its JWKS.
func TestOAuthTypeScriptSDK(t *testing.T) {
	issuer, dir := mcptest.OAuthIssuer(t)
	fake := fakehooksvc.New(fakehooksvc.Options{APIKeys: []string{apiKey}})
	srv := httptest.NewServer(fake)
	defer srv.Close()
	addr := mcptest.FreeLoopbackAddr(t)
	resource := "http://" + addr + "/mcp"
	cmd := exec.Command(binary, "--listen", addr, "--oauth-issuer", issuer, "--oauth-resource", resource)
	cmd.Env = append(os.Environ(), "HOOKSVC_API_URL="+srv.URL, "HOOKSVC_API_KEY="+apiKey)
	endpoint := mcptest.StartHTTP(t, cmd)
	if endpoint != resource {
		t.Fatalf("serving at %s, not %s", endpoint, resource)
	}

	writer := mcptest.OAuthClient(t, dir, endpoint, "writer", "create_token", `{}`)
	mcptest.CheckOAuthDiscovery(t, writer, endpoint, issuer, "mcp:read mcp:write")
	created, _ := json.Marshal(writer["results"])
	tokenID := uuidPattern.FindString(string(created))
	if tokenID == "" || strings.Contains(string(created), `"isError":true`) {
		t.Fatalf("create_token with mcp:write answered %s", created)
	}

	reader := mcptest.OAuthClient(t, dir, endpoint, "reader", "get_token", `{"token_id":"`+tokenID+`"}`, "create_token", `{}`)
	results, _ := reader["results"].([]any)
	if reader["tokenScope"] != "mcp:read" || len(results) != 2 {
		t.Fatalf("the reader was granted %v and got %v", reader["tokenScope"], reader["results"])
	}
	read, _ := json.Marshal(results[0])
	if strings.Contains(string(read), `"isError":true`) || !strings.Contains(string(read), tokenID) {
		t.Errorf("get_token with mcp:read answered %s", read)
	}
	refused, _ := json.Marshal(results[1])
	if !strings.Contains(string(refused), `"isError":true`) || !strings.Contains(string(refused), "lacks the OAuth scope mcp:write") {
		t.Errorf("create_token with mcp:read answered %s", refused)
	}

	other := mcptest.OAuthTokenFor(t, issuer, "mcp:read mcp:write", "http://127.0.0.1:1/mcp")
	status, challenge := mcptest.PostMCP(t, endpoint, other, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if status != 401 || !strings.Contains(challenge, `error="invalid_token"`) || !strings.Contains(challenge, "another audience") {
		t.Errorf("a token for another audience: HTTP %d, WWW-Authenticate %q", status, challenge)
	}
	mcptest.CheckOAuthBadTokens(t, issuer, endpoint)
	mcptest.Stop(t, cmd)
}
