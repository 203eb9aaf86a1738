package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// Outcomes of a tool call, as spans and metrics name them.
const (
	outcomeOK            = "ok"             // a result, not an error
	outcomeToolError     = "tool_error"     // a result with isError: the tool refused or its upstream failed
	outcomeProtocolError = "protocol_error" // no result: an unknown tool, bad arguments, a cancelled call
)

// Attribute keys. The tool's name and the operation follow OpenTelemetry's
// semantic conventions for MCP and generative-AI tools; the outcome is
// ours, as the conventions have no word for a tool's own error.
const (
	attrMethod     = attribute.Key("mcp.method.name")
	attrTool       = attribute.Key("gen_ai.tool.name")
	attrOperation  = attribute.Key("gen_ai.operation.name")
	attrOutcome    = attribute.Key("mcp.tool.outcome")
	attrErrorType  = attribute.Key("error.type")
	attrStatus     = attribute.Key("http.response.status_code")
	attrUpstreams  = attribute.Key("mcp.upstream.requests")
	attrUpstreamBy = attribute.Key("mcp.upstream.response.bytes")
)

// maxToolNameAttr bounds a tool name written to a span or metric: the name
// comes from the client, and an attribute's values must stay few and short.
const maxToolNameAttr = 64

// telemetry records a span and metrics for each tool call. A process whose
// environment asks for no telemetry has none (telemetryFromEnv returns
// nil): no exporter, no goroutine, no middleware.
type telemetry struct {
	tracer        trace.Tracer
	calls         metric.Int64Counter
	errors        metric.Int64Counter
	duration      metric.Float64Histogram
	upstreamBytes metric.Int64Counter
	// shutdown flushes and stops the exporters.
	shutdown func(context.Context) error
}

// telemetryShutdownWait bounds the flush at exit: an unreachable collector
// does not hold the process.
const telemetryShutdownWait = 5 * time.Second

// telemetryFromEnv reads OpenTelemetry's standard variables and returns the
// process's telemetry, or nil when they ask for none. Unlike the SDKs'
// defaults, nothing is exported unless a variable asks: a traces or metrics
// exporter named otlp (OTEL_TRACES_EXPORTER, OTEL_METRICS_EXPORTER), or an
// OTLP endpoint set (OTEL_EXPORTER_OTLP_ENDPOINT or the per-signal one).
// OTEL_SDK_DISABLED=true turns everything off. The OTLP senders read where
// and how to send (OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _CERTIFICATE...:
// newOTLPSender), the SDK the rest (OTEL_METRIC_EXPORT_INTERVAL,
// OTEL_BSP_*, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES). Errors name the
// variable, the rule and the fix; they never repeat a value that could be a
// secret (a header's, an endpoint's).
func telemetryFromEnv(ctx context.Context, getenv func(string) string, service, version string, logger *slog.Logger) (*telemetry, error) {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return nil, nil
	}
	traces, err := exporterChoice(getenv, "TRACES")
	if err != nil {
		return nil, err
	}
	metrics, err := exporterChoice(getenv, "METRICS")
	if err != nil {
		return nil, err
	}
	if !traces && !metrics {
		return nil, nil
	}
	// The SDK's own complaints (a variable it could not parse) and export
	// failures (a collector down) are logged as the process's other lines
	// are, in its format, without the values the SDK would quote, and not
	// as its default plain lines on stderr. Set before anything reads a
	// variable.
	otel.SetLogger(logr.New(otelLogSink{logger}))
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		logger.Warn("telemetry export failed", "error", shortened(err.Error()))
	}))
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", service), attribute.String("service.version", version)),
		resource.WithTelemetrySDK(),
		// Last, so that OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
		// override the defaults above.
		resource.WithFromEnv(),
	)
	if err != nil {
		// The SDK's error quotes the pairs it refused, which may hold
		// a credential pasted without its key: they are not repeated.
		return nil, errors.New("OTEL_RESOURCE_ATTRIBUTES must be key=value pairs separated by commas, values percent-encoded; a pair has no '=' (the pairs are not shown). For example OTEL_RESOURCE_ATTRIBUTES=deployment.environment=prod,service.namespace=tools")
	}
	var tracerProvider trace.TracerProvider = tracenoop.NewTracerProvider()
	var meterProvider metric.MeterProvider = noop.NewMeterProvider()
	var stops []func(context.Context) error
	if traces {
		sender, err := newOTLPSender(getenv, "traces", logger)
		if err != nil {
			return nil, err
		}
		provider := sdktrace.NewTracerProvider(sdktrace.WithBatcher(otlpSpanExporter{sender}), sdktrace.WithResource(res))
		tracerProvider = provider
		stops = append(stops, provider.Shutdown)
	}
	if metrics {
		sender, err := newOTLPSender(getenv, "metrics", logger)
		if err != nil {
			return nil, err
		}
		exporter := newOTLPMetricExporter(sender, getenv, logger)
		provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exporter)), sdkmetric.WithResource(res))
		meterProvider = provider
		stops = append(stops, provider.Shutdown)
	}
	tel, err := newTelemetry(tracerProvider, meterProvider, version)
	if err != nil {
		return nil, err
	}
	tel.shutdown = func(ctx context.Context) error {
		var errs []error
		for _, stop := range stops {
			errs = append(errs, stop(ctx))
		}
		return errors.Join(errs...)
	}
	logger.Debug("telemetry on", "traces", traces, "metrics", metrics)
	return tel, nil
}

