package app

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// otlpMetricExporter sends the SDK's metrics as OTLP (see otel_otlp.go for
// why not by the SDK's otlpmetrichttp): sums, gauges and histograms with
// explicit buckets (otel_wire.go), every aggregation the SDK makes of the
// servers' instruments, counters and one histogram.
type otlpMetricExporter struct {
	sender      *otlpSender
	temporality sdkmetric.TemporalitySelector
}

// newOTLPMetricExporter reads OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE
// (cumulative, the default; delta; or lowmemory) as the SDK's exporter did.
func newOTLPMetricExporter(sender *otlpSender, getenv func(string) string, logger *slog.Logger) *otlpMetricExporter {
	e := &otlpMetricExporter{sender: sender, temporality: sdkmetric.DefaultTemporalitySelector}
	const variable = "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE"
	delta := func(kinds ...sdkmetric.InstrumentKind) sdkmetric.TemporalitySelector {
		return func(kind sdkmetric.InstrumentKind) metricdata.Temporality {
			for _, k := range kinds {
				if k == kind {
					return metricdata.DeltaTemporality
				}
			}
			return metricdata.CumulativeTemporality
		}
	}
	switch preference := strings.ToLower(strings.TrimSpace(getenv(variable))); preference {
	case "", "cumulative":
	case "delta":
		e.temporality = delta(sdkmetric.InstrumentKindCounter, sdkmetric.InstrumentKindHistogram, sdkmetric.InstrumentKindObservableCounter)
	case "lowmemory":
		e.temporality = delta(sdkmetric.InstrumentKindCounter, sdkmetric.InstrumentKindHistogram)
	default:
		logger.Warn("telemetry configuration: " + variable + " must be cumulative, delta or lowmemory; using cumulative")
	}
	return e
}

func (e *otlpMetricExporter) Temporality(kind sdkmetric.InstrumentKind) metricdata.Temporality {
	return e.temporality(kind)
}

func (e *otlpMetricExporter) Aggregation(kind sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(kind)
}

func (e *otlpMetricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	body, err := metricsRequest(rm)
	return errors.Join(err, e.sender.send(ctx, body))
}

// ForceFlush and Shutdown have nothing to do: Export holds nothing back.
func (e *otlpMetricExporter) ForceFlush(context.Context) error { return nil }
func (e *otlpMetricExporter) Shutdown(context.Context) error   { return nil }
