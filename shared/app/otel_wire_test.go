package app

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	metricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
)

// bodyCatcher keeps the body of the last request posted to it.
type bodyCatcher struct {
	mu   sync.Mutex
	body []byte
}

func (b *bodyCatcher) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	b.mu.Lock()
	b.body = body
	b.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func (b *bodyCatcher) last() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.body
}

// wireResource has attributes of every type a value can be.
func wireResource(t *testing.T) *resource.Resource {
	t.Helper()
	res, err := resource.New(context.Background(), resource.WithSchemaURL("https://opentelemetry.io/schemas/1.26.0"), resource.WithAttributes(
		attribute.String("service.name", "testmcp"), attribute.Bool("b", true), attribute.Int64("i", -7), attribute.Float64("f", 0.5),
		attribute.StringSlice("ss", []string{"x", ""}), attribute.BoolSlice("bs", []bool{false, true}),
		attribute.Int64Slice("is", []int64{0, 3}), attribute.Float64Slice("fs", []float64{0, -1.5})))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestOTLPWire: the spans and metrics this server writes are, decoded with
// OTLP's generated types, the very messages the SDK's own OTLP/HTTP
// exporters send for them: spans of two scopes, a parent and a child, with
// events, a link to a remote span, each status and attributes of every
// type; sums, a gauge and histograms, of both number types, with exemplars.
func TestOTLPWire(t *testing.T) {
	ctx := context.Background()
	catcher := &bodyCatcher{}
	collector := httptest.NewServer(catcher)
	defer collector.Close()
	res := wireResource(t)
	attrs := []attribute.KeyValue{attribute.String("s", "v"), attribute.Int("n", 3), attribute.Bool("ok", false), attribute.Float64Slice("fs", []float64{1, 2})}

	t.Run("spans", func(t *testing.T) {
		recorder := tracetest.NewSpanRecorder()
		provider := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder), sdktrace.WithResource(res))
		first := provider.Tracer("first", trace.WithInstrumentationVersion("v1.2.3"), trace.WithSchemaURL("https://opentelemetry.io/schemas/1.26.0"))
		second := provider.Tracer("second", trace.WithInstrumentationAttributes(attribute.String("scope", "attr")))
		remote := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5}, TraceFlags: trace.FlagsSampled, Remote: true})
		parentCtx, parent := first.Start(ctx, "tools/call ping", trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...),
			trace.WithLinks(trace.Link{SpanContext: remote, Attributes: attrs[:1]}))
		parent.AddEvent("an event", trace.WithAttributes(attrs[1:]...), trace.WithTimestamp(time.Unix(1700000000, 5)))
		_, child := second.Start(parentCtx, "GET upstream", trace.WithSpanKind(trace.SpanKindClient))
		child.SetStatus(codes.Ok, "")
		child.End()
		parent.SetStatus(codes.Error, "tool_error")
		parent.End()
		_, fromRemote := first.Start(trace.ContextWithRemoteSpanContext(ctx, remote), "from a remote parent")
		fromRemote.End()
		spans := recorder.Ended()

		exporter, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(collector.URL+"/v1/traces"))
		if err != nil {
			t.Fatal(err)
		}
		if err := exporter.ExportSpans(ctx, spans); err != nil {
			t.Fatal(err)
		}
		var want, got tracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(catcher.last(), &want); err != nil {
			t.Fatal(err)
		}
		if err := proto.Unmarshal(spansRequest(spans), &got); err != nil {
			t.Fatalf("the spans written do not decode: %v", err)
		}
		if len(want.ResourceSpans) != 1 || len(want.ResourceSpans[0].ScopeSpans) != 2 {
			t.Fatalf("the SDK's request is not of one resource and two scopes: %v", prototext.Format(&want))
		}
		if !proto.Equal(&got, &want) {
			t.Errorf("spans written:\n%v\nthe SDK's exporter sends:\n%v", prototext.Format(&got), prototext.Format(&want))
		}
	})

	t.Run("metrics", func(t *testing.T) {
		reader := sdkmetric.NewManualReader()
		provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithResource(res))
		meter := provider.Meter("meter", metric.WithInstrumentationVersion("v1"))
		// A sampled span, so that measurements made within it keep
		// exemplars.
		sampled := trace.ContextWithSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{9}, SpanID: trace.SpanID{8}, TraceFlags: trace.FlagsSampled}))
		counter, _ := meter.Int64Counter("calls", metric.WithUnit("{call}"), metric.WithDescription("calls"))
		counter.Add(sampled, 2, metric.WithAttributes(attrs...))
		counter.Add(ctx, 1)
		floats, _ := meter.Float64UpDownCounter("level")
		floats.Add(ctx, -0.25)
		gauge, _ := meter.Int64Gauge("gauge")
		gauge.Record(ctx, 0)
		fgauge, _ := meter.Float64Gauge("fgauge")
		fgauge.Record(sampled, 0)
		histogram, _ := meter.Float64Histogram("duration", metric.WithUnit("s"), metric.WithExplicitBucketBoundaries(0.1, 1, 10))
		histogram.Record(sampled, 0.5, metric.WithAttributes(attrs[:2]...))
		histogram.Record(ctx, 20)
		ints, _ := meter.Int64Histogram("sizes")
		ints.Record(ctx, 0)
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(ctx, &rm); err != nil {
			t.Fatal(err)
		}

		exporter, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(collector.URL+"/v1/metrics"))
		if err != nil {
			t.Fatal(err)
		}
		if err := exporter.Export(ctx, &rm); err != nil {
			t.Fatal(err)
		}
		var want, got metricspb.ExportMetricsServiceRequest
		if err := proto.Unmarshal(catcher.last(), &want); err != nil {
			t.Fatal(err)
		}
		written, err := metricsRequest(&rm)
		if err != nil {
			t.Fatal(err)
		}
		if err := proto.Unmarshal(written, &got); err != nil {
			t.Fatalf("the metrics written do not decode: %v", err)
		}
		if n := len(want.ResourceMetrics[0].ScopeMetrics[0].Metrics); n != 6 {
			t.Fatalf("the SDK's request holds %d metrics, want 6: %v", n, prototext.Format(&want))
		}
		if !proto.Equal(&got, &want) {
			t.Errorf("metrics written:\n%v\nthe SDK's exporter sends:\n%v", prototext.Format(&got), prototext.Format(&want))
		}
	})
}
