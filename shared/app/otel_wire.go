package app

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/encoding/protowire"
)

// The OTLP messages this server sends, written in protobuf's wire format
// field by field, as OTLP's .proto files number them
// (opentelemetry/proto/{common,resource,trace,metrics}/v1): the generated
// types would link protobuf's runtime and its descriptors, over a MiB of
// memory at start for a feature that is off unless asked for. Fields at
// their zero value are left out, as protobuf writes them, except members of
// a oneof and optional fields, which are written whenever set.
// TestOTLPWire decodes what these write with OTLP's generated types.

// wire appends protobuf fields to a message.
type wire []byte

func (w wire) tag(number protowire.Number, typ protowire.Type) wire {
	return protowire.AppendTag(w, number, typ)
}

// message writes a message field, even an empty one.
func (w wire) message(number protowire.Number, m wire) wire {
	return protowire.AppendBytes(w.tag(number, protowire.BytesType), m)
}

func (w wire) bytes(number protowire.Number, b []byte) wire {
	if len(b) == 0 {
		return w
	}
	return protowire.AppendBytes(w.tag(number, protowire.BytesType), b)
}

func (w wire) string(number protowire.Number, s string) wire {
	if s == "" {
		return w
	}
	return protowire.AppendString(w.tag(number, protowire.BytesType), validUTF8(s))
}

// validUTF8 is s with U+FFFD for each run of bytes that is not UTF-8.
// protobuf's string fields must be UTF-8: a decoder that checks refuses the
// whole request for one bad string (the SDK's exporter could not encode it
// and lost the batch), and a span name or an error's words can hold any
// bytes.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

func (w wire) varint(number protowire.Number, v uint64) wire {
	if v == 0 {
		return w
	}
	return protowire.AppendVarint(w.tag(number, protowire.VarintType), v)
}

func (w wire) fixed64(number protowire.Number, v uint64) wire {
	if v == 0 {
		return w
	}
	return protowire.AppendFixed64(w.tag(number, protowire.Fixed64Type), v)
}

func (w wire) fixed32(number protowire.Number, v uint32) wire {
	if v == 0 {
		return w
	}
	return protowire.AppendFixed32(w.tag(number, protowire.Fixed32Type), v)
}

// double writes a double that is set (a oneof member, an optional field),
// zero included.
func (w wire) double(number protowire.Number, f float64) wire {
	return protowire.AppendFixed64(w.tag(number, protowire.Fixed64Type), math.Float64bits(f))
}

// number writes a data point's value, a oneof of as_double and as_int
// (sfixed64), whose field numbers differ from message to message.
func number[N int64 | float64](w wire, asDouble, asInt protowire.Number, v N) wire {
	switch v := any(v).(type) {
	case int64:
		return protowire.AppendFixed64(w.tag(asInt, protowire.Fixed64Type), uint64(v))
	case float64:
		return w.double(asDouble, v)
	}
	return w
}

// unixNano is t as OTLP writes a time: nanoseconds since 1970, the zero
// time (and any before 1970) as 0, unset.
func unixNano(t time.Time) uint64 {
	if t.IsZero() || t.UnixNano() < 0 {
		return 0
	}
	return uint64(t.UnixNano())
}

func clamp32(n int) uint64 { return uint64(min(max(n, 0), math.MaxUint32)) }

// keyValues writes attributes as repeated KeyValue (key 1, AnyValue 2).
func (w wire) keyValues(number protowire.Number, attrs ...attribute.KeyValue) wire {
	for _, kv := range attrs {
		w = w.message(number, wire(nil).string(1, string(kv.Key)).message(2, anyValue(kv.Value)))
	}
	return w
}

// anyValue is an AnyValue: string 1, bool 2, int 3, double 4, array 5
// (ArrayValue: repeated AnyValue 1). A oneof: written even when zero.
func anyValue(v attribute.Value) wire {
	var w wire
	array := func(n int, item func(int) attribute.Value) wire {
		var values wire
		for i := range n {
			values = values.message(1, anyValue(item(i)))
		}
		return w.message(5, values)
	}
	switch v.Type() {
	case attribute.STRING:
		return protowire.AppendString(w.tag(1, protowire.BytesType), validUTF8(v.AsString()))
	case attribute.BOOL:
		return protowire.AppendVarint(w.tag(2, protowire.VarintType), protowire.EncodeBool(v.AsBool()))
	case attribute.INT64:
		return protowire.AppendVarint(w.tag(3, protowire.VarintType), uint64(v.AsInt64()))
	case attribute.FLOAT64:
		return w.double(4, v.AsFloat64())
	case attribute.STRINGSLICE:
		s := v.AsStringSlice()
		return array(len(s), func(i int) attribute.Value { return attribute.StringValue(s[i]) })
	case attribute.BOOLSLICE:
		s := v.AsBoolSlice()
		return array(len(s), func(i int) attribute.Value { return attribute.BoolValue(s[i]) })
	case attribute.INT64SLICE:
		s := v.AsInt64Slice()
		return array(len(s), func(i int) attribute.Value { return attribute.Int64Value(s[i]) })
	case attribute.FLOAT64SLICE:
		s := v.AsFloat64Slice()
		return array(len(s), func(i int) attribute.Value { return attribute.Float64Value(s[i]) })
	}
	return w
}

