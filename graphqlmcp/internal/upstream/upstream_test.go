package upstream

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpforge/servers/shared/httpx"
)

func parse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestPolicyResolve(t *testing.T) {
	def := parse(t, "https://api.example.com/graphql")
	open := Policy{Default: def}
	fenced := Policy{Default: def, Allow: []*url.URL{parse(t, "https://other.example.com"), parse(t, "https://api.example.com/v2/")}}
	tests := []struct {
		name      string
		policy    Policy
		endpoint  string
		want      Target // URL compared as a string
		wantError string
	}{
		{"default", open, "", Target{URL: def, StartupHeaders: true, LinkLocalAllowed: true}, ""},
		{"same origin, other path", open, "https://API.example.com:443/other", Target{StartupHeaders: true}, ""},
		{"other origin", open, "https://evil.example.com/graphql", Target{}, ""},
		{"other scheme is another origin", open, "http://api.example.com/graphql", Target{}, ""},
		{"allowed origin", fenced, "https://other.example.com/any/path", Target{LinkLocalAllowed: true}, ""},
		{"allowed prefix", fenced, "https://api.example.com/v2/graphql", Target{StartupHeaders: true, LinkLocalAllowed: true}, ""},
		{"outside the prefix", fenced, "https://api.example.com/v3/graphql", Target{}, "is not allowed"},
		{"default always allowed", fenced, "https://api.example.com/graphql", Target{StartupHeaders: true, LinkLocalAllowed: true}, ""},
		{"not a URL", open, "::", Target{}, "not an absolute http(s) URL"},
		{"no host", open, "https:///graphql", Target{}, "not an absolute http(s) URL"},
		{"link-local", open, "http://169.254.169.254/", Target{}, "is refused"},
		{"link-local allowed explicitly", Policy{Default: def, Allow: []*url.URL{parse(t, "http://169.254.169.254")}}, "http://169.254.169.254/x", Target{LinkLocalAllowed: true}, ""},
		// Other spellings of metadata addresses.
		{"v4-compatible IPv6", open, "http://[::169.254.169.254]/", Target{}, "is refused"},
		{"NAT64", open, "http://[64:ff9b::a9fe:a9fe]/", Target{}, "is refused"},
		{"Alibaba metadata", open, "http://100.100.100.200/latest/meta-data", Target{}, "is refused"},
		{"hex host", open, "http://0xa9fea9fe/", Target{}, "is refused"},
		{"integer host", open, "http://2852039166/", Target{}, "is refused"},
		// Dot segments are refused, not cleaned (TestPerCallEndpointPaths).
		{"dot segments leave the prefix", fenced, "https://api.example.com/v2/../echo", Target{}, "starts with a dot"},
		{"encoded dot segments leave the prefix", fenced, "https://api.example.com/v2/%2e%2e/echo", Target{}, "an encoded ."},
		{"dot segments within the prefix", fenced, "https://api.example.com/v2/x/../graphql", Target{}, "starts with a dot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.policy.Resolve(tt.endpoint)
			if tt.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantError) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.StartupHeaders != tt.want.StartupHeaders || got.LinkLocalAllowed != tt.want.LinkLocalAllowed {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if strings.Contains(got.URL.String(), "..") || strings.Contains(strings.ToLower(got.URL.String()), "%2e") {
				t.Errorf("the URL sent keeps dot segments: %s", got.URL)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	got := Merge(
		map[string]string{"authorization": "Bearer a", "ACCEPT": "application/json", "X-Team": "1"},
		map[string]string{"Authorization": "Bearer b", "x-call": "2"},
	)
	want := http.Header{
		"Content-Type":  {"application/json"},
		"Accept":        {"application/graphql-response+json, application/json;q=0.9"}, // framing: the default stays
		"Authorization": {"Bearer b"},
		"X-Team":        {"1"},
		"X-Call":        {"2"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Merge (-want +got):\n%s", diff)
	}
}

func TestRedactor(t *testing.T) {
	r := NewRedactor(map[string]string{
		"Authorization": "Bearer abcdef123456",
		"X-Api-Key":     `k"ey<with>json`,
		"X-Short":       "abc",
		"Accept":        "application/json",
	})
	for in, want := range map[string]string{
		"token Bearer abcdef123456 here":    "token [REDACTED] here",
		"bare abcdef123456":                 "bare [REDACTED]",
		`{"echo":"k\"ey<with>json"}`:        `{"echo":"[REDACTED]"}`,
		"abc stays, application/json stays": "abc stays, application/json stays",
	} {
		if got := r.String(in); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheckHeaders(t *testing.T) {
	for headers, want := range map[string]map[string]string{
		"cannot be set":           {"Transfer-Encoding": "chunked"},
		"not a valid HTTP header": {"Bad:Name": "x"},
		"contains a line break":   {"X-A": "a\nb"},
		"":                        {"X-Fine": "ok", "Authorization": "Bearer x"},
	} {
		err := CheckHeaders(want)
		if headers == "" {
			if err != nil {
				t.Errorf("CheckHeaders(%v) = %v", want, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), headers) {
			t.Errorf("CheckHeaders(%v) = %v, want %q", want, err, headers)
		}
	}
}

// FuzzResolve: no endpoint makes the policy panic; an accepted one has no dot
// segments (nor any path checkPath refuses, nor a query string but the
// configured one), is under an allowed prefix when there is an allow-list, and is a
// link-local or metadata host only when the operator named it.
func FuzzResolve(f *testing.F) {
	def, _ := url.Parse("https://api.example.com/graphql")
	prefix, _ := url.Parse("https://api.example.com/v2/")
	policies := []Policy{{Default: def}, {Default: def, Allow: []*url.URL{prefix}}}
	for _, seed := range []string{"", "https://ap\u0130.example.com/v2/", "https://\u212a.example.com/", "https://API.example.com./graphql", "http://[FE80::1%25eth0]:80/x", "https://api.example.com/v2/../x", "http://[::169.254.169.254]/", "http://0xa9fea9fe/", "https://api.example.com/v2/%2e%2e/x", "http://u:p@h/?q#f", "https://api.example.com/v2/..;/x", "https://api.example.com/v2/x?query=mutation%7Bw%7D", "https://api.example.com/v2/%252e"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for i, p := range policies {
			target, err := p.Resolve(raw)
			if err != nil {
				continue
			}
			u := target.URL
			for _, segment := range strings.Split(u.Path, "/") {
				if segment == ".." || segment == "." {
					t.Fatalf("policy %d: %q resolved to %s, with dot segments", i, raw, u)
				}
			}
			if !target.IsDefault {
				// A per-call endpoint is one no server reads as another
				// path, and carries no query string but the configured
				// one (here, the default's: none).
				if err := checkPath(u); err != nil {
					t.Fatalf("policy %d: %q resolved to %s: %v", i, raw, u, err)
				}
				if u.RawQuery != "" {
					t.Fatalf("policy %d: %q resolved to %s, with a query string", i, raw, u)
				}
			}
			if len(p.Allow) > 0 && !sameEndpoint(u, p.Default) && !httpx.UnderPrefix(u, prefix) {
				t.Fatalf("policy %d: %q resolved to %s, outside the allow-list", i, raw, u)
			}
			if IsLinkLocalHost(u.Hostname()) && !target.LinkLocalAllowed {
				t.Fatalf("policy %d: link-local %s accepted without the operator", i, u)
			}
			// What is sent is the host that was judged.
			if host, err := httpx.CanonicalHost(u.Hostname()); err != nil || host != u.Hostname() {
				t.Fatalf("policy %d: %q resolved to %s, whose host is not canonical (%q, %v)", i, raw, u, host, err)
			}
			if target.StartupHeaders && !httpx.SameOrigin(u, p.Default) {
				t.Fatalf("policy %d: %q gets the startup headers at another origin than the default's", i, raw)
			}
		}
	})
}
