package app

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
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

// TestTelemetryExportFailureHidesURLPassword: a collector reached with a
// password in its URL (http://user:password@collector:4318, which Go's
// client would send as basic auth) refuses an export; the SDK's error names
// the URL it posted to, and the log line it becomes shows it without the
// password (the exporter rebuilds the URL from host and path; this holds
// that on the next SDK upgrade).
func TestTelemetryExportFailureHidesURLPassword(t *testing.T) {
	const password = "collector_pw_51c0"
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no", http.StatusBadRequest) // not retried: the error comes at once
	}))
	defer collector.Close()
	endpoint := strings.Replace(collector.URL, "http://", "http://ops:"+password+"@", 1)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	var logs syncBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	getenv := func(k string) string {
		return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_METRICS_EXPORTER": "none"}[k]
	}
	tel, err := telemetryFromEnv(context.Background(), getenv, "testmcp", "v1", logger)
	if err != nil || tel == nil {
		t.Fatalf("telemetry %v, error %v", tel, err)
	}
	_, span := tel.tracer.Start(context.Background(), "tools/call ping")
	span.End()
	_ = tel.shutdown(context.Background()) // the export fails; the error handler logs it
	text := logs.String()
	if !strings.Contains(text, "telemetry export failed") {
		t.Fatalf("no export failure logged:\n%s", text)
	}
	if strings.Contains(text, password) {
		t.Errorf("the collector URL's password is in the log:\n%s", text)
	}
}

// syncBuffer is a bytes.Buffer the SDK's goroutines may write to.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestTelemetryResourceAttributesNotQuoted: OTEL_RESOURCE_ATTRIBUTES with a
// pair that has no '=' (a value pasted without its key) is refused naming
// the variable and the rule, without repeating the pair, which may be a
// credential.
func TestTelemetryResourceAttributesNotQuoted(t *testing.T) {
	const secret = "resource_secret_77ab"
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=prod,"+secret)
	getenv := func(k string) string {
		return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}[k]
	}
	var logs syncBuffer
	_, err := telemetryFromEnv(context.Background(), getenv, "testmcp", "v1", slog.New(slog.NewJSONHandler(&logs, nil)))
	if err == nil {
		t.Fatal("a pair without '=' was taken")
	}
	if !strings.Contains(err.Error(), "OTEL_RESOURCE_ATTRIBUTES") || strings.Contains(err.Error(), secret) {
		t.Errorf("error %q: want OTEL_RESOURCE_ATTRIBUTES named and the pair not repeated", err)
	}
	if strings.Contains(logs.String(), secret) {
		t.Errorf("the pair reached the log:\n%s", logs.String())
	}
}
