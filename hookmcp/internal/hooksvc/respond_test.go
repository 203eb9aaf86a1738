package hooksvc

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpforge/servers/shared/httpx"
)

// TestSetResponseWire: the response goes as the official CLI sends it (PUT
// on the singular request path, content in base64, each header's values
// as a list, the key in Api-Key only), once whatever the answer, and the
// API's answer is read for whether a sender took it.
func TestSetResponseWire(t *testing.T) {
	const token, rid, key = "6f0c1c5e-8d1e-4a57-9b0e-2f3a4b5c6d7e", "0e1d2c3b-4a59-4687-9564-738291a0b1c2", "call-key-0123456789"
	tests := []struct {
		name    string
		status  int
		header  http.Header
		body    string
		want    Delivery
		answer  string
		wantErr string
	}{
		{"taken", 200, nil, `{"status":3}`, Delivered, `{"status":3}`, ""},
		{"no sender", 200, nil, `{"status":2}` + "\n", NoSenderWaiting, `{"status":2}`, ""},
		{"another shape", 200, nil, `{"status":"done"}`, DeliveryUnknown, `{"status":"done"}`, ""},
		{"empty", 200, nil, ``, DeliveryUnknown, "HTTP 200 with an empty body", ""},
		{"a key echoed", 200, nil, `{"status":1,"key":"call-key-0123456789"}`, DeliveryUnknown, `{"status":1,"key":"[REDACTED]"}`, ""},
		{"refused with 200", 200, nil, `{"success":false,"error":{"message":"Listen is off.","id":null}}`, 0, "", "the capture API refused it (HTTP 200 with its error answer): Listen is off."},
		{"web page", 200, http.Header{"Content-Type": {"text/html"}}, `<html><title>Hi</title></html>`, 0, "", "that URL is a web page, not the API"},
		{"not JSON", 200, http.Header{"Content-Type": {"text/plain"}}, `ok`, 0, "", "a body that is not a JSON object"},
		{"unknown request", 404, nil, `{"success":false,"error":{"message":"Request not found.","id":null}}`, 0, "",
			"request " + rid + " of token " + token + " was not found or expired (HTTP 404)"},
		{"unavailable", 503, nil, `{"success":false,"error":{"message":"Down.","id":null}}`, 0, "", "Setting the response of request " + rid + " of token " + token + " failed: the capture API answered 503"},
		{"too large", 413, nil, `{"success":false,"error":{"message":"The response is larger than 10 MB.","id":null}}`, 0, "", "413 Request Entity Too Large: The response is larger than 10 MB."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var got []*http.Request
			var bodies []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				got, bodies = append(got, r), append(bodies, string(b))
				mu.Unlock()
				for name, values := range tt.header {
					w.Header()[name] = values
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			base, _ := url.Parse(srv.URL)
			cl := &Client{BaseURL: base, Caller: &httpx.Caller{HTTP: srv.Client(), Logger: slog.New(slog.DiscardHandler)}, Logger: slog.New(slog.DiscardHandler),
				Timeout: 5 * time.Second, Sleep: func(context.Context, time.Duration) error { t.Error("a set response was retried"); return nil }}
			d, answer, err := cl.SetResponse(context.Background(), key, token, rid, Response{
				Status: 202, Content: []byte("é\x00ok"), Header: http.Header{"x-reply": {"a"}, "Content-Type": {"text/plain"}},
			})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error = %v, want one containing %q", err, tt.wantErr)
				}
			} else if err != nil || d != tt.want || answer != tt.answer {
				t.Errorf("SetResponse = %v, %q, %v; want %v, %q", d, answer, err, tt.want, tt.answer)
			}
			if err != nil && strings.Contains(err.Error(), key) {
				t.Errorf("the error shows the key: %v", err)
			}
			if len(got) != 1 {
				t.Fatalf("%d requests sent, want exactly 1", len(got))
			}
			r := got[0]
			if r.Method != http.MethodPut || r.URL.Path != "/token/"+token+"/request/"+rid+"/response" || r.Header.Get("Api-Key") != key {
				t.Errorf("sent %s %s with Api-Key %q", r.Method, r.URL.Path, r.Header.Get("Api-Key"))
			}
			var sent map[string]any
			if err := json.Unmarshal([]byte(bodies[0]), &sent); err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"status": 202.0, "content": "w6kAb2s=", "headers": map[string]any{"x-reply": []any{"a"}, "Content-Type": []any{"text/plain"}}}
			if diff := cmp.Diff(want, sent); diff != "" {
				t.Errorf("body sent (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSetResponseLostAnswer: the API took the call and the connection
// broke before its answer: the response may have been delivered, and the
// error says so instead of advising to try again.
func TestSetResponseLostAnswer(t *testing.T) {
	const token, rid = "6f0c1c5e-8d1e-4a57-9b0e-2f3a4b5c6d7e", "0e1d2c3b-4a59-4687-9564-738291a0b1c2"
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		mu.Lock()
		calls++
		mu.Unlock()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	defer srv.Close()
	base, _ := url.Parse(srv.URL)
	cl := &Client{BaseURL: base, Caller: &httpx.Caller{HTTP: srv.Client(), Logger: slog.New(slog.DiscardHandler)}, Logger: slog.New(slog.DiscardHandler),
		Timeout: 5 * time.Second, Sleep: func(context.Context, time.Duration) error { t.Error("a set response was retried"); return nil }}
	_, _, err := cl.SetResponse(context.Background(), "call-key-0123456789", token, rid, Response{Status: 200})
	if err == nil {
		t.Fatal("no error for a lost answer")
	}
	for _, want := range []string{"Setting the response of request " + rid, "Whether the response was set, and the sender received it, is unknown",
		"a second set_response would find no sender waiting", "what the sender received"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error = %v, want one containing %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "try again") {
		t.Errorf("error = %v: it advises to try again, which would hide a delivered response", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 1 {
		t.Errorf("%d calls, want 1", calls)
	}
}