// resourceWire is a Resource: attributes 1.
func resourceWire(r *resource.Resource) wire {
	return wire(nil).keyValues(1, r.Attributes()...)
}

// scopeWire is an InstrumentationScope: name 1, version 2, attributes 3.
func scopeWire(s instrumentation.Scope) wire {
	return wire(nil).string(1, s.Name).string(2, s.Version).keyValues(3, s.Attributes.ToSlice()...)
}

// spansRequest is an ExportTraceServiceRequest: ResourceSpans 1 (resource
// 1, ScopeSpans 2, schema_url 3), each ScopeSpans (scope 1, spans 2,
// schema_url 3) holding the spans of one scope of one resource, in the
// order they came.
func spansRequest(spans []sdktrace.ReadOnlySpan) []byte {
	type scopeKey struct {
		resource attribute.Distinct
		scope    instrumentation.Scope
	}
	var resources []*resource.Resource
	scopes := map[attribute.Distinct][]instrumentation.Scope{}
	written := map[scopeKey]wire{}
	for _, s := range spans {
		if s == nil {
			continue
		}
		r, scope := s.Resource(), s.InstrumentationScope()
		key := scopeKey{r.Equivalent(), scope}
		if _, seen := scopes[key.resource]; !seen {
			resources = append(resources, r)
		}
		if _, seen := written[key]; !seen {
			scopes[key.resource] = append(scopes[key.resource], scope)
		}
		written[key] = written[key].message(2, spanWire(s))
	}
	var request wire
	for _, r := range resources {
		rs := wire(nil).message(1, resourceWire(r))
		for _, scope := range scopes[r.Equivalent()] {
			ss := wire(nil).message(1, scopeWire(scope))
			ss = append(ss, written[scopeKey{r.Equivalent(), scope}]...)
			rs = rs.message(2, ss.string(3, scope.SchemaURL))
		}
		request = request.message(1, rs.string(3, r.SchemaURL()))
	}
	return request
}

// spanWire is a Span: trace_id 1, span_id 2, trace_state 3,
// parent_span_id 4, name 5, kind 6, start 7, end 8, attributes 9 and their
// dropped count 10, events 11 (time 1, name 2, attributes 3, dropped 4) and
// their dropped count 12, links 13 (trace_id 1, span_id 2, attributes 4,
// dropped 5, flags 6) and their dropped count 14, status 15 (message 2,
// code 3), flags 16: as the SDK's own OTLP exporter writes them.
func spanWire(s sdktrace.ReadOnlySpan) wire {
	sc := s.SpanContext()
	traceID, spanID := sc.TraceID(), sc.SpanID()
	w := wire(nil).bytes(1, traceID[:]).bytes(2, spanID[:]).string(3, sc.TraceState().String())
	if parent := s.Parent().SpanID(); parent.IsValid() {
		w = w.bytes(4, parent[:])
	}
	w = w.string(5, s.Name()).varint(6, uint64(s.SpanKind())).
		fixed64(7, unixNano(s.StartTime())).fixed64(8, unixNano(s.EndTime())).
		keyValues(9, s.Attributes()...).varint(10, clamp32(s.DroppedAttributes()))
	for _, e := range s.Events() {
		w = w.message(11, wire(nil).fixed64(1, unixNano(e.Time)).string(2, e.Name).keyValues(3, e.Attributes...).varint(4, clamp32(e.DroppedAttributeCount)))
	}
	w = w.varint(12, clamp32(s.DroppedEvents()))
	for _, l := range s.Links() {
		linkTrace, linkSpan := l.SpanContext.TraceID(), l.SpanContext.SpanID()
		w = w.message(13, wire(nil).bytes(1, linkTrace[:]).bytes(2, linkSpan[:]).keyValues(4, l.Attributes...).
			varint(5, clamp32(l.DroppedAttributeCount)).fixed32(6, spanFlags(l.SpanContext.TraceFlags(), l.SpanContext)))
	}
	w = w.varint(14, clamp32(s.DroppedLinks()))
	// OTLP numbers the codes Unset 0, Ok 1, Error 2; the SDK's are Unset,
	// Error, Ok.
	code := uint64(0)
	switch s.Status().Code {
	case codes.Ok:
		code = 1
	case codes.Error:
		code = 2
	}
	w = w.message(15, wire(nil).string(2, s.Status().Description).varint(3, code))
	return w.fixed32(16, spanFlags(sc.TraceFlags(), s.Parent()))
}

// spanFlags are the W3C trace flags, and whether the parent (or a link's
// context) is remote, and that this is known.
func spanFlags(flags trace.TraceFlags, parent trace.SpanContext) uint32 {
	const hasIsRemote, isRemote = 0x100, 0x200
	f := uint32(flags) | hasIsRemote
	if parent.IsRemote() {
		f |= isRemote
	}
	return f
}

