package main

import (
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
	cmd, endpoint := mcptest.StartOAuthResource(t, func(addr, resource string) *exec.Cmd {
		cmd := exec.Command(binary, "--listen", addr, "--oauth-issuer", issuer, "--oauth-resource", resource)
		cmd.Env = append(os.Environ(), "HOOKSVC_API_URL="+srv.URL, "HOOKSVC_API_KEY="+apiKey)
		return cmd
	})

	writer := mcptest.OAuthClient(t, dir, endpoint, "writer", "create_token", `{}`)
	mcptest.CheckOAuthDiscovery(t, writer, endpoint, issuer, "mcp:read mcp:write")
	created := mcptest.OAuthResults(t, writer, "mcp:read mcp:write", 1)[0]
	tokenID := uuidPattern.FindString(created)
	if tokenID == "" || mcptest.IsErrorResult(created) {
		t.Fatalf("create_token with mcp:write answered %s", created)
	}

	reader := mcptest.OAuthClient(t, dir, endpoint, "reader", "get_token", `{"token_id":"`+tokenID+`"}`, "create_token", `{}`)
	results := mcptest.OAuthResults(t, reader, "mcp:read", 2)
	if read := results[0]; mcptest.IsErrorResult(read) || !strings.Contains(read, tokenID) {
		t.Errorf("get_token with mcp:read answered %s", read)
	}
	if refused := results[1]; !mcptest.IsErrorResult(refused) || !strings.Contains(refused, "lacks the OAuth scope mcp:write") {
		t.Errorf("create_token with mcp:read answered %s", refused)
	}

	mcptest.CheckOAuthRefusals(t, issuer, endpoint)
	mcptest.Stop(t, cmd)
}
