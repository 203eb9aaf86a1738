package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	tracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
)

// TestTelemetryExport runs the built binary over stdio with
// OTEL_EXPORTER_OTLP_ENDPOINT set to an OTLP/HTTP receiver that decodes
// with OTLP's own protobuf definitions: a graphql_query call arrives as a
// span named for the tool, with the endpoint's status, and without the
// query, the endpoint's URL or the GRAPHQL_HEADERS credential.
func TestTelemetryExport(t *testing.T) {
	const secret = "Bearer otel-e2e-secret-0123456789"
	var mu sync.Mutex
	var spans []string
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/v1/traces" {
			var req tracepb.ExportTraceServiceRequest
			if err := proto.Unmarshal(body, &req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			mu.Lock()
			for _, rs := range req.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					for _, s := range ss.Spans {
						text := s.Name
						for _, a := range s.Attributes {
							value := a.Value.GetStringValue()
							if _, isInt := a.Value.Value.(*commonpb.AnyValue_IntValue); isInt {
								value = fmt.Sprint(a.Value.GetIntValue())
							}
							text += " " + a.Key + "=" + value
						}
						spans = append(spans, text)
					}
				}
			}
			mu.Unlock()
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer collector.Close()
	api, _ := testservers.Start(t, testservers.Starwars())

	cmd := exec.Command(binary, "-e", api.URL)
	cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT="+collector.URL, "OTEL_METRICS_EXPORTER=none",
		`GRAPHQL_HEADERS={"Authorization": "`+secret+`"}`)
	session, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "graphql_query", Arguments: map[string]any{"query": "{ hero { name } }"}})
	if err != nil || res.IsError {
		t.Fatalf("graphql_query: %v %+v", err, res)
	}
	session.Close() // the process ends and flushes its spans
	_ = cmd.Wait()

	mu.Lock()
	defer mu.Unlock()
	if len(spans) != 1 || !strings.HasPrefix(spans[0], "tools/call graphql_query ") {
		t.Fatalf("spans %q, want one named tools/call graphql_query", spans)
	}
	for _, want := range []string{" http.response.status_code=200 ", " mcp.tool.outcome=ok "} {
		if !strings.Contains(spans[0]+" ", want) {
			t.Errorf("the span lacks %s: %s", want, spans[0])
		}
	}
	for _, leak := range []string{"hero", api.URL, strings.TrimPrefix(api.URL, "http://"), "otel-e2e-secret"} {
		if strings.Contains(spans[0], leak) {
			t.Errorf("the span holds %q: %s", leak, spans[0])
		}
	}
}
