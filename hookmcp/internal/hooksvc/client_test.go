package hooksvc

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
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

// TestStatusError: each status is explained with what was being done and
// what to do; a refused authentication is said for the key that was sent
// (none, HOOKSVC_API_KEY's, the call's), which it never shows.
func TestStatusError(t *testing.T) {
	base, _ := url.Parse("https://hooks.example")
	cl := &Client{BaseURL: base, APIKey: "env-key-0123456789"}
	call := Call{Method: http.MethodGet, Path: "/token/x", What: "token x", Doing: "Reading token x"}
	withKey := func(key string) Call { c := call; c.Key = key; return c }
	html := http.Header{"Content-Type": {"text/html; charset=utf-8"}}
	tests := []struct {
		call   Call
		status int
		header http.Header
		body   string
		want   string
		is     error
	}{
		{call, 302, http.Header{"Location": {"https://hooks.example/login"}}, "<html>", "Reading token x failed: authentication required (the API answered HTTP 302 with a redirect to a login page): " +
			"no API key was sent, and this needs one: the token is private to an account. Set HOOKSVC_API_KEY in hookmcp's environment to that account's key, or pass api_key", ErrAuth},
		{withKey("env-key-0123456789"), 401, nil, "", "Reading token x failed: the API key in HOOKSVC_API_KEY was refused (the API answered HTTP 401): " +
			"it is not a valid key, or not the key of the account that owns the token. Check the key in the account's settings and start hookmcp with the right one", ErrAuth},
		{withKey("call-key-0123456789"), 403, nil, "", "Reading token x failed: the api_key passed in this call was refused (the API answered HTTP 403): " +
			"it is not a valid key, or not the key of the account that owns the token. Pass that account's key, or leave api_key out to use HOOKSVC_API_KEY", ErrAuth},
		{call, 410, nil, `{"success":false,"error":{"message":"Token expired or deleted.","id":null}}`, "token x was not found or expired (HTTP 410)", ErrNotFound},
		{call, 404, html, "<html><title>Acme Corp</title></html>", `Reading token x failed: https://hooks.example answered HTTP 404 to GET /token/x (a web page (HTML) titled "Acme Corp"): ` +
			"nothing is served there, so https://hooks.example is not the capture API's base URL. Check the path of HOOKSVC_API_URL (--api-url)", nil},
		{call, 422, nil, `{"timeout":["The timeout must be between 0 and 30."],"alias":["The alias format is invalid.","Too short."]}`,
			"Reading token x failed: the API refused the values (HTTP 422): alias: The alias format is invalid. Too short.; timeout: The timeout must be between 0 and 30.", nil},
		{call, 422, nil, `{"success":false,"error":{"message":"Basic accounts may hold one token.","id":null}}`,
			"Reading token x failed: the API refused the values (HTTP 422): Basic accounts may hold one token.", nil},
		{call, 429, http.Header{"Retry-After": {"30"}}, "", "Reading token x failed: rate limited by the capture API (HTTP 429); it asks to wait 30 s before trying again", nil},
		{call, 429, http.Header{"Retry-After": {"9223372037"}}, "", "Reading token x failed: rate limited by the capture API (HTTP 429); it asks to wait a day or more before trying again", nil},
		{call, 400, nil, `{"success":false,"error":{"message":"Bad query secret-key-123","id":null}}`, "Reading token x failed: the capture API answered 400 Bad Request: Bad query [REDACTED]", nil},
		{call, 405, html, "<html><h1>Method Not Allowed</h1></html>", `Reading token x failed: https://hooks.example answered HTTP 405 Method Not Allowed with a web page (HTML) titled "Method Not Allowed", ` +
			"not the capture API's JSON: that URL is a web page, not the API", nil},
		{call, 502, nil, "<html>gateway</html>", "Reading token x failed: the capture API answered 502 Bad Gateway: <html>gateway</html>", nil},
	}
	for _, tt := range tests {
		err := cl.statusError(tt.call, &httpx.Answer{Status: tt.status, Header: tt.header, Body: []byte(tt.body)}, 0, redact.New("secret-key-123", tt.call.Key))
		if !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%d: %q\nwant %q", tt.status, err, tt.want)
		}
		if strings.Contains(err.Error(), "key-0123456789") {
			t.Errorf("%d: a key shows: %s", tt.status, err)
		}
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("%d: not %v", tt.status, tt.is)
		}
	}
}

// TestBaseOfCaptureURL: the base URL advised for a capture URL given as the
// API's.
func TestBaseOfCaptureURL(t *testing.T) {
	const token = "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d"
	tests := map[string]string{
		"https://webhook.site/" + token:                         "https://webhook.site",
		"https://webhook.site/" + token + "/extra":              "https://webhook.site",
		"https://hooks.example/prefix/" + token:                 "https://hooks.example/prefix",
		"https://webhook.site/my-alias":                         "https://webhook.site",
		"https://" + token + ".webhook.site":                    "https://webhook.site",
		"http://127.0.0.1:8089/" + strings.ToUpper(token) + "/": "http://127.0.0.1:8089",
	}
	for raw, want := range tests {
		u, _ := url.Parse(raw)
		if got := BaseOfCaptureURL(u, token); got != want {
			t.Errorf("BaseOfCaptureURL(%s) = %s, want %s", raw, got, want)
		}
	}
}

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

// TestAPIError: the API's own 404 is told from another server's by its
// body: the error envelope, or the framework's {"message":…}; anything else
// (plain text, a page, another service's JSON) is not the API's.
func TestAPIError(t *testing.T) {
	for body, want := range map[string]bool{
		`{"success":false,"error":{"message":"Token not found.","id":null}}`:               true,
		`{"message":"No query results for model [App\\Token]."}`:                           true,
		`{"message":"Not Found.","exception":"NotFoundHttpException","file":"x","line":1}`: true,
		`{"detail":"Not Found"}`: false,
		`{"timestamp":"2026-01-01","status":404,"error":"Not Found","path":"/token/x"}`: false,
		`{"ok":true,"message":"hi"}`:      false,
		`404 page not found`:              false,
		`<html><title>404</title></html>`: false,
	} {
		if got := apiError(&httpx.Answer{Status: 404, Body: []byte(body)}); got != want {
			t.Errorf("apiError(%s) = %v, want %v", body, got, want)
		}
	}
}
