package upstream

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpforge/servers/shared/httpx"
)

// TestPerCallEndpointPaths: with --allow-endpoint https://api.example/graphql,
// no spelling of a path that some server on the way (Tomcat's ;parameters,
// IIS's backslash, a proxy that decodes once or twice, one that reads
// overlong UTF-8 or fullwidth dots) reads as leaving /graphql is taken, in
// any case; the same holds with no allow-list, where the rule is the same.
// Plain paths under the prefix still pass, sent as they were judged.
func TestPerCallEndpointPaths(t *testing.T) {
	def := parse(t, "https://api.example/graphql")
	fenced := Policy{Default: def, Allow: []*url.URL{def}}
	open := Policy{Default: def}
	var refused []string
	for _, climb := range []string{
		"..;/admin", ".;/..;/admin", "..%5cadmin", "..%5Cadmin", `..\admin`, "..%3b/admin", "..%3B/admin",
		"..", ".", "../admin", "./x", ".hidden", "%2e%2e/admin", "%2E%2E/admin", "%2e./admin", ".%2e/admin",
		"%252e%252e/admin", "%25252e%25252e/admin", "..%252fadmin", "x%2f..%2fadmin", "x%2F..%2Fadmin",
		"x;jsessionid=1", "x%3bjsessionid=1", "%c0%ae%c0%ae/admin", "%e0%80%ae%e0%80%ae/admin", "．．/admin", "%ef%bc%8e%ef%bc%8e/admin",
		"x%3fquery=mutation%7Bwipe%7D", "x%23frag", "x%00", "x%20y", "x%0d%0a",
	} {
		refused = append(refused, "https://api.example/graphql/"+climb)
	}
	for _, raw := range refused {
		for name, p := range map[string]Policy{"fenced": fenced, "open": open} {
			if target, err := p.Resolve(raw); err == nil {
				t.Errorf("%s: %s accepted; sent as %s", name, raw, target.URL)
			} else if !strings.Contains(err.Error(), "is refused") || !strings.Contains(err.Error(), "omit endpoint") {
				t.Errorf("%s: %s: error does not say the rule and the fix: %v", name, raw, err)
			}
		}
	}
	for raw, sent := range map[string]string{
		"https://api.example/graphql/v2":           "https://api.example/graphql/v2",
		"https://api.example/graphql/v2.1/x":       "https://api.example/graphql/v2.1/x",
		"https://api.example/gr%61phql/v2":         "https://api.example/graphql/v2",
		"https://api.example/graphql/a-b_c~d@e:f=": "https://api.example/graphql/a-b_c~d@e:f=",
	} {
		target, err := fenced.Resolve(raw)
		if err != nil {
			t.Errorf("%s refused: %v", raw, err)
			continue
		}
		if target.URL.String() != sent {
			t.Errorf("%s is sent as %s, want %s", raw, target.URL, sent)
		}
	}
	if _, err := fenced.Resolve("https://api.example/graphqlx"); err == nil {
		t.Error("a path that only begins like the prefix is allowed")
	}
}

// TestPerCallEndpointQueryString: a per-call endpoint carries no query
// string, or exactly the one configured for the default or for the
// --allow-endpoint entry it matches. Every other query string is refused,
// the GraphQL parameters in any spelling first among them: express-graphql
// runs the URL's query before the body's.
func TestPerCallEndpointQueryString(t *testing.T) {
	def := parse(t, "https://api.example/graphql?tenant=7")
	policies := map[string]Policy{
		"open":   {Default: def},
		"fenced": {Default: def, Allow: []*url.URL{parse(t, "https://api.example/v2?key=k"), parse(t, "https://other.example")}},
	}
	var smuggled []string
	for _, param := range []string{"query", "Query", "QUERY", "%71uery", "query[]", "variables", "operationName", "operationname", "extensions", "_method", "_METHOD"} {
		smuggled = append(smuggled, param+"=mutation%7Bwipe%7D", "tenant=7&"+param+"=x", param+"=x&tenant=7", "tenant=7;"+param+"=x")
	}
	smuggled = append(smuggled, "tenant=8", "tenant=7&", "Tenant=7", "tenant=%37", "key=k", "a")
	for name, p := range policies {
		bases := []string{"https://api.example/graphql", "https://api.example/other", "https://other.example/graphql"}
		if name == "fenced" {
			bases = []string{"https://api.example/v2/graphql", "https://other.example/graphql"}
		}
		for _, base := range bases {
			for _, query := range smuggled {
				raw := base + "?" + query
				if name == "fenced" && raw == "https://api.example/v2/graphql?key=k" {
					continue // the entry's own
				}
				_, err := p.Resolve(raw)
				if err == nil || !strings.Contains(err.Error(), "query string is not the one configured") {
					t.Errorf("%s: %s: error %v, want the query string refused", name, raw, err)
				}
				if err != nil && strings.Contains(err.Error(), "wipe") {
					t.Errorf("%s: the error quotes the query string, which may hold a credential: %v", name, err)
				}
			}
		}
		for _, raw := range []string{"https://api.example/graphql?tenant=7", "https://other.example/graphql", "https://other.example/graphql?tenant=7"} {
			if _, err := p.Resolve(raw); err != nil {
				t.Errorf("%s: %s refused: %v", name, raw, err)
			}
		}
	}
	if _, err := policies["fenced"].Resolve("https://api.example/v2/graphql?key=k"); err != nil {
		t.Errorf("the query string of the entry matched is refused: %v", err)
	}
	if _, err := policies["fenced"].Resolve("https://other.example/graphql?key=k"); err == nil {
		t.Error("the query string of an entry that does not match is taken")
	}
}

// TestRedirectHopQueryString: a redirect hop is judged as a per-call
// endpoint: the endpoint's 307 to a URL whose query string holds an
// operation is not followed, and the server at the hop never sees it.
func TestRedirectHopQueryString(t *testing.T) {
	var reached atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/graphql", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/run?query="+url.QueryEscape("mutation{wipe}"), http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/dot", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/graphql/..;/run", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		io.WriteString(w, `{"data":{"wipe":true}}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	policy := Policy{Default: parse(t, srv.URL+"/graphql")}
	client := newClient(policy, httpx.Options{})
	for _, endpoint := range []string{"", srv.URL + "/dot"} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		target, err := policy.Resolve(endpoint)
		if err != nil {
			t.Fatal(err)
		}
		_, err = client.Post(ctx, Request{Target: target, Headers: Merge(nil, nil), Timeout: 5 * time.Second, Query: "{ a }"})
		cancel()
		if err == nil || !strings.Contains(fmt.Sprint(err), "is refused") {
			t.Errorf("endpoint %q: error %v, want the hop refused", endpoint, err)
		}
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("%d requests reached the hop", n)
	}
}
