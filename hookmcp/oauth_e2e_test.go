package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

// oauthIssuer starts scripts/oauth-e2e/issuer.mjs (oauth2-mock-server,
// pinned), a real OAuth authorization server on loopback, and returns its
// issuer URL. scripts/oauth-e2e installs it and sets MCP_OAUTH_E2E to its
// folder; the test is skipped without it.
func oauthIssuer(t *testing.T) (issuer, dir string) {
	t.Helper()
	dir = os.Getenv("MCP_OAUTH_E2E")
	if dir == "" {
		t.Skip("MCP_OAUTH_E2E is not set; scripts/oauth-e2e installs oauth2-mock-server and the TypeScript SDK and sets it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, "issuer.mjs"))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	var started struct{ Issuer string }
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if err := json.Unmarshal([]byte(line), &started); err != nil || started.Issuer == "" {
		t.Fatalf("issuer.mjs printed %q: %v", line, err)
	}
	return started.Issuer, dir
}

// oauthClient runs scripts/oauth-e2e/client.mjs: the TypeScript SDK's
// OAuth flow as clientID, then the calls.
func oauthClient(t *testing.T, dir, endpoint, clientID string, calls ...string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "node", append([]string{filepath.Join(dir, "client.mjs"), endpoint, clientID}, calls...)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client.mjs as %s: %v\n%s", clientID, err, stderr.String())
	}
	var result map[string]any
	if err := json.Unmarshal(out, &result); err != nil {
		t.Fatalf("client.mjs printed %q: %v", out, err)
	}
	return result
}

// freeLoopbackAddr is an address to listen on whose port is known before
// the server starts: the resource URL (--oauth-resource) names it.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

var uuidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// TestOAuthTypeScriptSDK: hookmcp over HTTP as an OAuth resource server of
// a real authorization server (oauth2-mock-server), reached by the official
// TypeScript SDK's OAuth client: the SDK meets the 401, reads the Protected
// Resource Metadata it names, discovers the authorization server, gets a
// token for this server's resource URL (PKCE, RFC 8707) and calls tools.
// A client the authorization server grants mcp:read and mcp:write creates
// a token; one it grants mcp:read only reads it, and its create_token is
// refused with a tool error naming mcp:write. A token the same server
// issues for another audience gets 401 invalid_token.
func TestOAuthTypeScriptSDK(t *testing.T) {
	issuer, dir := oauthIssuer(t)
	fake := fakehooksvc.New(fakehooksvc.Options{APIKeys: []string{apiKey}})
	srv := httptest.NewServer(fake)
	defer srv.Close()
	addr := freeLoopbackAddr(t)
	resource := "http://" + addr + "/mcp"
	cmd := exec.Command(binary, "--listen", addr, "--oauth-issuer", issuer, "--oauth-resource", resource)
	cmd.Env = append(os.Environ(), "HOOKSVC_API_URL="+srv.URL, "HOOKSVC_API_KEY="+apiKey)
	endpoint := mcptest.StartHTTP(t, cmd)
	if endpoint != resource {
		t.Fatalf("serving at %s, not %s", endpoint, resource)
	}

	writer := oauthClient(t, dir, endpoint, "writer", "create_token", `{}`)
	fetched, _ := json.Marshal(writer["fetched"])
	for _, want := range []string{
		"POST " + endpoint,
		"GET http://" + addr + "/.well-known/oauth-protected-resource/mcp",
		"GET " + issuer + "/.well-known/openid-configuration",
		"POST " + issuer + "/token",
	} {
		if !strings.Contains(string(fetched), `"`+want) {
			t.Errorf("the SDK did not fetch %s; it fetched %s", want, fetched)
		}
	}
	authorize, _ := writer["authorize"].(map[string]any)
	if authorize["scope"] != "mcp:read mcp:write" || authorize["resource"] != resource {
		t.Errorf("the SDK asked for %v, want scope mcp:read mcp:write for resource %s", authorize, resource)
	}
	created, _ := json.Marshal(writer["results"])
	tokenID := uuidPattern.FindString(string(created))
	if tokenID == "" || strings.Contains(string(created), `"isError":true`) {
		t.Fatalf("create_token with mcp:write answered %s", created)
	}

	reader := oauthClient(t, dir, endpoint, "reader", "get_token", `{"token_id":"`+tokenID+`"}`, "create_token", `{}`)
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

	// A token of the same issuer for another resource.
	form := url.Values{"grant_type": {"client_credentials"}, "scope": {"mcp:read mcp:write"}, "aud": {"http://127.0.0.1:1/mcp"}}
	resp, err := http.PostForm(issuer+"/token", form)
	if err != nil {
		t.Fatal(err)
	}
	var granted struct {
		AccessToken string `json:"access_token"`
	}
	err = json.NewDecoder(resp.Body).Decode(&granted)
	resp.Body.Close()
	if err != nil || granted.AccessToken == "" {
		t.Fatalf("the issuer's token endpoint: %v", err)
	}
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer "+granted.AccessToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if challenge := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 || !strings.Contains(challenge, `error="invalid_token"`) || !strings.Contains(challenge, "another audience") {
		t.Errorf("a token for another audience: HTTP %d, WWW-Authenticate %q", resp.StatusCode, challenge)
	}
	mcptest.Stop(t, cmd)
}
