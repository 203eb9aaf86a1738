package upstream

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpforge/servers/shared/httpx"
)

// TestCredentialsAdvice: a 401 or 403 says where the refused credentials
// came from and how to pass them: over stdio (or to another origin) the
// startup headers and the call's, never --forward-header, which does
// nothing there; over HTTP --forward-header too, and, when it is set,
// whether the client's request carried the headers it names.
func TestCredentialsAdvice(t *testing.T) {
	for _, c := range []struct {
		forward   Forward
		want      string
		forwardIn bool
	}{
		{NotForwarding, "The endpoint refused the credentials: check the Authorization header (--headers or GRAPHQL_HEADERS when starting graphqlmcp, or headers in the call)", false},
		{StartupWithheld, "The endpoint refused the credentials: check the headers in the call; graphqlmcp's startup headers (--headers or GRAPHQL_HEADERS) go only to the default endpoint's origin, so none were sent to this one", false},
		{ForwardingOff, "The endpoint refused the credentials: check the Authorization header (--headers or GRAPHQL_HEADERS when starting graphqlmcp, headers in the call, or --forward-header to send on each MCP client's own)", true},
		{ForwardedNone, "The endpoint refused the credentials: your MCP client's HTTP request carries none of the headers --forward-header names, so none was sent on: configure the client to send them, or check --headers or GRAPHQL_HEADERS when starting graphqlmcp", true},
		{Forwarded, "The endpoint refused the credentials: check the headers your MCP client sends, which graphqlmcp sends on (--forward-header), and --headers or GRAPHQL_HEADERS when starting graphqlmcp", true},
	} {
		for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
			req := Request{Target: Target{URL: &url.URL{Scheme: "https", Host: "api.example.com", Path: "/graphql"}, IsDefault: true}, Forward: c.forward}
			answer := &httpx.Answer{Status: status, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"errors":"Invalid API key"}`)}
			for _, text := range []string{notGraphQL(req, answer, answer.Body).Said(), AsSchemaFetch(notGraphQL(req, answer, answer.Body)).Error()} {
				if !strings.Contains(text, ". "+c.want+"\n") && !strings.HasSuffix(text, ". "+c.want) {
					t.Errorf("forward %d, HTTP %d:\n%s\nwant the advice %q", c.forward, status, text, c.want)
				}
				if strings.Contains(text, "--forward-header") != c.forwardIn {
					t.Errorf("forward %d: names --forward-header: %v, want %v: %s", c.forward, !c.forwardIn, c.forwardIn, text)
				}
			}
		}
	}
}
