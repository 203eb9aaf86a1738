package app

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

// TestTelemetryHeadersNeverLogged gives the exporters a malformed
// OTEL_EXPORTER_OTLP_HEADERS (a pair without '=', and a value with a bad
// percent escape): the SDK reports each, and the report reaches the
// process's logger naming the variable, never the value, which holds the
// collector's credential.
func TestTelemetryHeadersNeverLogged(t *testing.T) {
	const secret = "otlp_secret_9f3c2a"
	for name, headers := range map[string]string{
		"no equals":  "Authorization Bearer " + secret,
		"bad escape": "Authorization=Bearer%zz" + secret,
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
			t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", headers)
			t.Setenv("OTEL_METRICS_EXPORTER", "none") // its stop would send to the missing collector
			var logs bytes.Buffer
			logger := slog.New(slog.NewJSONHandler(&logs, nil))
			getenv := func(k string) string {
				return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_HEADERS": headers, "OTEL_METRICS_EXPORTER": "none"}[k]
			}
			tel, err := telemetryFromEnv(context.Background(), getenv, "testmcp", "v1", logger)
			if err != nil {
				t.Fatal(err)
			}
			if tel == nil {
				t.Fatal("telemetry off with an endpoint set")
			}
			// Nothing was recorded, so the stop sends nothing; it ends
			// the SDK's goroutines, which TestTelemetryOffUnlessAsked
			// counts.
			if err := tel.shutdown(context.Background()); err != nil {
				t.Errorf("shutdown: %v", err)
			}
			if strings.Contains(logs.String(), secret) || strings.Contains(logs.String(), "zz") {
				t.Errorf("the header's value reached the log:\n%s", logs.String())
			}
			if !strings.Contains(logs.String(), "OTEL_EXPORTER_OTLP_HEADERS") {
				t.Errorf("no log line names OTEL_EXPORTER_OTLP_HEADERS for a malformed value:\n%s", logs.String())
			}
		})
	}
}
