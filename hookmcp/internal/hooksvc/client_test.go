package hooksvc

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/redact"
)

func TestParseRetryAfter(t *testing.T) {
	future := time.Now().Add(5 * time.Second).UTC().Format(http.TimeFormat)
	tests := []struct {
		in     string
		min    time.Duration
		max    time.Duration
		parsed bool
	}{
		{"", 0, 0, false},
		{"7", 7 * time.Second, 7 * time.Second, true},
		{"soon", 0, 0, false},
		{"-3", 0, 0, false},
		{future, 3 * time.Second, 5 * time.Second, true},
		{"Mon, 01 Jan 2001 00:00:00 GMT", 0, 0, true}, // in the past: no wait
		// Values that overflow a Duration once wrapped to short or
		// negative waits; anything over the cap reads as over the cap.
		{"9223372037", 24 * time.Hour, 24 * time.Hour, true},
		{"18446744073709551616", 24 * time.Hour, 24 * time.Hour, true},
		{"99999999999999999999999", 24 * time.Hour, 24 * time.Hour, true},
		{"Fri, 31 Dec 9999 23:59:59 GMT", MaxRetryWait, 1<<63 - 1, true},
	}
	for _, tt := range tests {
		got, ok := parseRetryAfter(tt.in)
		if ok != tt.parsed || got < tt.min || got > tt.max {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v..%v, %v", tt.in, got, ok, tt.min, tt.max, tt.parsed)
		}
	}
}

func TestStatusError(t *testing.T) {
	call := Call{Method: http.MethodGet, Path: "/token/x", What: "token x"}
	tests := []struct {
		status int
		header http.Header
		body   string
		want   string
		is     error
	}{
		{302, nil, "<html>", "authentication required or key invalid: set HOOKSVC_API_KEY or pass api_key (the API answered HTTP 302 with a redirect to a login page", ErrAuth},
		{403, nil, "", "authentication required or key invalid: set HOOKSVC_API_KEY or pass api_key (the API answered HTTP 403)", ErrAuth},
		{410, nil, "", "token x was not found or expired (HTTP 410)", ErrNotFound},
		{422, nil, `{"timeout":["The timeout must be between 0 and 30."],"alias":["The alias format is invalid.","Too short."]}`,
			"the API refused the values (HTTP 422): alias: The alias format is invalid. Too short.; timeout: The timeout must be between 0 and 30.", nil},
		{422, nil, `{"success":false,"error":{"message":"Basic accounts may hold one token.","id":null}}`,
			"the API refused the values (HTTP 422): Basic accounts may hold one token.", nil},
		{429, http.Header{"Retry-After": {"30"}}, "", "rate limited by the capture API (HTTP 429); it asks to wait 30 s before trying again", nil},
		{429, http.Header{"Retry-After": {"9223372037"}}, "", "rate limited by the capture API (HTTP 429); it asks to wait a day or more before trying again", nil},
		{400, nil, `{"success":false,"error":{"message":"Bad query secret-key-123","id":null}}`, "the capture API answered 400 Bad Request: Bad query [REDACTED]", nil},
		{502, nil, "<html>gateway</html>", "the capture API answered 502 Bad Gateway: <html>gateway</html>", nil},
	}
	for _, tt := range tests {
		err := statusError(call, &httpx.Answer{Status: tt.status, Header: tt.header, Body: []byte(tt.body)}, 0, redact.New("secret-key-123"))
		if err.Error() != tt.want && !startsWith(err.Error(), tt.want) {
			t.Errorf("%d: %q\nwant %q", tt.status, err, tt.want)
		}
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("%d: not %v", tt.status, tt.is)
		}
	}
}

func startsWith(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }

// TestDecodePageLoosely: the API is PHP, and an empty list may arrive as {}.
func TestDecodePageLoosely(t *testing.T) {
	p, err := DecodePage([]byte(`{"data":{},"total":0,"per_page":50,"current_page":1,"is_last_page":true,"from":1,"to":0}`))
	if err != nil || len(p.Data) != 0 || !p.IsLastPage || p.PerPage != 50 {
		t.Errorf("DecodePage: %+v %v", p, err)
	}
	if _, err := DecodePage([]byte(`<html>`)); err == nil {
		t.Error("HTML decoded as a page")
	}
}
