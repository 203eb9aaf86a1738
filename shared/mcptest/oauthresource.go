package mcptest

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// StartOAuthResource starts a server binary over HTTP as an OAuth resource
// server on a free loopback port: command makes its process from the
// address to listen on and the resource URL it must serve at (its
// --listen and --oauth-resource). It returns the process, for Stop, and
// the endpoint, which must be the resource URL: a client's token names it
// as its audience.
func StartOAuthResource(t *testing.T, command func(addr, resource string) *exec.Cmd) (*exec.Cmd, string) {
	t.Helper()
	addr := FreeLoopbackAddr(t)
	resource := "http://" + addr + "/mcp"
	cmd := command(addr, resource)
	endpoint := StartHTTP(t, cmd)
	if endpoint != resource {
		t.Fatalf("serving at %s, not %s", endpoint, resource)
	}
	return cmd, endpoint
}

// OAuthResults are the results of an OAuthClient run's calls, each as its
// JSON, after checking that the client was granted scope and made n calls.
func OAuthResults(t *testing.T, run map[string]any, scope string, n int) []string {
	t.Helper()
	results, _ := run["results"].([]any)
	if run["tokenScope"] != scope || len(results) != n {
		t.Fatalf("the client was granted %v and got %v; want %s and %d results", run["tokenScope"], run["results"], scope, n)
	}
	out := make([]string, n)
	for i, r := range results {
		text, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(text)
	}
	return out
}

// IsErrorResult says whether a tool result's JSON is a tool error.
func IsErrorResult(result string) bool {
	return strings.Contains(result, `"isError":true`)
}

// CheckOAuthRefusals fails t unless the resource server at endpoint
// refuses with 401 invalid_token a token issuer gives for another audience,
// and every token CheckOAuthBadTokens tries.
func CheckOAuthRefusals(t *testing.T, issuer, endpoint string) {
	t.Helper()
	other := OAuthTokenFor(t, issuer, "mcp:read mcp:write", "http://127.0.0.1:1/mcp")
	status, challenge := PostMCP(t, endpoint, other, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if status != 401 || !strings.Contains(challenge, `error="invalid_token"`) || !strings.Contains(challenge, "another audience") {
		t.Errorf("a token for another audience: HTTP %d, WWW-Authenticate %q", status, challenge)
	}
	CheckOAuthBadTokens(t, issuer, endpoint)
}
