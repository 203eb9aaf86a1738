package upstream

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
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

// TestLinkLocalGuard calls the address rule directly: it must refuse
// before any packet leaves, so the test sends none.
func TestLinkLocalGuard(t *testing.T) {
	check := func(ctx context.Context, address string) error {
		rule := linkLocalGuard(ctx)
		if rule == nil {
			return nil
		}
		return rule(netip.MustParseAddr(address))
	}
	ctx := context.Background()
	for _, address := range []string{"169.254.169.254", "fe80::1%eth0", "::169.254.169.254", "64:ff9b::a9fe:a9fe", "100.100.100.200", "fd00:ec2::254", "::ffff:169.254.169.254"} {
		if err := check(ctx, address); !errors.Is(err, errLinkLocal) {
			t.Errorf("%s: %v, want errLinkLocal", address, err)
		}
	}
	allow := func(*url.URL) (bool, error) { return true, nil }
	if err := check(WithGate(ctx, allow, true), "169.254.169.254"); err != nil {
		t.Errorf("explicitly allowed: %v", err)
	}
	if err := check(WithGate(ctx, allow, false), "169.254.169.254"); !errors.Is(err, errLinkLocal) {
		t.Errorf("a gate that did not allow it: %v", err)
	}
	if err := check(ctx, "127.0.0.1"); err != nil {
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
