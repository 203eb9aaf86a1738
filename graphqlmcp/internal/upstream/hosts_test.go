package upstream

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpforge/servers/shared/httpx"
)

// everywhere resolves every name to one address.
type everywhere netip.Addr

func (a everywhere) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.Addr(a)}, nil
}

// table resolves the names it lists; others do not exist.
type table map[string]netip.Addr

func (t table) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if addr, ok := t[host]; ok {
		return []netip.Addr{addr}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// wire records, for every request that reaches it, the Host it was sent
// to and the Authorization header it carried.
type wire struct {
	mu   sync.Mutex
	seen []string
}

func (w *wire) record(r *http.Request) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, r.Host+" auth="+r.Header.Get("Authorization"))
}

func (w *wire) requests() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.seen...)
}

const startupSecret = "Bearer startup-secret-4f1d"

// post sends a query to endpoint as graphql_query does: the policy
// resolves it, the startup headers go only where it says.
func post(t *testing.T, client *Client, policy Policy, endpoint string) error {
	t.Helper()
	target, err := policy.Resolve(endpoint)
	if err != nil {
		return err
	}
	var startup map[string]string
	if target.StartupHeaders {
		startup = map[string]string{"Authorization": startupSecret}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = client.Post(ctx, Request{Target: target, Headers: Merge(startup, nil), Timeout: 5 * time.Second, Query: "{ a }"})
	return err
}

func newClient(policy Policy, opts httpx.Options) *Client {
	return &Client{
		Caller:           &httpx.Caller{HTTP: NewHTTPClientWith(opts), Logger: slog.New(slog.DiscardHandler)},
		MaxResponseBytes: 1 << 20,
		Redactor:         NewRedactor(map[string]string{"Authorization": startupSecret}),
		Gate:             policy.Gate,
	}
}

// TestStartupHeadersNeverReachALookAlike: every name below resolves to
// one loopback server, which records the Host each request was sent to.
// The startup headers arrive only with Host kiwi.test (the default's), for
// every spelling of an endpoint, by argument or by redirect: a name that
// Unicode case folding makes "kiwi" but the transport sends elsewhere
// (xn--…) gets none, and one the transport itself maps to kiwi.test is sent
// as kiwi.test.
func TestStartupHeadersNeverReachALookAlike(t *testing.T) {
	var got wire
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.record(r)
		if to, ok := hopTo(r); ok {
			http.Redirect(w, r, to, http.StatusTemporaryRedirect)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":{"a":1}}`)
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	at := func(host string) string { return "http://" + host + ":" + port + "/graphql" }
	policy := Policy{Default: parse(t, at("kiwi.test"))}
	client := newClient(policy, httpx.Options{Resolver: everywhere(netip.MustParseAddr("127.0.0.1")), Proxy: noProxy})

	hosts := []string{
		"kiwi.test",
		"\u212aiwi.test",                // KELVIN SIGN: the transport maps it to k
		"kiwi.te\u017ft",                // LONG S: mapped to s
		"\uff4b\uff49\uff57\uff49.test", // fullwidth
		"KIWI.Test.",                    // ASCII case, the root label
		"k\u0130wi.test",                // İ: ToLower says "kiwi", the transport sends xn--kwi-…
		"k%C4%B0wi.test",                // the same, percent-encoded
		"k\u0131wi.test",                // dotless ı
		"kiwi.test\u0130",               // a look-alike top-level label
	}
	for _, host := range hosts {
		if err := post(t, client, policy, at(host)); err != nil {
			t.Errorf("endpoint %s: %v", at(host), err)
		}
		if err := post(t, client, policy, at("kiwi.test")+hop(at(host))); err != nil {
			t.Errorf("redirect to %s: %v", at(host), err)
		}
	}
	canonical := "kiwi.test:" + port
	reached := map[string]bool{}
	for _, seen := range got.requests() {
		host, auth, _ := strings.Cut(seen, " auth=")
		reached[host] = true
		if host != canonical && auth != "" {
			t.Errorf("the startup headers reached Host %s", host)
		}
		// Go's client itself drops Authorization on a hop whose host is
		// not written as the first one's (KIWI.Test.): dropping is safe.
		if host == canonical && auth == startupSecret {
			reached["with the startup headers"] = true
		}
		for _, r := range host {
			if r > 0x7f {
				t.Errorf("a request was sent with a non-ASCII Host %q", host)
			}
		}
	}
	// Each look-alike did reach the server, under its own name.
	for _, want := range []string{"with the startup headers", "xn--kiwi-rwc.test:" + port, "xn--kwi-jua.test:" + port, "kiwi.xn--testi-cgd:" + port} {
		if !reached[want] {
			t.Errorf("no request reached %s; reached %v", want, reached)
		}
	}
}

// TestAllowListByCanonicalHost: an allow-list entry admits the names the
// transport sends to its host, and no look-alike.
func TestAllowListByCanonicalHost(t *testing.T) {
	policy := Policy{Default: parse(t, "https://kiwi.test/graphql"), Allow: []*url.URL{parse(t, "https://api.test/v2/")}}
	for endpoint, allowed := range map[string]bool{
		"https://api.test/v2/graphql":                true,
		"https://API.test./v2/graphql":               true,
		"https://\uff41\uff50\uff49.test/v2/graphql": true,
		"https://ap\u0130.test/v2/graphql":           false,
		"https://ap%C4%B0.test/v2/graphql":           false,
		"https://ap\u0131.test/v2/graphql":           false,
		"https://api.test:443/v2/graphql":            true,
		"https://api.test:8443/v2/graphql":           false,
		"https://k\u0130wi.test/graphql":             false,
		"https://\u212aiwi.test/graphql":             true, // the default itself
	} {
		target, err := policy.Resolve(endpoint)
		if allowed != (err == nil) {
			t.Errorf("Resolve(%s) = %v, %v; want allowed %v", endpoint, target.URL, err, allowed)
		}
		if err == nil && !isASCIIString(target.URL.Host) {
			t.Errorf("Resolve(%s) sends to %s, not the canonical host", endpoint, target.URL.Host)
		}
	}
	if _, err := policy.Resolve("https://a..b/graphql"); err == nil || !strings.Contains(err.Error(), "empty label") {
		t.Errorf("a host with no canonical form: %v", err)
	}
	long := "https://api.test/v2/" + strings.Repeat("x", 1<<20) + "?token=secret"
	if _, err := policy.Resolve(long); err == nil || len(err.Error()) > 300 || !strings.Contains(err.Error(), "over the limit of 2048") {
		t.Errorf("a 1 MiB endpoint: a %d-byte error", len(err.Error()))
	}
}

func isASCIIString(s string) bool {
	for _, r := range s {
		if r > 0x7f {
			return false
		}
	}
	return true
}

// hop is a path that asks the test servers here to redirect to to: in the
// path, since a per-call endpoint carries no query string of its own.
func hop(to string) string { return "/hop/" + base64.RawURLEncoding.EncodeToString([]byte(to)) }

// hopTo reads the redirect a hop path asks for.
func hopTo(r *http.Request) (string, bool) {
	_, encoded, ok := strings.Cut(r.URL.Path, "/hop/")
	if !ok {
		return "", false
	}
	to, err := base64.RawURLEncoding.DecodeString(encoded)
	return string(to), err == nil
}

func noProxy(*http.Request) (*url.URL, error) { return nil, nil }

// TestProxyKeepsTheAddressGuard: with a proxy, a per-call endpoint whose
// name resolves to a metadata address, or does not resolve here, never
// reaches the proxy, whether named by the call or by a redirect; the
// default endpoint (named by the operator) goes through unresolved, as
// only the proxy may be able to resolve it.
func TestProxyKeepsTheAddressGuard(t *testing.T) {
	var got wire
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.record(r)
		if to, ok := hopTo(r); ok {
			http.Redirect(w, r, to, http.StatusTemporaryRedirect)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":{"a":1}}`)
	}))
	t.Cleanup(proxy.Close)
	proxyURL := parse(t, proxy.URL)
	resolver := table{
		"169.254.169.254.nip.io": netip.MustParseAddr("169.254.169.254"),
		"public.test":            netip.MustParseAddr("203.0.113.9"),
		"v6.test":                netip.MustParseAddr("fe80::1"),
	}
	policy := Policy{Default: parse(t, "http://corp-only.internal/graphql")}
	client := newClient(policy, httpx.Options{Resolver: resolver, Proxy: http.ProxyURL(proxyURL)})

	for endpoint, reason := range map[string]string{
		"http://169.254.169.254.nip.io/latest/meta-data/":                    "resolves to 169.254.169.254, which is refused",
		"http://v6.test/graphql":                                             "resolves to fe80::1, which is refused",
		"http://unknown.test/graphql":                                        `the host name "unknown.test" does not resolve on this machine`,
		"http://public.test/graphql" + hop("http://169.254.169.254.nip.io/"): "resolves to 169.254.169.254",
	} {
		err := post(t, client, policy, endpoint)
		if err == nil || !strings.Contains(err.Error(), reason) {
			t.Errorf("endpoint %s: %v; want refused: %s", endpoint, err, reason)
		}
	}
	if err := post(t, client, policy, ""); err != nil {
		t.Errorf("the default endpoint through the proxy: %v", err)
	}
	want := []string{"public.test auth=", "corp-only.internal auth=" + startupSecret}
	if seen := got.requests(); fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("the proxy was asked for %q, want %q", seen, want)
	}
}
