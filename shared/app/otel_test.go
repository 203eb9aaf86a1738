package app

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime/pprof"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/redact"
)

const telemetrySecret = "sk_live_4f9a0c7e2b1d"

// telemetryServer is a server with the tools the outcomes need: one that
// reads an upstream (a 503 with a 12-byte body, which it reports as a tool
// error), and one that succeeds.
func telemetryServer(t *testing.T) *mcp.Server {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("down for now"))
	}))
	t.Cleanup(upstream.Close)
	target, _ := url.Parse(upstream.URL + "/v1?key=" + telemetrySecret)
	caller := &httpx.Caller{HTTP: upstream.Client(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	server := mcp.NewServer(&mcp.Implementation{Name: "testmcp", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "fetch"}, func(ctx context.Context, _ *mcp.CallToolRequest, args struct {
		Q string `json:"q"`
	}) (*mcp.CallToolResult, any, error) {
		answer, err := caller.Do(ctx, httpx.Outbound{Method: http.MethodGet, URL: target, Header: http.Header{"Authorization": {"Bearer " + telemetrySecret}}, MaxBytes: 1 << 10, Redactor: redact.New(telemetrySecret)})
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{IsError: answer.Status >= 400, Content: []mcp.Content{&mcp.TextContent{Text: "upstream said " + string(answer.Body)}}}, nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "ping"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil, nil
	})
	return server
}

// TestTelemetryToolCalls drives a server through a real client session with
// the telemetry middleware on in-process exporters: each tools/call is one
// server span named for its tool, with the outcome (ok, tool error,
// protocol error) and the upstream's status, and the counters, the latency
// histogram and the upstream bytes add up; no argument, header, URL or
// answer text reaches a span.
func TestTelemetryToolCalls(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tracerProvider := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	meterProvider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	tel, err := newTelemetry(tracerProvider, meterProvider, "v-test")
	if err != nil {
		t.Fatal(err)
	}
	server := telemetryServer(t)
	server.AddReceivingMiddleware(tel.middleware)
	ctx := context.Background()
	clientEnd, serverEnd := mcp.NewInMemoryTransports()
	serverSession, err := server.Connect(ctx, serverEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer serverSession.Close()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()

	for _, call := range []struct {
		name     string
		args     any
		wantErr  bool
		wantTool bool
	}{
		{"ping", nil, false, false},
		{"ping", nil, false, false},
		{"fetch", map[string]any{"q": telemetrySecret}, false, true},
		{"nonexistent_" + telemetrySecret[:6], nil, true, false},
	} {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: call.name, Arguments: call.args})
		if (err != nil) != call.wantErr || (err == nil && res.IsError != call.wantTool) {
			t.Fatalf("%s: err %v, result %+v", call.name, err, res)
		}
	}

	type spanWant struct {
		name, tool, outcome string
		status              int64
	}
	var got []spanWant
	for _, span := range spans.Ended() {
		attrs := attribute.NewSet(span.Attributes()...)
		tool, _ := attrs.Value(attrTool)
		outcome, _ := attrs.Value(attrOutcome)
		status, _ := attrs.Value(attrStatus)
		got = append(got, spanWant{span.Name(), tool.AsString(), outcome.AsString(), status.AsInt64()})
		if span.SpanKind().String() != "server" {
			t.Errorf("span %s is of kind %s, want server", span.Name(), span.SpanKind())
		}
		var text strings.Builder
		text.WriteString(span.Name() + span.Status().Description)
		for _, a := range span.Attributes() {
			text.WriteString(string(a.Key) + "=" + a.Value.Emit() + " ")
		}
		for _, e := range span.Events() {
			text.WriteString(e.Name)
		}
		for _, leak := range []string{telemetrySecret, "down for now", "upstream said", "127.0.0.1", "Bearer"} {
			if strings.Contains(text.String(), leak) {
				t.Errorf("span %s holds %q: %s", span.Name(), leak, text.String())
			}
		}
	}
	want := []spanWant{
		{"tools/call ping", "ping", outcomeOK, 0},
		{"tools/call ping", "ping", outcomeOK, 0},
		{"tools/call fetch", "fetch", outcomeToolError, http.StatusServiceUnavailable},
		{"tools/call (unknown)", "(unknown)", outcomeProtocolError, 0},
	}
	if len(got) != len(want) {
		t.Fatalf("spans %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("span %d: %+v, want %+v", i, got[i], want[i])
		}
	}

	var data metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &data); err != nil {
		t.Fatal(err)
	}
	sums := map[string]int64{}
	histograms := map[string]uint64{}
	for _, scope := range data.ScopeMetrics {
		for _, m := range scope.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					tool, _ := p.Attributes.Value(attrTool)
					outcome, _ := p.Attributes.Value(attrOutcome)
					sums[m.Name+" "+tool.AsString()+" "+outcome.AsString()] += p.Value
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					tool, _ := p.Attributes.Value(attrTool)
					histograms[m.Name+" "+tool.AsString()] += p.Count
				}
			}
		}
	}
	for key, want := range map[string]int64{
		"mcp.server.tool.calls ping ok":                           2,
		"mcp.server.tool.calls fetch tool_error":                  1,
		"mcp.server.tool.calls (unknown) protocol_error":          1,
		"mcp.server.tool.errors fetch tool_error":                 1,
		"mcp.server.tool.errors (unknown) protocol_error":         1,
		"mcp.server.tool.errors ping ok":                          0,
		"mcp.server.upstream.response.bytes fetch ":               int64(len("down for now")),
		"mcp.server.upstream.response.bytes ping ":                0,
		"mcp.server.tool.calls nonexistent_sk_liv protocol_error": 0,
	} {
		if sums[key] != want {
			t.Errorf("%s = %d, want %d (all: %v)", key, sums[key], want, sums)
		}
	}
	if histograms["mcp.server.tool.duration ping"] != 2 || histograms["mcp.server.tool.duration fetch"] != 1 {
		t.Errorf("latency histogram counts %v, want ping 2 and fetch 1", histograms)
	}
}

