// Command otelcol is the OpenTelemetry Collector's own OTLP receiver
// (go.opentelemetry.io/collector/receiver/otlpreceiver), built from its Go
// module, with consumers that write what it decodes as OTLP JSON: the real
// receiver the servers' telemetry is checked against in scripts/e2e
// (TestOTLPCollector), rather than a receiver this project wrote.
//
//	otelcol -out exports.jsonl [-listen 127.0.0.1:0]
//
// It serves OTLP/HTTP only (no gRPC: the servers export over HTTP), prints
// "endpoint=http://<address>" on stdout once it listens, and appends each
// export it accepts to the -out file as one line: ptrace's JSON
// ({"resourceSpans":...}) for traces, pmetric's ({"resourceMetrics":...})
// for metrics. A line is written before the export is answered, so once an
// exporter has had its answer the line is in the file. With
// OTELCOL_REQUIRE_AUTHORIZATION set, an export whose Authorization header
// is not that value is refused, so that a test sees the exporter sent it.
// SIGTERM or SIGINT stops it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configgrpc"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address of the OTLP/HTTP server; port 0 picks a free one")
	out := flag.String("out", "", "file each accepted export is appended to, one OTLP JSON line per export (required)")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "otelcol: -out must name the file exports are written to, and nothing may follow the flags. For example: otelcol -out exports.jsonl")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := run(ctx, *listen, *out, os.Getenv("OTELCOL_REQUIRE_AUTHORIZATION")); err != nil {
		fmt.Fprintln(os.Stderr, "otelcol:", err)
		os.Exit(1)
	}
}

// run starts the receiver and serves until ctx ends.
func run(ctx context.Context, listen, outPath, wantAuthorization string) error {
	file, err := os.OpenFile(outPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer file.Close()
	sink := &jsonLines{file: file, wantAuthorization: wantAuthorization}

	factory := otlpreceiver.NewFactory()
	cfg := factory.CreateDefaultConfig().(*otlpreceiver.Config)
	cfg.Protocols.GRPC = configoptional.None[configgrpc.ServerConfig]()
	// The factory's default config names both protocols as defaults, on
	// only if a config file asks: here HTTP is asked for, with its
	// defaults, and gRPC is not.
	httpCfg := cfg.Protocols.HTTP.GetOrInsertDefault()
	httpCfg.ServerConfig.NetAddr.Endpoint = listen
	// The request's headers reach the consumers (client.Info), for the
	// Authorization check.
	httpCfg.ServerConfig.IncludeMetadata = true

	// The receiver logs the address it listens on, the free port chosen
	// included; that log entry is how this program learns it.
	logs, logged := observer.New(zap.InfoLevel)
	// The settings receivertest.NewNopSettings makes, written out: its
	// package (and componenttest's) would add testify and the OpenTelemetry
	// SDK to the build.
	settings := receiver.Settings{
		ID: component.NewID(factory.Type()),
		TelemetrySettings: component.TelemetrySettings{
			Logger:         zap.New(logs),
			TracerProvider: tracenoop.NewTracerProvider(),
			MeterProvider:  metricnoop.NewMeterProvider(),
			Resource:       pcommon.NewResource(),
		},
		BuildInfo: component.NewDefaultBuildInfo(),
	}

	tracesSink, err := consumer.NewTraces(export(sink, (&ptrace.JSONMarshaler{}).MarshalTraces))
	if err != nil {
		return err
	}
	metricsSink, err := consumer.NewMetrics(export(sink, (&pmetric.JSONMarshaler{}).MarshalMetrics))
	if err != nil {
		return err
	}
	traces, err := factory.CreateTraces(ctx, settings, cfg, tracesSink)
	if err != nil {
		return err
	}
	metrics, err := factory.CreateMetrics(ctx, settings, cfg, metricsSink)
	if err != nil {
		return err
	}
	// Both are one receiver (the factory shares it by config): it starts
	// and stops once.
	host := nopHost{}
	for _, r := range []component.Component{traces, metrics} {
		if err := r.Start(ctx, host); err != nil {
			return err
		}
	}
	defer func() {
		for _, r := range []component.Component{traces, metrics} {
			r.Shutdown(context.WithoutCancel(ctx))
		}
	}()
	started := logged.FilterMessage("Starting HTTP server").All()
	if len(started) != 1 {
		return errors.New(`the receiver did not log "Starting HTTP server" with its endpoint, which this program reads its address from: was otlpreceiver's version changed?`)
	}
	endpoint, ok := started[0].ContextMap()["endpoint"].(string)
	if !ok {
		return errors.New(`the receiver's "Starting HTTP server" log entry has no endpoint field, which this program reads its address from: was otlpreceiver's version changed?`)
	}
	fmt.Printf("endpoint=http://%s\n", endpoint)
	<-ctx.Done()
	return nil
}

// nopHost is a host with no extensions, as componenttest.NewNopHost.
type nopHost struct{}

func (nopHost) GetExtensions() map[component.ID]component.Component { return nil }

// jsonLines writes each export as one line of OTLP JSON.
type jsonLines struct {
	mu                sync.Mutex
	file              *os.File
	wantAuthorization string
}

// export is a consumer's function: it writes each export that carries the
// Authorization asked for as one line, with marshal (pdata's JSON
// marshaler of the signal).
func export[T any](j *jsonLines, marshal func(T) ([]byte, error)) func(context.Context, T) error {
	return func(ctx context.Context, data T) error {
		if err := j.authorized(ctx); err != nil {
			return err
		}
		line, err := marshal(data)
		if err != nil {
			return err
		}
		return j.write(line)
	}
}

// authorized refuses an export without the Authorization header asked for.
// The refusal is permanent (the receiver answers 500, which OTLP exporters
// do not retry); the header's value is not repeated.
func (j *jsonLines) authorized(ctx context.Context) error {
	if j.wantAuthorization == "" {
		return nil
	}
	got := client.FromContext(ctx).Metadata.Get("Authorization")
	if len(got) != 1 || got[0] != j.wantAuthorization {
		return consumererror.NewPermanent(errors.New("the export's Authorization header is not OTELCOL_REQUIRE_AUTHORIZATION's value"))
	}
	return nil
}

// write appends line and a newline in one write, so lines never interleave.
func (j *jsonLines) write(line []byte) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	_, err := j.file.Write(append(line, '\n'))
	return err
}
