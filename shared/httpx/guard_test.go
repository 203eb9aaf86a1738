package httpx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// fakeResolver answers lookups from a table; a name not in it does not
// exist.
type fakeResolver map[string][]netip.Addr

func (r fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if addrs, ok := r[host]; ok {
		return addrs, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// recordingProxy is a forward proxy on loopback that answers every request
// itself and records what it was asked to fetch (and the Authorization
// header that came with it).
type recordingProxy struct {
	*httptest.Server
	mu      sync.Mutex
	fetched []string
}

func startRecordingProxy(t *testing.T, answer http.HandlerFunc) *recordingProxy {
	p := &recordingProxy{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.fetched = append(p.fetched, r.Method+" "+r.URL.String()+" auth="+r.Header.Get("Authorization"))
		p.mu.Unlock()
		if r.Method == http.MethodConnect {
			http.Error(w, "no tunnels here", http.StatusForbidden)
			return
		}
		answer(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *recordingProxy) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.fetched...)
}

var errBlocked = errors.New("link-local addresses are blocked")

// allowedKey marks a request's context as allowed link-local addresses, as
// graphqlmcp marks an operator-named endpoint.
type allowedKey struct{}

// blockLinkLocal is a Guard as graphqlmcp's: link-local refused, unless
// the request's context says its URL was allowed one.
func blockLinkLocal(ctx context.Context) AddressRule {
	if ctx.Value(allowedKey{}) != nil {
		return nil
	}
	return func(addr netip.Addr) error {
		if addr.Unmap().IsLinkLocalUnicast() {
			return errBlocked
		}
		return nil
	}
}

// TestGuardBeforeProxy: with a proxy, the client dials only the proxy, and
// the proxy resolves the target's name. Every address the name has is
// checked here before the request goes to the proxy, and a name that does
// not resolve here is refused: a name that points at a blocked address
// never reaches the proxy, whether the call named it or a redirect did.
func TestGuardBeforeProxy(t *testing.T) {
	proxy := startRecordingProxy(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hop" {
			http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusTemporaryRedirect)
			return
		}
		io.WriteString(w, "fetched "+r.URL.Host)
	})
	proxyURL, _ := url.Parse(proxy.URL)
	resolver := fakeResolver{
		"metadata.test":    {netip.MustParseAddr("169.254.169.254")},
		"v6meta.test":      {netip.MustParseAddr("fe80::a9fe:a9fe")},
		"mixed.test":       {netip.MustParseAddr("203.0.113.7"), netip.MustParseAddr("169.254.169.254")},
		"public.test":      {netip.MustParseAddr("203.0.113.7")},
		"xn--api-bec.test": {netip.MustParseAddr("169.254.169.254")},
	}
	client := NewClient(Options{
		Guard:         blockLinkLocal,
		Proxy:         http.ProxyURL(proxyURL),
		Resolver:      resolver,
		CheckRedirect: func(*http.Request, []*http.Request) error { return nil },
	})
	get := func(ctx context.Context, target string) (string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		if err != nil {
			return "", err
		}
		resp, err := client.Do(req)
		if err != nil {
			return "", Explain(ctx, err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return string(body), err
	}
	ctx := context.Background()

	for _, tt := range []struct{ target, reason string }{
		{"http://metadata.test/latest/meta-data/", `the host "metadata.test" resolves to 169.254.169.254, which is refused: link-local addresses are blocked`},
		{"http://v6meta.test/", `the host "v6meta.test" resolves to fe80::a9fe:a9fe, which is refused`},
		{"http://mixed.test/", `the host "mixed.test" resolves to 169.254.169.254, which is refused`},
		{"http://169.254.169.254/latest/", `the address 169.254.169.254 is refused`},
		{"http://nowhere.test/", `the host name "nowhere.test" does not resolve on this machine (no such host), and a request sent through the proxy`},
		// A look-alike is resolved by the name the transport sends.
		{"http://ap\u0130.test/", `the host "xn--api-bec.test" resolves to 169.254.169.254`},
		{"https://metadata.test/", `the host "metadata.test" resolves to 169.254.169.254, which is refused`},
		{"http://public.test/hop?to=" + url.QueryEscape("http://metadata.test/x"), `the host "metadata.test" resolves to 169.254.169.254, which is refused`},
	} {
		body, err := get(ctx, tt.target)
		failure := AsFailure(err)
		if failure == nil || failure.Kind != RefusedAddress || !strings.Contains(failure.Reason, tt.reason) {
			t.Errorf("GET %s: %q, %v; want refused: %s", tt.target, body, err, tt.reason)
		}
	}
	for _, fetched := range proxy.requests() {
		if !strings.HasPrefix(fetched, "GET http://public.test/hop?") {
			t.Errorf("the proxy was asked for %s", fetched)
		}
	}

	// What passes the guard goes through the proxy, unresolved beyond the
	// check; a URL allowed any address is not resolved here at all (only
	// the proxy may be able to).
	if body, err := get(ctx, "http://public.test/x"); err != nil || body != "fetched public.test" {
		t.Errorf("a public name: %q, %v", body, err)
	}
	allowed := context.WithValue(ctx, allowedKey{}, true)
	if body, err := get(allowed, "http://nowhere.test/x"); err != nil || body != "fetched nowhere.test" {
		t.Errorf("an allowed name only the proxy resolves: %q, %v", body, err)
	}
	if body, err := get(allowed, "http://metadata.test/x"); err != nil || body != "fetched metadata.test" {
		t.Errorf("an allowed metadata name: %q, %v", body, err)
	}
}

// TestGuardDirect: without a proxy, the client dials the addresses it
// checked, from the resolver it was given: a name is never resolved twice.
func TestGuardDirect(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "host "+r.Host)
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	resolver := fakeResolver{
		"loop.test":     {netip.MustParseAddr("127.0.0.1")},
		"metadata.test": {netip.MustParseAddr("169.254.169.254")},
	}
	client := NewClient(Options{Guard: blockLinkLocal, Resolver: resolver, Proxy: func(*http.Request) (*url.URL, error) { return nil, nil }})
	get := func(target string) (string, error) {
		resp, err := client.Get(target)
		if err != nil {
			return "", Explain(context.Background(), err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return string(body), err
	}
	if body, err := get(fmt.Sprintf("http://LOOP.test.:%s/", port)); err != nil || body != "host loop.test:"+port {
		t.Errorf("a name resolved by the given resolver: %q, %v; want the canonical host sent", body, err)
	}
	body, err := get(fmt.Sprintf("http://metadata.test:%s/", port))
	if failure := AsFailure(err); failure == nil || failure.Kind != RefusedAddress || !strings.Contains(failure.Reason, "169.254.169.254") {
		t.Errorf("a metadata name, direct: %q, %v", body, err)
	}
	body, err = get(fmt.Sprintf("http://a..b:%s/", port))
	if failure := AsFailure(err); failure == nil || !strings.Contains(failure.Reason, "the URL's host is refused: host \"a..b\" has an empty label") {
		t.Errorf("a host with no canonical form: %q, %v", body, err)
	}
}

// TestGuardDirectSystemResolver: without an injected resolver (as the
// servers run), a name is looked up by the system and every address it
// has is checked before the dial, and each address dialled is checked
// again as it is dialled.
func TestGuardDirectSystemResolver(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "reached") }))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	refuseLoopback := func(context.Context) AddressRule {
		return func(addr netip.Addr) error {
			if addr.Unmap().IsLoopback() {
				return errors.New("loopback is refused here")
			}
			return nil
		}
	}
	client := NewClient(Options{Guard: refuseLoopback, Proxy: func(*http.Request) (*url.URL, error) { return nil, nil }})
	for _, host := range []string{"localhost", "127.0.0.1"} {
		resp, err := client.Get("http://" + net.JoinHostPort(host, port) + "/")
		if err == nil {
			resp.Body.Close()
		}
		if failure := AsFailure(Explain(context.Background(), err)); failure == nil || failure.Kind != RefusedAddress || !strings.Contains(failure.Reason, "loopback is refused here") {
			t.Errorf("%s: %v, want refused", host, err)
		}
	}
	if err := checkDialled("rebound.test", "169.254.169.254:80", blockLinkLocal(context.Background())); !errors.Is(err, errBlocked) || !strings.Contains(err.Error(), `the host "rebound.test" resolves to 169.254.169.254`) {
		t.Errorf("an address dialled after a second lookup: %v", err)
	}
	if err := checkDialled("public.test", "[2001:db8::1]:443", blockLinkLocal(context.Background())); err != nil {
		t.Errorf("a public address: %v", err)
	}
	allowAll := NewClient(Options{Guard: func(context.Context) AddressRule { return func(netip.Addr) error { return nil } }, Proxy: func(*http.Request) (*url.URL, error) { return nil, nil }})
	resp, err := allowAll.Get("http://" + net.JoinHostPort("localhost", port) + "/")
	if err != nil {
		t.Fatalf("a rule that passes: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "reached" {
		t.Errorf("a rule that passes: %q", body)
	}
}
