package app

import (
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"strings"
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

// keepBody is a transport that keeps what the SDK's exporter posts, so
// that a fuzz run compares encodings without a socket per input.
type keepBody struct{ body []byte }

func (k *keepBody) RoundTrip(r *http.Request) (*http.Response, error) {
	k.body, _ = io.ReadAll(r.Body)
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(nil)), Request: r}, nil
}

// fixedIDs gives every span the same IDs, so that the spans made twice
// for one input are alike.
type fixedIDs struct{}

func (fixedIDs) NewIDs(context.Context) (trace.TraceID, trace.SpanID) {
	return trace.TraceID{7, 7}, trace.SpanID{3}
}

func (fixedIDs) NewSpanID(context.Context, trace.TraceID) trace.SpanID { return trace.SpanID{4} }

// FuzzOTLPSpans: any strings and numbers a span can carry (its name, an
// attribute of each type, an event, a link's attribute, a status, the
// resource's and scope's attributes) are written as a message protobuf's
// own decoder reads, equal to what the SDK's exporter sends. A string that
// is not UTF-8, which the SDK's exporter cannot send at all (protobuf
// refuses it, and the whole batch is lost), is written with U+FFFD in its
// bad bytes' place, as the SDK's message for the repaired string.
func FuzzOTLPSpans(f *testing.F) {
	f.Add("tools/call ping", "gen_ai.tool.name", "ping", "an event", "tool_error", int64(-7), 0.5, true, uint8(2))
	f.Add("\xff\xfe", "k\x80", strings.Repeat("é", 300), "", "\xc3", int64(0), -0.0, false, uint8(0))
	f.Fuzz(func(t *testing.T, name, key, value, event, description string, n int64, x float64, b bool, code uint8) {
		fix := func(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
		spans := func(fix func(string) string) []sdktrace.ReadOnlySpan {
			k := fix(key)
			if k == "" {
				k = "k"
			}
			attrs := []attribute.KeyValue{attribute.String(k, fix(value)), attribute.Int64(k+"n", n), attribute.Float64(k+"f", x), attribute.Bool(k+"b", b),
				attribute.StringSlice(k+"ss", []string{fix(value), fix(name)}), attribute.Int64Slice(k+"is", []int64{n})}
			res := resource.NewWithAttributes("", attribute.String("service.name", fix(name)), attrs[0])
			recorder := tracetest.NewSpanRecorder()
			provider := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder), sdktrace.WithResource(res), sdktrace.WithIDGenerator(fixedIDs{}))
			tracer := provider.Tracer(fix(name), trace.WithInstrumentationVersion(fix(value)), trace.WithInstrumentationAttributes(attrs[1]))
			remote := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}, Remote: true})
			_, span := tracer.Start(context.Background(), fix(name), trace.WithAttributes(attrs...), trace.WithLinks(trace.Link{SpanContext: remote, Attributes: attrs[:1]}),
				trace.WithTimestamp(time.Unix(0, n&(1<<62-1))))
			span.AddEvent(fix(event), trace.WithAttributes(attrs[2:]...), trace.WithTimestamp(time.Unix(1, 0)))
			span.SetStatus(codes.Code(code%3), fix(description))
			span.End(trace.WithTimestamp(time.Unix(2, 0)))
			return recorder.Ended()
		}
		written := spansRequest(spans(func(s string) string { return s }))
		sent := &keepBody{}
		exporter, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL("http://collector.invalid/v1/traces"),
			otlptracehttp.WithHTTPClient(&http.Client{Transport: sent}), otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
		if err != nil {
			t.Fatal(err)
		}
		if err := exporter.ExportSpans(context.Background(), spans(fix)); err != nil {
			t.Fatal(err)
		}
		sameAsSDK(t, "spans", written, sent.body, &tracepb.ExportTraceServiceRequest{}, &tracepb.ExportTraceServiceRequest{}, nil)
	})
}

