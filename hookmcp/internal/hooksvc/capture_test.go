package hooksvc

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpforge/servers/shared/httpx"
)

// TestCaptureAddressEscapesSegments: a segment is data, sent
// percent-encoded on its own, whatever it holds: "%2e%2e" goes out as
// %252e%252e (a proxy that decodes once reads the text %2e%2e back), a
// slash inside a segment as %2F, so that the address is below the token
// however a server reads it. url.JoinPath would have sent %2e%2e as
// written.
func TestCaptureAddressEscapesSegments(t *testing.T) {
	for _, base := range []string{"https://webhook.site", "https://hooks.example/base/"} {
		u, _ := url.Parse(base)
		cl := &Client{BaseURL: u}
		const id = "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d"
		home := cl.BaseURL.JoinPath(id)
		for segments, want := range map[string]string{
			"%2e%2e|token":   "/%252e%252e/token",
			"..|token":       "/../token",
			"a/b|c":          "/a%2Fb/c",
			"a b|é":          "/a%20b/%C3%A9",
			"..;|x":          "/..%3B/x",
			"github|push":    "/github/push",
			`\..\|token`:     `/%5C..%5C/token`,
			"%252e%252e|x":   "/%25252e%25252e/x",
			"%c0%ae%c0%ae|x": "/%25c0%25ae%25c0%25ae/x",
		} {
			got := cl.CaptureAddress(id, Capture{Segments: strings.Split(segments, "|"), Query: url.Values{}})
			if got.EscapedPath() != home.EscapedPath()+want && "/"+got.EscapedPath() != home.EscapedPath()+want {
				t.Errorf("%s %q: sent as %s, want %s%s", base, segments, got.EscapedPath(), home.EscapedPath(), want)
			}
		}
	}
}

// TestBelow: below reads a path as every server on the way might, and
// answers false for any reading that leaves the token.
func TestBelow(t *testing.T) {
	const home = "/9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d"
	for p, want := range map[string]bool{
		home:                                 true,
		home + "/github/push":                true,
		home + "/a%20b/%C3%A9":               true,
		home + "/%252e%252e-not-a-dot/x":     true,
		home + "/../token":                   false,
		home + "/%2e%2e/token":               false,
		home + "/%2E%2e%2Ftoken":             false,
		home + "/%252e%252e/token":           false,
		home + "/%25252e%25252e/token":       false,
		home + "/..%5ctoken":                 false,
		home + "/%5C..%5Ctoken":              false,
		home + "/..%3B/token":                false,
		home + "/..;/token":                  false,
		home + "/.../token":                  false,
		home + "/.. /token":                  false,
		home + "/%EF%BC%8E%EF%BC%8E/token":   false, // fullwidth ．．
		home + "/%2525252525252e%2525252e/x": false, // still changing after every decoding
		home + "/100%25":                     false, // decodes to a stray %
		"/other" + home:                      false,
		home + "x":                           false,
	} {
		if got := below(p, home); got != want {
			t.Errorf("below(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestCaptureStaysBelow: Capture sends nothing when the address, read as
// any server on the way might, leaves the token, even for segments that
// no tool would pass.
func TestCaptureStaysBelow(t *testing.T) {
	var received atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { received.Add(1) }))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	cl := &Client{BaseURL: u, Caller: &httpx.Caller{HTTP: srv.Client(), Logger: slog.New(slog.DiscardHandler)}, Logger: slog.New(slog.DiscardHandler)}
	for _, segments := range [][]string{{".."}, {"..", "token"}, {"x", "..", "..", "token"}, {"..;"}, {"．．"}} {
		_, err := cl.Capture(context.Background(), "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d", Capture{Method: "DELETE", Segments: segments, Query: url.Values{}}, "")
		if err == nil || !strings.Contains(err.Error(), "nothing was sent") {
			t.Errorf("%q: %v, want a refusal", segments, err)
		}
	}
	if n := received.Load(); n != 0 {
		t.Errorf("the server received %d requests", n)
	}
}
