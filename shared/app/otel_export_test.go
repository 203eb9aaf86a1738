package app

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	metricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP receiver: it decodes what the exporters send
// with OTLP's own protobuf definitions (go.opentelemetry.io/proto/otlp),
// as a collector's otlp receiver does.
type otlpReceiver struct {
	mu      sync.Mutex
	traces  []*tracepb.ExportTraceServiceRequest
	metrics []*metricspb.ExportMetricsServiceRequest
	auth    []string
}

func (o *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want a protobuf body", http.StatusUnsupportedMediaType)
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.auth = append(o.auth, r.Header.Get("Authorization"))
	switch r.URL.Path {
	case "/v1/traces":
		var req tracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		o.traces = append(o.traces, &req)
	case "/v1/metrics":
		var req metricspb.ExportMetricsServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		o.metrics = append(o.metrics, &req)
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK)
}

func attrText(attrs []*commonpb.KeyValue) string {
	var parts []string
	for _, a := range attrs {
		parts = append(parts, a.Key+"="+a.Value.String())
	}
	return strings.Join(parts, " ")
}

// TestTelemetryOTLPExport runs a whole server process in-process with the
// standard variables pointing at an OTLP/HTTP receiver: the spans and the
// metrics of its tool calls arrive there, under the service's name, with
// the collector's credential (OTEL_EXPORTER_OTLP_HEADERS) sent and never
// logged, and flushed when the session ends.
func TestTelemetryOTLPExport(t *testing.T) {
	const collectorAuth = "Bearer otlp-collector-secret-0123"
	receiver := &otlpReceiver{}
	collector := httptest.NewServer(receiver)
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "authorization="+strings.ReplaceAll(collectorAuth, " ", "%20"))
	t.Setenv("OTEL_SERVICE_NAME", "testmcp-replica-1")

	clientToServer, serverIn := io.Pipe()
	serverOut, serverToClient := io.Pipe()
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- Run(context.Background(), testSpec(), []string{"testmcp", "--log-level", "debug"}, Streams{Stdin: clientToServer, Stdout: serverToClient, Stderr: &stderr})
		serverToClient.Close()
	}()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), &mcp.IOTransport{Reader: serverOut, Writer: serverIn}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "ping"}); err != nil {
		t.Fatal(err)
	}
	if _, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool"}); err == nil {
		t.Fatal("an unknown tool was called")
	}
	session.Close()
	if code := <-done; code != exitOK {
		t.Fatalf("exit code %d; stderr %s", code, stderr.String())
	}

	receiver.mu.Lock()
	defer receiver.mu.Unlock()
	var spans []string
	for _, req := range receiver.traces {
		for _, rs := range req.ResourceSpans {
			if !strings.Contains(attrText(rs.Resource.Attributes), `service.name=string_value:"testmcp-replica-1"`) {
				t.Errorf("resource %s: want OTEL_SERVICE_NAME's service.name", attrText(rs.Resource.Attributes))
			}
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					spans = append(spans, s.Name+" "+attrText(s.Attributes))
				}
			}
		}
	}
	if len(spans) != 2 || !strings.HasPrefix(spans[0], "tools/call ping ") || !strings.Contains(spans[0], `mcp.tool.outcome=string_value:"ok"`) ||
		!strings.HasPrefix(spans[1], "tools/call (unknown) ") || !strings.Contains(spans[1], `mcp.tool.outcome=string_value:"protocol_error"`) {
		t.Errorf("spans received:\n%s\nwant tools/call ping (ok) and tools/call (unknown) (protocol_error)", strings.Join(spans, "\n"))
	}
	metrics := map[string]bool{}
	for _, req := range receiver.metrics {
		for _, rm := range req.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					metrics[m.Name] = true
				}
			}
		}
	}
	for _, name := range []string{"mcp.server.tool.calls", "mcp.server.tool.errors", "mcp.server.tool.duration"} {
		if !metrics[name] {
			t.Errorf("metric %s not received; got %v", name, metrics)
		}
	}
	for _, auth := range receiver.auth {
		if auth != collectorAuth {
			t.Errorf("an export came with Authorization %q, want OTEL_EXPORTER_OTLP_HEADERS's", auth)
		}
	}
	if strings.Contains(stderr.String(), "otlp-collector-secret") {
		t.Errorf("the collector's credential is in the log: %s", stderr.String())
	}
}