// FuzzOTLPMetrics: any names, units, descriptions, attribute values and
// measurements of the kinds this server records (counters, a gauge,
// histograms of both number types, with exemplars) are written as the
// SDK's exporter sends them, strings that are not UTF-8 repaired.
func FuzzOTLPMetrics(f *testing.F) {
	f.Add("tools.calls", "{call}", "calls", "ping", int64(2), 0.5, 1.0)
	f.Add("d\xff", "\x80", "", "\xc3", int64(-1), -0.0, 1e300)
	f.Fuzz(func(t *testing.T, name, unit, description, value string, n int64, x, bound float64) {
		fix := func(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
		collect := func(fix func(string) string) *metricdata.ResourceMetrics {
			ctx := context.Background()
			reader := sdkmetric.NewManualReader()
			provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithResource(resource.NewWithAttributes("", attribute.String("service.name", fix(value)))))
			meter := provider.Meter(fix(name))
			sampled := trace.ContextWithSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{9}, SpanID: trace.SpanID{8}, TraceFlags: trace.FlagsSampled}))
			attrs := metric.WithAttributes(attribute.String("k", fix(value)), attribute.Int64("n", n))
			// Instrument names the SDK refuses are its own business: the
			// fuzzed name goes where any string may.
			counter, _ := meter.Int64Counter("c", metric.WithUnit(fix(unit)), metric.WithDescription(fix(description)))
			counter.Add(sampled, max(n, 0)&(1<<62-1), attrs)
			gauge, _ := meter.Float64Gauge("g")
			gauge.Record(ctx, x, attrs)
			boundaries := []float64{0}
			if !math.IsNaN(bound) && !math.IsInf(bound, 0) && bound > 0 {
				boundaries = append(boundaries, bound)
			}
			histogram, _ := meter.Float64Histogram("h", metric.WithExplicitBucketBoundaries(boundaries...), metric.WithUnit(fix(unit)))
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				histogram.Record(sampled, x, attrs)
			}
			ints, _ := meter.Int64Histogram("i")
			ints.Record(ctx, n, attrs)
			var rm metricdata.ResourceMetrics
			if err := reader.Collect(ctx, &rm); err != nil {
				t.Fatal(err)
			}
			return &rm
		}
		written, err := metricsRequest(collect(func(s string) string { return s }))
		if err != nil {
			t.Fatal(err)
		}
		sent := &keepBody{}
		exporter, err := otlpmetrichttp.New(context.Background(), otlpmetrichttp.WithEndpointURL("http://collector.invalid/v1/metrics"),
			otlpmetrichttp.WithHTTPClient(&http.Client{Transport: sent}), otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: false}))
		if err != nil {
			t.Fatal(err)
		}
		if err := exporter.Export(context.Background(), collect(fix)); err != nil {
			t.Fatal(err)
		}
		// Exemplars and points carry the time they were made: the two
		// collections were made apart.
		sameAsSDK(t, "metrics", written, sent.body, &metricspb.ExportMetricsServiceRequest{}, &metricspb.ExportMetricsServiceRequest{}, clearTimes)
	})
}

// sameAsSDK decodes what this server wrote into got and what the SDK's
// exporter sent into want, and reports where they differ once clean, when
// given, has cleared what may.
func sameAsSDK[M proto.Message](t *testing.T, what string, written, sent []byte, got, want M, clean func(M)) {
	t.Helper()
	if err := proto.Unmarshal(written, got); err != nil {
		t.Fatalf("protobuf cannot read the %s written: %v", what, err)
	}
	if err := proto.Unmarshal(sent, want); err != nil {
		t.Fatal(err)
	}
	if clean != nil {
		clean(got)
		clean(want)
	}
	if !proto.Equal(got, want) {
		t.Errorf("%s written:\n%v\nthe SDK's exporter sends:\n%v", what, prototext.Format(got), prototext.Format(want))
	}
}

// clearTimes zeroes the times of every point and exemplar of m.
func clearTimes(m *metricspb.ExportMetricsServiceRequest) {
	for _, rm := range m.ResourceMetrics {
		for _, sm := range rm.ScopeMetrics {
			for _, metric := range sm.Metrics {
				for _, p := range metric.GetSum().GetDataPoints() {
					p.StartTimeUnixNano, p.TimeUnixNano = 0, 0
					for _, e := range p.Exemplars {
						e.TimeUnixNano = 0
					}
				}
				for _, p := range metric.GetGauge().GetDataPoints() {
					p.StartTimeUnixNano, p.TimeUnixNano = 0, 0
				}
				for _, p := range metric.GetHistogram().GetDataPoints() {
					p.StartTimeUnixNano, p.TimeUnixNano = 0, 0
					for _, e := range p.Exemplars {
						e.TimeUnixNano = 0
					}
				}
			}
		}
	}
}
