package upstream

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/mcpforge/servers/shared/httpx"
)

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{4 << 20: "4 MiB", 16 << 10: "16 KiB", 1000: "1000 bytes", 1536 << 10: "1536 KiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestOrigin(t *testing.T) {
	for _, tt := range []struct{ a, b string }{
		{"https://API.example.com/graphql", "https://api.example.com:443/other"},
		{"http://example.com", "http://example.com:80/x"},
	} {
		a, _ := url.Parse(tt.a)
		b, _ := url.Parse(tt.b)
		if Origin(a) != Origin(b) {
			t.Errorf("Origin(%s) = %s, Origin(%s) = %s, want equal", tt.a, Origin(a), tt.b, Origin(b))
		}
	}
}

func TestIsLinkLocalHost(t *testing.T) {
	for host, want := range map[string]bool{
		"169.254.169.254": true, "169.254.0.1": true, "fe80::1": true, "[fe80::1]": true, "fd00:ec2::254": true,
		"metadata.google.internal": true, "metadata.google.internal.": true, "METADATA": true, "::ffff:169.254.169.254": true,
		"127.0.0.1": false, "10.0.0.1": false, "example.com": false, "::1": false, "api.metadata.example": false,
		// Other spellings of the same addresses.
		"::169.254.169.254": true, "[::169.254.169.254]": true, "64:ff9b::a9fe:a9fe": true, "[64:ff9b::a9fe:a9fe]": true,
		"64:ff9b:1::a9fe:a9fe": true, "2002:a9fe:a9fe::1": true, "2001:0:4136:e378:8000:63bf:5601:5601": true,
		"100.100.100.200": true, "0xa9fea9fe": true, "0xA9FEA9FE": true, "2852039166": true, "0251.0376.0251.0376": true,
		"169.254.43518": true, "169.16689662": true, "fe80::1%25eth0": true, "instance-data": true,
		"0x7f000001": false, "64:ff9b::a00:1": false, "::": false, "1.2.3.4.5": false, "0x1ffffffff": false, "256.1.1.1": false,
	} {
		if got := IsLinkLocalHost(host); got != want {
			t.Errorf("IsLinkLocalHost(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestGuardLinkLocal calls the dialer hook directly: it must refuse before
// any packet leaves, so the test sends none.
func TestGuardLinkLocal(t *testing.T) {
	ctx := context.Background()
	if err := guardLinkLocal(ctx, "tcp4", "169.254.169.254:80", nil); !errors.Is(err, errLinkLocal) {
		t.Errorf("link-local address: %v, want errLinkLocal", err)
	}
	if err := guardLinkLocal(ctx, "tcp6", "[fe80::1%eth0]:80", nil); !errors.Is(err, errLinkLocal) {
		t.Errorf("zoned IPv6 link-local: %v, want errLinkLocal", err)
	}
	for _, address := range []string{"[::169.254.169.254]:80", "[64:ff9b::a9fe:a9fe]:80", "100.100.100.200:80", "[fd00:ec2::254]:80"} {
		if err := guardLinkLocal(ctx, "tcp6", address, nil); !errors.Is(err, errLinkLocal) {
			t.Errorf("%s: %v, want errLinkLocal", address, err)
		}
	}
	allow := func(*url.URL) (bool, error) { return true, nil }
	if err := guardLinkLocal(WithGate(ctx, allow, true), "tcp4", "169.254.169.254:80", nil); err != nil {
		t.Errorf("explicitly allowed: %v", err)
	}
	if err := guardLinkLocal(WithGate(ctx, allow, false), "tcp4", "169.254.169.254:80", nil); !errors.Is(err, errLinkLocal) {
		t.Errorf("a gate that did not allow it: %v", err)
	}
	if err := guardLinkLocal(ctx, "tcp4", "127.0.0.1:80", nil); err != nil {
		t.Errorf("loopback: %v", err)
	}
}

func headerEcho(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Got-Token", r.Header.Get("X-Token"))
		w.Header().Set("X-Got-Accept", r.Header.Get("Accept"))
		w.Header().Set("X-Got-UA", r.Header.Get("User-Agent"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRedirects(t *testing.T) {
	target := headerEcho(t)
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/same" {
			http.Redirect(w, r, "/echo-here", http.StatusTemporaryRedirect)
			return
		}
		if r.URL.Path == "/echo-here" {
			w.Header().Set("X-Got-Token", r.Header.Get("X-Token"))
			return
		}
		http.Redirect(w, r, target.URL+"/x", http.StatusFound)
	}))
	t.Cleanup(redirector.Close)

	get := func(client *http.Client, path string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, redirector.URL+path, nil)
		req.Header.Set("X-Token", "t0ken")
		req.Header.Set("Accept", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}

	following := NewHTTPClient("ua/1")
	if resp := get(following, "/cross"); resp.Header.Get("X-Got-Token") != "" || resp.Header.Get("X-Got-Accept") != "application/json" || resp.Header.Get("X-Got-UA") != "ua/1" {
		t.Errorf("cross-origin hop: token %q, accept %q, ua %q", resp.Header.Get("X-Got-Token"), resp.Header.Get("X-Got-Accept"), resp.Header.Get("X-Got-UA"))
	}
	if resp := get(following, "/same"); resp.Header.Get("X-Got-Token") != "t0ken" {
		t.Errorf("same-origin hop dropped the header")
	}
	notFollowing := httpx.NewClient(httpx.Options{})
	if resp := get(notFollowing, "/cross"); resp.StatusCode != http.StatusFound {
		t.Errorf("without a redirect policy: status %d, want 302", resp.StatusCode)
	}
}