// TestTelemetryOffUnlessAsked: with no OTEL_* variable, with
// OTEL_SDK_DISABLED=true, or with both exporters none, there is no
// telemetry: nil, so no middleware is added and no exporter goroutine
// runs. The same check finds the exporters' goroutines once an endpoint is
// set, so it could fail.
func TestTelemetryOffUnlessAsked(t *testing.T) {
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	otelGoroutines := func() int {
		var b bytes.Buffer
		_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
		return strings.Count(b.String(), "go.opentelemetry.io/otel/sdk")
	}
	for name, env := range map[string]map[string]string{
		"unset":    {},
		"disabled": {"OTEL_SDK_DISABLED": "TRUE", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_TRACES_EXPORTER": "otlp"},
		"none":     {"OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"},
	} {
		tel, err := telemetryFromEnv(ctx, func(k string) string { return env[k] }, "testmcp", "v", logger)
		if tel != nil || err != nil {
			t.Errorf("%s: telemetry %v, error %v; want none", name, tel, err)
		}
		if n := otelGoroutines(); n != 0 {
			t.Errorf("%s: %d goroutines of the OpenTelemetry SDK run", name, n)
		}
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	tel, err := telemetryFromEnv(ctx, func(k string) string {
		return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}[k]
	}, "testmcp", "v", logger)
	if tel == nil || err != nil {
		t.Fatalf("with an endpoint: telemetry %v, error %v", tel, err)
	}
	if otelGoroutines() == 0 {
		t.Error("with an endpoint, no goroutine of the SDK runs: the check above proves nothing")
	}
	stop, cancel := context.WithTimeout(ctx, telemetryShutdownWait)
	defer cancel()
	_ = tel.shutdown(stop)
}

// TestTelemetryEnvRefused: a variable this server cannot follow stops it
// with the variable, the rule and the fix.
func TestTelemetryEnvRefused(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, `OTEL_TRACES_EXPORTER must be otlp or none; got "zipkin". For example OTEL_TRACES_EXPORTER=otlp`},
		{map[string]string{"OTEL_METRICS_EXPORTER": "prometheus"}, `OTEL_METRICS_EXPORTER must be otlp or none; got "prometheus"`},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, `OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf, the one OTLP protocol this server sends; got "grpc"`},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be http/protobuf`},
	} {
		_, err := telemetryFromEnv(context.Background(), func(k string) string { return tt.env[k] }, "testmcp", "v", logger)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want one starting %q", tt.env, err, tt.want)
		}
	}
}
