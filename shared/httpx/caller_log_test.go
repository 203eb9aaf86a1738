package httpx

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpforge/servers/shared/redact"
)

// TestCallerLogsNoSecret: a secret in the path of a request (a storage URL
// named by the key, a call key pasted into a path) is not in the debug
// line of the request, nor in the line of its failure.
func TestCallerLogsNoSecret(t *testing.T) {
	const secret = "call-key-0123456789"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	var logs bytes.Buffer
	caller := &Caller{HTTP: NewClient(Options{}), Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	for _, base := range []string{srv.URL, "http://127.0.0.1:1"} {
		u, _ := url.Parse(base + "/files/" + secret + "/x")
		caller.Do(context.Background(), Outbound{Method: http.MethodGet, URL: u, MaxBytes: 100, Redactor: redact.New(secret)})
	}
	if !strings.Contains(logs.String(), "outbound request failed") || !strings.Contains(logs.String(), "status=200") {
		t.Fatalf("the request and the failure were not both logged: %s", logs.String())
	}
	if strings.Contains(logs.String(), secret) {
		t.Errorf("a log line holds the secret: %s", logs.String())
	}
}
