package httpx

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// lookAlikes are hosts that Unicode case folding (strings.ToLower,
// strings.EqualFold) or IDNA mapping relates to an ASCII host: the
// canonical form is the one the transport dials, whichever way each goes.
var lookAlikes = []struct {
	host, canonical string
}{
	{"ap\u0130.example", "xn--api-bec.example"},                                           // İ: ToLower gives "i", the transport dials xn--
	{"ap\u0131.example", "xn--ap-ipa.example"},                                            // dotless ı: ToUpper gives "I"
	{"stra\u00dfe.example", "xn--strae-oqa.example"},                                      // ß: EqualFold is not "ss", nor is IDNA 2008
	{"\u212aey.example", "key.example"},                                                   // KELVIN SIGN: mapped to k by IDNA too
	{"ba\u017fe.example", "base.example"},                                                 // LONG S: mapped to s
	{"\u2126mega.example", "xn--mega-fpd.example"},                                        // OHM SIGN: ω, not Ω
	{"\uff41\uff50\uff49\uff0e\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45", "api.example"}, // fullwidth letters and full stop
	{"\uff21\uff30\uff29.example", "api.example"},                                         // fullwidth capitals
	{"api\u3002example", "api.example"},                                                   // ideographic full stop
	{"\uff11\uff12\uff17.0.0.1", "127.0.0.1"},                                             // fullwidth digits make an IPv4 address
	{"API.Example.COM", "api.example.com"},                                                // ASCII case
	{"api.example.", "api.example"},                                                       // the root label
	{"ap\u0130.example.", "xn--api-bec.example"},                                          // both
	{"[::FFFF:127.0.0.1]", "::ffff:127.0.0.1"},                                            // IPv6 in brackets
	{"FE80::1%eth0", "fe80::1%eth0"},                                                      // a zone is kept
	{"a_b.example", "a_b.example"},                                                        // names that are not DNS hostnames still dial
}

func TestCanonicalHost(t *testing.T) {
	for _, tt := range lookAlikes {
		got, err := CanonicalHost(tt.host)
		if err != nil || got != tt.canonical {
			t.Errorf("CanonicalHost(%q) = %q, %v; want %q", tt.host, got, err, tt.canonical)
		}
	}
	for _, host := range []string{
		"", ".", "a..b", ".api.example", "api.example..", "a%62c.example", "a%C4%B0.example", "api example", "api.example/x",
		"[api.example]", "[127.0.0.1]", "[::1", "1.2.3.4%eth0", "fe80::1%eth 0", "fe80::1%a/b", "xn--a.example\u0130\u0301\u200d", "a\u200db.example", "\xff.example",
	} {
		if got, err := CanonicalHost(host); err == nil {
			t.Errorf("CanonicalHost(%q) = %q, want an error", host, got)
		}
	}
}

// TestCanonicalHostErrorIsBounded: a refusal quotes a long host only in
// part, with its length.
func TestCanonicalHostErrorIsBounded(t *testing.T) {
	host := strings.Repeat("\u00e9", 50_000) + "..x"
	_, err := CanonicalHost(host)
	if err == nil || len(err.Error()) > 400 || !strings.Contains(err.Error(), "(100003 bytes)") {
		t.Errorf("CanonicalHost of a %d-byte host: %d-byte error %.200q", len(host), len(err.Error()), err)
	}
}