// metricsRequest is an ExportMetricsServiceRequest: ResourceMetrics 1
// (resource 1, ScopeMetrics 2, schema_url 3), each ScopeMetrics (scope 1,
// metrics 2, schema_url 3). A metric it cannot write is left out and
// reported, and the others are sent, as the SDK's exporter does.
func metricsRequest(rm *metricdata.ResourceMetrics) ([]byte, error) {
	var errs []error
	rw := wire(nil).message(1, resourceWire(rm.Resource))
	for _, sm := range rm.ScopeMetrics {
		sw := wire(nil).message(1, scopeWire(sm.Scope))
		for _, m := range sm.Metrics {
			mw, err := metricWire(m)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			sw = sw.message(2, mw)
		}
		rw = rw.message(2, sw.string(3, sm.Scope.SchemaURL))
	}
	return wire(nil).message(1, rw.string(3, rm.Resource.SchemaURL())), errors.Join(errs...)
}

// metricWire is a Metric: name 1, description 2, unit 3, and its data: a
// gauge 5 (points 1), a sum 7 (points 1, temporality 2, monotonic 3) or a
// histogram 9 (points 1, temporality 2).
func metricWire(m metricdata.Metrics) (wire, error) {
	w := wire(nil).string(1, m.Name).string(2, m.Description).string(3, m.Unit)
	switch data := m.Data.(type) {
	case metricdata.Gauge[int64]:
		return w.message(5, numberPoints(nil, data.DataPoints)), nil
	case metricdata.Gauge[float64]:
		return w.message(5, numberPoints(nil, data.DataPoints)), nil
	case metricdata.Sum[int64]:
		return w.message(7, sumWire(data)), nil
	case metricdata.Sum[float64]:
		return w.message(7, sumWire(data)), nil
	case metricdata.Histogram[int64]:
		return w.message(9, histogramWire(data)), nil
	case metricdata.Histogram[float64]:
		return w.message(9, histogramWire(data)), nil
	}
	return nil, fmt.Errorf("metric %s: its aggregation (%T) is not one this server exports", m.Name, m.Data)
}

func sumWire[N int64 | float64](s metricdata.Sum[N]) wire {
	monotonic := uint64(0)
	if s.IsMonotonic {
		monotonic = 1
	}
	return numberPoints(nil, s.DataPoints).varint(2, temporality(s.Temporality)).varint(3, monotonic)
}

// temporality is OTLP's AggregationTemporality: delta 1, cumulative 2.
func temporality(t metricdata.Temporality) uint64 {
	switch t {
	case metricdata.DeltaTemporality:
		return 1
	case metricdata.CumulativeTemporality:
		return 2
	}
	return 0
}

// numberPoints writes NumberDataPoints as field 1: attributes 7, start 2,
// time 3, as_double 4 or as_int 6, exemplars 5.
func numberPoints[N int64 | float64](w wire, points []metricdata.DataPoint[N]) wire {
	for _, p := range points {
		pw := wire(nil).fixed64(2, unixNano(p.StartTime)).fixed64(3, unixNano(p.Time))
		pw = number(pw, 4, 6, p.Value)
		pw = exemplars(pw, 5, p.Exemplars).keyValues(7, p.Attributes.ToSlice()...)
		w = w.message(1, pw)
	}
	return w
}

// histogramWire writes HistogramDataPoints as field 1: start 2, time 3,
// count 4, sum 5, bucket_counts 6 and explicit_bounds 7 (packed), exemplars
// 8, attributes 9, min 11, max 12; and the temporality 2.
func histogramWire[N int64 | float64](h metricdata.Histogram[N]) wire {
	var w wire
	for _, p := range h.DataPoints {
		pw := wire(nil).fixed64(2, unixNano(p.StartTime)).fixed64(3, unixNano(p.Time)).fixed64(4, p.Count).double(5, float64(p.Sum))
		if len(p.BucketCounts) > 0 {
			var packed []byte
			for _, c := range p.BucketCounts {
				packed = protowire.AppendFixed64(packed, c)
			}
			pw = pw.bytes(6, packed)
		}
		if len(p.Bounds) > 0 {
			var packed []byte
			for _, b := range p.Bounds {
				packed = protowire.AppendFixed64(packed, math.Float64bits(b))
			}
			pw = pw.bytes(7, packed)
		}
		pw = exemplars(pw, 8, p.Exemplars).keyValues(9, p.Attributes.ToSlice()...)
		if v, ok := p.Min.Value(); ok {
			pw = pw.double(11, float64(v))
		}
		if v, ok := p.Max.Value(); ok {
			pw = pw.double(12, float64(v))
		}
		w = w.message(1, pw)
	}
	return w.varint(2, temporality(h.Temporality))
}

// exemplars writes Exemplars as field: time 2, as_double 3 or as_int 6,
// span_id 4, trace_id 5, filtered_attributes 7.
func exemplars[N int64 | float64](w wire, field protowire.Number, list []metricdata.Exemplar[N]) wire {
	for _, e := range list {
		ew := number(wire(nil).fixed64(2, unixNano(e.Time)), 3, 6, e.Value)
		w = w.message(field, ew.bytes(4, e.SpanID).bytes(5, e.TraceID).keyValues(7, e.FilteredAttributes...))
	}
	return w
}
