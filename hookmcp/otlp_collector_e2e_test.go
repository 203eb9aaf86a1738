package main

import (
	"net/http/httptest"
	"testing"

	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestOTLPCollector runs the built binary over Streamable HTTP with its
// telemetry sent to the OpenTelemetry Collector's own OTLP receiver
// (scripts/otelcol; scripts/e2e builds it and sets OTEL_COLLECTOR_RECEIVER):
// a token created, a request id refused before anything is sent, and a
// token the API does not know (404) each arrive as a span with the tool's
// name, outcome and upstream status, and are counted in the metrics, with
// neither the arguments nor the API key in what the Collector decoded.
func TestOTLPCollector(t *testing.T) {
	const key = "otel-api-key-0c5e93d1"
	api := httptest.NewServer(fakehooksvc.New(fakehooksvc.Options{APIKeys: []string{key}}))
	t.Cleanup(api.Close)
	mcptest.CheckOTLPCollector(t, mcptest.OTelCheck{
		Binary: binary,
		Args:   []string{"--api-url", api.URL, "--socket-url", "off"},
		Env:    []string{"HOOKSVC_API_KEY=" + key},
		Calls: []mcptest.OTelCall{
			{Tool: "create_token", Args: map[string]any{"default_content": "otel-default-content-51f0"}, Outcome: "ok", UpstreamStatus: 201},
			{Tool: "get_request", Args: map[string]any{"token_id": "3a0e7b52-9c41-4d1e-8f6a-2b7c9d0e1f35", "request_id": "otel-not-a-request-id"}, Outcome: "tool_error"},
			{Tool: "get_token", Args: map[string]any{"token_id": "6b1f8c63-ad52-4e2f-9a7b-3c8dae1f2a46"}, Outcome: "tool_error", UpstreamStatus: 404},
		},
		Secrets: []string{key, api.URL},
	})
}
