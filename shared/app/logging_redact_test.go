package app

import (
	"bytes"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpforge/servers/shared/redact"
)

// TestRedactingLogger: a secret that reaches a log line, in its message, a
// string, an error, a URL, a group or an attribute set once for a logger,
// in any case and in the text and JSON handlers alike, is not written.
func TestRedactingLogger(t *testing.T) {
	const secret = "0f8fad5b-d9cb-469f-a165-70867728950e"
	for name, handler := range map[string]func(*bytes.Buffer) slog.Handler{
		"text": func(b *bytes.Buffer) slog.Handler {
			return slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug})
		},
		"json": func(b *bytes.Buffer) slog.Handler {
			return slog.NewJSONHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug})
		},
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			logger := RedactingLogger(slog.New(handler(&out)), redact.New(secret))
			uri, _ := url.Parse("hooksvc://token/x%3Fapi_key%3D" + secret + "/requests")
			logger.With("key", strings.ToUpper(secret)).WithGroup("g").Debug("resource subscribed: "+secret,
				"uri", uri,
				"err", errors.New("refused for "+secret),
				"n", 42,
				slog.Group("inner", "value", "x="+secret),
			)
			got := out.String()
			if strings.Contains(strings.ToLower(got), secret) {
				t.Errorf("the secret is in the log line: %s", got)
			}
			for _, want := range []string{"resource subscribed", "42", redact.Redacted} {
				if !strings.Contains(got, want) {
					t.Errorf("the log line lost %q: %s", want, got)
				}
			}
		})
	}
	if RedactingLogger(nil, redact.New(secret)) != nil {
		t.Error("a nil logger became a logger")
	}
}