// exporterChoice reads OTEL_<SIGNAL>_EXPORTER and the protocol, and reports
// whether the signal is exported.
func exporterChoice(getenv func(string) string, signal string) (bool, error) {
	name := "OTEL_" + signal + "_EXPORTER"
	on := false
	switch value := strings.TrimSpace(getenv(name)); value {
	case "":
		on = getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT") != ""
	case "none":
	case "otlp":
		on = true
	default:
		return false, fmt.Errorf("%s must be otlp or none; got %s. For example %s=otlp with OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318", name, mcptool.QuoteUpTo(value, maxQuotedValue), name)
	}
	if !on {
		return false, nil
	}
	// The signal's own variable, when set, wins over the general one.
	variable := "OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL"
	if strings.TrimSpace(getenv(variable)) == "" {
		variable = "OTEL_EXPORTER_OTLP_PROTOCOL"
	}
	if value := strings.TrimSpace(getenv(variable)); value != "" && value != "http/protobuf" {
		return false, fmt.Errorf("%s must be http/protobuf, the one OTLP protocol this server sends; got %s. Point OTEL_EXPORTER_OTLP_ENDPOINT at the collector's OTLP/HTTP port (4318) and set %s=http/protobuf or leave it unset",
			variable, mcptool.QuoteUpTo(value, maxQuotedValue), variable)
	}
	return true, nil
}

