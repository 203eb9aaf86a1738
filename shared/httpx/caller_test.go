package httpx

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpforge/servers/shared/redact"
)

// TestCallerDo: the one road out sends what it is given, and its answer
// comes back bounded and with the call's secrets redacted, whatever the
// status; a failure is the reason alone, redacted too.
func TestCallerDo(t *testing.T) {
	const secret = "s3cret-token-value"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/echo":
			w.WriteHeader(http.StatusTeapot)
			io.WriteString(w, r.Method+" "+r.Header.Get("X-Key")+" "+string(body))
		case "/big":
			io.WriteString(w, strings.Repeat("x", 100))
		case "/slow":
			<-r.Context().Done()
		}
	}))
	t.Cleanup(srv.Close)
	caller := &Caller{HTTP: NewClient(Options{}), Logger: slog.New(slog.DiscardHandler)}
	call := func(ctx context.Context, path string) (*Answer, error) {
		u, _ := url.Parse(srv.URL + path + "?key=" + secret)
		return caller.Do(ctx, Outbound{
			Method: http.MethodPost, URL: u, Header: http.Header{"X-Key": {secret}}, Body: []byte("hello " + secret),
			MaxBytes: 50, Redactor: redact.New(secret),
		})
	}

	answer, err := call(context.Background(), "/echo")
	if err != nil || answer.Status != http.StatusTeapot || string(answer.Body) != "POST [REDACTED] hello [REDACTED]" {
		t.Errorf("echo: %+v, %v", answer, err)
	}
	_, err = call(context.Background(), "/big")
	var tooLarge *TooLargeError
	if !errors.As(err, &tooLarge) || tooLarge.Limit != 50 {
		t.Errorf("over MaxBytes: %v, want a *TooLargeError of 50", err)
	}
	ctx, cancel := WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = call(ctx, "/slow")
	if err == nil || err.Error() != "timed out after 50 ms" {
		t.Errorf("timeout: %v, want the reason alone", err)
	}
	u, _ := url.Parse("http://" + secret + ".invalid/")
	_, err = caller.Do(context.Background(), Outbound{Method: http.MethodGet, URL: u, Redactor: redact.New(secret)})
	if err == nil || strings.Contains(err.Error(), secret) {
		t.Errorf("transport failure: %v, want an error without the secret", err)
	}
}
