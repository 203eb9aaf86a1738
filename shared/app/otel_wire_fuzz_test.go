package app

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
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
		var got, want tracepb.ExportTraceServiceRequest
		written := spansRequest(spans(func(s string) string { return s }))
		if err := proto.Unmarshal(written, &got); err != nil {
			t.Fatalf("protobuf cannot read the spans written: %v", err)
		}
		sent := &keepBody{}
		exporter, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL("http://collector.invalid/v1/traces"),
			otlptracehttp.WithHTTPClient(&http.Client{Transport: sent}), otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
		if err != nil {
			t.Fatal(err)
		}
		if err := exporter.ExportSpans(context.Background(), spans(fix)); err != nil {
			t.Fatal(err)
		}
		if err := proto.Unmarshal(sent.body, &want); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(&got, &want) {
			t.Errorf("spans written:\n%v\nthe SDK's exporter sends:\n%v", prototext.Format(&got), prototext.Format(&want))
		}
	})
}
