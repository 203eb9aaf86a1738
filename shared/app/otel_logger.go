package app

import (
	"log/slog"
	"strings"

	"github.com/go-logr/logr"
)

// otelLogSink carries the OpenTelemetry SDK's own messages (a variable it
// could not parse) into the process's logger, without their key-value
// pairs: the SDK's exporters logged a malformed OTEL_EXPORTER_OTLP_HEADERS
// pair whole ("parse headers" input=Authorization Bearer ...), which would
// put the collector's credential on stderr, in the SDK's plain format; the
// OTLP senders (otlpHeaders) report theirs through it too. Only errors
// pass: the SDK's Info and Debug levels describe what it exports.
type otelLogSink struct{ logger *slog.Logger }

func (otelLogSink) Init(logr.RuntimeInfo)            {}
func (otelLogSink) Enabled(int) bool                 { return false }
func (otelLogSink) Info(int, string, ...any)         {}
func (s otelLogSink) WithValues(...any) logr.LogSink { return s }
func (s otelLogSink) WithName(string) logr.LogSink   { return s }

func (s otelLogSink) Error(err error, msg string, _ ...any) {
	// An error about a header may quote part of its value (url's
	// "invalid URL escape" does): its text is left out.
	if err == nil || strings.Contains(msg, "header") {
		s.logger.Warn("telemetry configuration: " + msg + "; check OTEL_EXPORTER_OTLP_HEADERS: key=value pairs separated by commas, values percent-encoded (its value is not shown)")
		return
	}
	s.logger.Warn("telemetry configuration: "+msg, "error", shortened(err.Error()))
}
