package main

import (
	"net/http"
	"os"
	"os/exec"
	"testing"

	"github.com/mcpforge/servers/shared/mcptest"
)

// TestReadyz runs the built binary over HTTP with a bearer token required:
// /readyz answers without the token, 200 while the capture API answers
// (any status below 500) and 503 once it answers 5xx; its probe is a GET
// of the API's base URL that carries no API key. /healthz stays 200.
func TestReadyz(t *testing.T) {
	const key = "0f8fad5b-d9cb-469f-a165-70867728950e"
	mcptest.CheckReadyz(t, mcptest.Readiness{
		Command: func(api string) *exec.Cmd {
			cmd := exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "--socket-url", "off")
			cmd.Env = append(os.Environ(), "HOOKSVC_HTTP_TOKEN=0123456789abcdef0123", "HOOKSVC_API_KEY="+key, "HOOKSVC_API_URL="+api)
			return cmd
		},
		Secret: key,
		Up:     http.StatusNotFound,
		Down:   http.StatusBadGateway,
		CheckProbe: func(t *testing.T, probe mcptest.ProbeRequest) {
			if probe.Method != "GET" || probe.URI != "/" {
				t.Errorf("the API saw %+v, want one GET /", probe)
			}
		},
	})
}