// TestCanonicalHostIsWhatGoDials: the canonical form of each look-alike is
// the name Go's own transport dials for it (as written, before this
// package's client rewrites it), so a decision taken on the canonical form
// is taken on the server that would be reached.
func TestCanonicalHostIsWhatGoDials(t *testing.T) {
	stop := errors.New("stop")
	for _, tt := range lookAlikes {
		if strings.Contains(tt.host, ":") {
			continue // addresses are not names
		}
		var dialled string
		transport := &http.Transport{DialContext: func(_ context.Context, _, address string) (net.Conn, error) {
			dialled = address
			return nil, stop
		}}
		req, err := http.NewRequest(http.MethodGet, "http://"+tt.host+"/", nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := transport.RoundTrip(req); !errors.Is(err, stop) {
			t.Fatalf("%q: %v", tt.host, err)
		}
		host, _, _ := net.SplitHostPort(dialled)
		// Go dials an ASCII name as written: case and a final dot do not
		// change the server DNS finds.
		if got := strings.TrimSuffix(asciiLower(host), "."); got != tt.canonical {
			t.Errorf("%q: Go dials %q, the canonical form is %q", tt.host, dialled, tt.canonical)
		}
	}
}

// TestCanonicalURL: the URL a request goes to keeps its port as written and
// an IPv6 zone as url.Parse holds it.
func TestCanonicalURL(t *testing.T) {
	for raw, want := range map[string]string{
		"http://API.Example.:8080/x?q=1":  "http://api.example:8080/x?q=1",
		"http://ap%C4%B0.example/graphql": "http://xn--api-bec.example/graphql",
		"http://[FE80::1%25eth0]:80/":     "http://[fe80::1%25eth0]:80/",
		"http://[::FFFF:1.2.3.4]/":        "http://[::ffff:1.2.3.4]/",
		"http://api.example/":             "http://api.example/",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		got, err := CanonicalURL(u)
		if err != nil || got.String() != want {
			t.Errorf("CanonicalURL(%s) = %v, %v; want %s", raw, got, err, want)
			continue
		}
		if again, _ := CanonicalURL(got); again != got {
			t.Errorf("CanonicalURL(%s) is not canonical itself", got)
		}
	}
}

func TestOrigin(t *testing.T) {
	parse := func(raw string) *url.URL {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	for _, tt := range []struct {
		a, b string
		same bool
	}{
		{"https://API.example.com/graphql", "https://api.example.com:443/other", true},
		{"http://example.com", "http://example.com:80/x", true},
		{"http://example.com:080", "http://example.com/", true},
		{"http://api.example./graphql", "http://api.example/graphql", true},
		{"http://\uff41\uff50\uff49.example/", "http://api.example/", true},
		{"http://\u212aey.example/", "http://key.example/", true},
		{"http://ap%C4%B0.example/graphql", "http://xn--api-bec.example/graphql", true},
		{"http://ap\u0130.example/graphql", "http://api.example/graphql", false},
		{"http://ap%C4%B0.example/graphql", "http://api.example/graphql", false},
		{"http://ap\u0131.example/", "http://api.example/", false},
		{"http://api.example/", "https://api.example/", false},
		{"http://api.example/", "http://api.example:8080/", false},
		{"http://[::1]/", "http://[0:0::1]:80/", true},
	} {
		if got := SameOrigin(parse(tt.a), parse(tt.b)); got != tt.same {
			oa, errA := Origin(parse(tt.a))
			ob, errB := Origin(parse(tt.b))
			t.Errorf("SameOrigin(%s, %s) = %v, want %v (%q %v, %q %v)", tt.a, tt.b, got, tt.same, oa, errA, ob, errB)
		}
	}
	bad := &url.URL{Scheme: "http", Host: "a..b"}
	if SameOrigin(bad, bad) {
		t.Error("a host with no canonical form shares an origin with itself")
	}
	if !SameHost("API.example.", "api.example") || SameHost("ap\u0130.example", "api.example") || SameHost("", "") {
		t.Error("SameHost does not compare canonical forms")
	}
}

func TestIsLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST": true, "localhost.": true, "localho\u017ft": true, "\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54": true,
		"127.0.0.1": true, "127.1.2.3": true, "::1": true, "[::1]": true, "::ffff:127.0.0.1": true, "\uff11\uff12\uff17.0.0.1": true,
		"l\u043ecalhost": false, "localh\u0131st": false, "localhost.evil.example": false, "": false, "0.0.0.0": false, "::": false, "10.0.0.1": false, "a..b": false,
	} {
		if got := IsLoopbackHost(host); got != want {
			t.Errorf("IsLoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

// FuzzCanonicalHost: no host makes CanonicalHost panic; an accepted one is
// ASCII, lower case, without the root dot, canonical itself, and (a name)
// the one Go's transport dials for the host as written.
func FuzzCanonicalHost(f *testing.F) {
	for _, tt := range lookAlikes {
		f.Add(tt.host)
	}
	for _, seed := range []string{"", "a..b", "xn--api-bec.example", "[::1]", "fe80::1%25eth0", "a%62", "\u200d", "\u0663.example"} {
		f.Add(seed)
	}
	stop := errors.New("stop")
	f.Fuzz(func(t *testing.T, host string) {
		canonical, err := CanonicalHost(host)
		if err != nil {
			return
		}
		// An IPv6 zone is an interface's name, whose case is its own.
		address, _, _ := strings.Cut(canonical, "%")
		if !isASCII(canonical) || asciiLower(address) != address || !strings.Contains(canonical, ":") && strings.HasSuffix(canonical, ".") {
			t.Fatalf("CanonicalHost(%q) = %q: not ASCII lower case without the root dot", host, canonical)
		}
		if again, err := CanonicalHost(canonical); err != nil || again != canonical {
			t.Fatalf("CanonicalHost(%q) = %q, whose own canonical form is %q, %v", host, canonical, again, err)
		}
		if strings.ContainsAny(host, ":[]") {
			return
		}
		req, err := http.NewRequest(http.MethodGet, "http://"+host+"/", nil)
		if err != nil || req.URL.Hostname() != host {
			return
		}
		var dialled string
		transport := &http.Transport{DialContext: func(_ context.Context, _, address string) (net.Conn, error) {
			dialled = address
			return nil, stop
		}}
		if _, err := transport.RoundTrip(req); !errors.Is(err, stop) {
			return // Go refuses it: nothing is sent either way
		}
		name, _, _ := net.SplitHostPort(dialled)
		if got := strings.TrimSuffix(asciiLower(name), "."); got != canonical {
			t.Fatalf("host %q: Go dials %q, the canonical form is %q", host, dialled, canonical)
		}
	})
}
