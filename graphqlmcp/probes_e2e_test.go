package main

import (
	"net/http"
	"os"
	"os/exec"
	"testing"

	"github.com/mcpforge/servers/shared/mcptest"
)

// TestReadyz runs the built binary over HTTP with a bearer token required:
// /readyz answers without the token, 200 while the endpoint answers (a 401
// included: reachable) and 503 once it answers 5xx; its probe is a POST of
// { __typename } that carries none of the GRAPHQL_HEADERS credentials.
// /healthz stays 200 either way.
func TestReadyz(t *testing.T) {
	const secret = "Bearer readyz-secret-0123456789"
	mcptest.CheckReadyz(t, mcptest.Readiness{
		Command: func(endpoint string) *exec.Cmd {
			cmd := exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "-e", endpoint)
			cmd.Env = append(os.Environ(), "GRAPHQL_HTTP_TOKEN=0123456789abcdef0123", `GRAPHQL_HEADERS={"Authorization": "`+secret+`"}`)
			return cmd
		},
		Secret: secret,
		Up:     http.StatusUnauthorized,
		Down:   http.StatusServiceUnavailable,
		CheckProbe: func(t *testing.T, probe mcptest.ProbeRequest) {
			if probe.Method != "POST" || probe.Body != `{"query":"{ __typename }"}` || probe.Header.Get("Authorization") != "" {
				t.Errorf("the endpoint saw %+v, want one POST of { __typename } with no Authorization", probe)
			}
		},
	})
}