// newTelemetry makes the instruments from the providers given (tests give
// in-process ones).
func newTelemetry(tracerProvider trace.TracerProvider, meterProvider metric.MeterProvider, version string) (*telemetry, error) {
	const scope = "github.com/mcpforge/servers/shared/app"
	meter := meterProvider.Meter(scope, metric.WithInstrumentationVersion(version))
	t := &telemetry{tracer: tracerProvider.Tracer(scope, trace.WithInstrumentationVersion(version)), shutdown: func(context.Context) error { return nil }}
	var errs [4]error
	t.calls, errs[0] = meter.Int64Counter("mcp.server.tool.calls", metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls answered, by tool and outcome."))
	t.errors, errs[1] = meter.Int64Counter("mcp.server.tool.errors", metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls that ended in a tool error or a protocol error, by tool and outcome."))
	t.duration, errs[2] = meter.Float64Histogram("mcp.server.tool.duration", metric.WithUnit("s"),
		metric.WithDescription("Time from a tool call's arrival to its answer, by tool and outcome."),
		metric.WithExplicitBucketBoundaries(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300))
	t.upstreamBytes, errs[3] = meter.Int64Counter("mcp.server.upstream.response.bytes", metric.WithUnit("By"),
		metric.WithDescription("Bytes of the upstream API's answer bodies read for tool calls, by tool."))
	if err := errors.Join(errs[:]...); err != nil {
		return nil, fmt.Errorf("telemetry instruments: %w", err)
	}
	return t, nil
}

// upstreamTally adds up the upstream answers of one tool call; the call's
// requests may run at once.
type upstreamTally struct {
	requests   atomic.Int64
	bytes      atomic.Int64
	lastStatus atomic.Int64
}

func (u *upstreamTally) observe(status, bytes int) {
	u.requests.Add(1)
	u.bytes.Add(int64(bytes))
	u.lastStatus.Store(int64(status))
}

// middleware records each tools/call: a span named "tools/call <tool>"
// with the tool's name, the outcome and the last upstream status, and the
// metrics. It records no argument, header, URL, result or error text: they
// may hold what the user or the upstream wrote, secrets included.
func (t *telemetry) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		start := time.Now()
		tool := toolNameAttr(call.Params.Name)
		ctx, span := t.tracer.Start(ctx, "tools/call "+tool, trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attrMethod.String(method), attrOperation.String("execute_tool"), attrTool.String(tool)))
		defer span.End()
		var tally upstreamTally
		result, err := next(httpx.WithObserver(ctx, tally.observe), method, req)

		outcome := outcomeOK
		switch {
		case err != nil:
			outcome = outcomeProtocolError
			var rpc *jsonrpc.Error
			if errors.As(err, &rpc) && rpc.Code == jsonrpc.CodeInvalidParams && strings.HasPrefix(rpc.Message, "unknown tool") {
				// Any name a client makes up would otherwise be
				// a new series.
				tool = "(unknown)"
				span.SetName("tools/call " + tool)
				span.SetAttributes(attrTool.String(tool))
			}
			span.SetAttributes(attrErrorType.String(errorType(ctx, err)))
			span.SetStatus(codes.Error, outcome)
		default:
			if res, ok := result.(*mcp.CallToolResult); ok && res.IsError {
				outcome = outcomeToolError
				span.SetAttributes(attrErrorType.String(outcome))
				span.SetStatus(codes.Error, outcome)
			}
		}
		span.SetAttributes(attrOutcome.String(outcome))
		if n := tally.requests.Load(); n > 0 {
			span.SetAttributes(attrStatus.Int64(tally.lastStatus.Load()), attrUpstreams.Int64(n), attrUpstreamBy.Int64(tally.bytes.Load()))
		}

		// The metrics are recorded under a context that outlives the
		// call's cancellation, which would otherwise drop them.
		mctx := context.WithoutCancel(ctx)
		attrs := metric.WithAttributes(attrTool.String(tool), attrOutcome.String(outcome))
		t.calls.Add(mctx, 1, attrs)
		if outcome != outcomeOK {
			t.errors.Add(mctx, 1, attrs)
		}
		t.duration.Record(mctx, time.Since(start).Seconds(), attrs)
		if n := tally.bytes.Load(); n > 0 {
			t.upstreamBytes.Add(mctx, n, metric.WithAttributes(attrTool.String(tool)))
		}
		return result, err
	}
}

// errorType names a protocol error by its kind, never its text.
func errorType(ctx context.Context, err error) string {
	var rpc *jsonrpc.Error
	switch {
	case errors.As(err, &rpc):
		return fmt.Sprintf("jsonrpc.%d", rpc.Code)
	case errors.Is(err, context.Canceled), ctx.Err() != nil:
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return "_OTHER"
}

// toolNameAttr is the client's tool name when it looks like one (letters,
// digits, _ - . /, at most maxToolNameAttr bytes), else "(invalid)".
func toolNameAttr(name string) string {
	if name == "" || len(name) > maxToolNameAttr {
		return "(invalid)"
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' || r == '/') {
			return "(invalid)"
		}
	}
	return name
}
