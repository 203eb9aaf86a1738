package main

import (
	"net/http"
	"testing"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestOTLPCollector runs the built binary over Streamable HTTP with its
// telemetry sent to the OpenTelemetry Collector's own OTLP receiver
// (scripts/otelcol; scripts/e2e builds it and sets OTEL_COLLECTOR_RECEIVER):
// a query answered, one refused by validation before anything is sent, and
// one the endpoint fails with a 500 each arrive as a span with the tool's
// name, outcome and upstream status, and are counted in the metrics, with
// neither the operations, the call's header value nor the GRAPHQL_HEADERS
// credential in what the Collector decoded.
func TestOTLPCollector(t *testing.T) {
	const startupSecret = "Bearer otel-startup-secret-7e21"
	const callHeader = "otel-call-header-value-94ab"
	starwars := testservers.Starwars()
	api, _ := testservers.Start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Fail") != "" {
			http.Error(w, "failing as asked", http.StatusInternalServerError)
			return
		}
		starwars.ServeHTTP(w, r)
	}))
	mcptest.CheckOTLPCollector(t, mcptest.OTelCheck{
		Binary: binary,
		Args:   []string{"--endpoint", api.URL},
		Env:    []string{`GRAPHQL_HEADERS={"Authorization": "` + startupSecret + `"}`},
		Calls: []mcptest.OTelCall{
			{Tool: "graphql_query", Args: map[string]any{"query": "query OtelHeroName { hero { name } }"}, Outcome: "ok", UpstreamStatus: 200},
			// The schema is cached by now: validation sends nothing.
			{Tool: "graphql_query", Args: map[string]any{"query": "query OtelMisspelt { hero { nmae } }"}, Outcome: "tool_error"},
			{Tool: "graphql_query", Args: map[string]any{"query": "query OtelUpstreamFails { hero { name } }", "headers": map[string]any{"X-Fail": callHeader}},
				Outcome: "tool_error", UpstreamStatus: 500},
		},
		Secrets: []string{startupSecret, callHeader, api.URL},
	})
}
