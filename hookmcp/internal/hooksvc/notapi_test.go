package hooksvc

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpforge/servers/shared/httpx"
)

// TestNotTheAPI: a success that is not the API's JSON is an error naming
// HOOKSVC_API_URL, said as a capture URL's answer when X-Token-Id marks one;
// a raw body is taken as it comes, whatever it carries.
func TestNotTheAPI(t *testing.T) {
	const token = "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/raw") || strings.HasPrefix(r.URL.Path, "/"+token) {
			w.Header().Set("X-Token-Id", token)
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "hello "+r.Header.Get("Api-Key"))
	}))
	t.Cleanup(srv.Close)
	client := func(base string) *Client {
		u, _ := url.Parse(base)
		return &Client{Caller: &httpx.Caller{HTTP: httpx.NewClient(httpx.Options{}), Logger: slog.New(slog.DiscardHandler)},
			BaseURL: u, APIKey: "env-key-0123456789", Timeout: 5 * time.Second, Logger: slog.New(slog.DiscardHandler)}
	}
	ctx := context.Background()

	_, err := client(srv.URL).GetToken(ctx, "env-key-0123456789", token)
	if err == nil || !strings.HasPrefix(err.Error(), "Reading token "+token+" failed: "+srv.URL+" answered HTTP 200 with a text/plain body, not the capture API's JSON: hello [REDACTED]. "+
		"Check that HOOKSVC_API_URL (--api-url) is the API's base URL") {
		t.Errorf("plain text: %v", err)
	}
	err = client(srv.URL+"/"+token).DeleteToken(ctx, "", token)
	if err == nil || !strings.Contains(err.Error(), "is a capture URL, not the capture API: the request was captured by token "+token) ||
		!strings.Contains(err.Error(), "base URL, "+srv.URL+", when starting hookmcp") {
		t.Errorf("a delete sent to a capture URL: %v", err)
	}
	err = client(srv.URL+"/"+token).DeleteToken(ctx, "env-key-0123456789", token)
	if err == nil || !strings.Contains(err.Error(), "nothing was sent: HOOKSVC_API_URL ("+srv.URL+"/"+token+") is a capture URL of token "+token) {
		t.Errorf("a delete with a key, to a capture URL: %v", err)
	}
	body, err := client(srv.URL).RawBody(ctx, "", token, token)
	if err != nil || string(body) != "hello " {
		t.Errorf("raw body: %q, %v", body, err)
	}
}

// TestDeleteVerdict: the real servers' answers to a delete are read as
// done or as nothing deleted; JSON of another shape is no verdict.
func TestDeleteVerdict(t *testing.T) {
	for _, tc := range []struct {
		body     string
		none, ok bool
	}{
		{"", false, true},
		{" \n", false, true},
		{`{"status":true}`, false, true},
		{`{"status":false}`, true, true},
		{`{"success":true}`, false, true},
		{`{"success":false}`, true, true},
		{`{"status":"ok"}`, false, false},
		{`{"deleted":1}`, false, false},
		{`[true]`, false, false},
	} {
		if none, ok := deleteVerdict([]byte(tc.body)); none != tc.none || ok != tc.ok {
			t.Errorf("deleteVerdict(%q) = %v, %v; want %v, %v", tc.body, none, ok, tc.none, tc.ok)
		}
	}
}

// TestAPIRefusal: the API's error envelope and Laravel's are read with
// their message (and field messages); a success or another shape is not.
func TestAPIRefusal(t *testing.T) {
	for _, tc := range []struct {
		body, message string
		ok            bool
	}{
		{`{"success":false,"error":{"message":"No.","id":null}}`, "No.", true},
		{`{"message":"The given data was invalid.","errors":{"alias":["Taken."]}}`, "The given data was invalid. (alias: Taken.)", true},
		{`{"message":"Server Error"}`, "Server Error", true},
		{`{"success":true,"message":"done"}`, "", false},
		{`{"message":"hi","uuid":"x"}`, "", false},
		{`{"status":false}`, "", false},
	} {
		if message, ok := apiRefusal([]byte(tc.body)); message != tc.message || ok != tc.ok {
			t.Errorf("apiRefusal(%s) = %q, %v; want %q, %v", tc.body, message, ok, tc.message, tc.ok)
		}
	}
}
