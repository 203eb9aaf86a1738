package tools

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/mcptest"
)

// refuseAll answers every request 401, as an endpoint that takes none of
// the credentials it was sent: a body that is not a GraphQL response, or,
// at /graphql-errors, a GraphQL response (as some answer introspection).
func refuseAll() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		if r.URL.Path == "/graphql-errors" {
			io.WriteString(w, `{"errors":[{"message":"unauthorized"}]}`)
			return
		}
		io.WriteString(w, `{"errors":"Invalid API key"}`)
	})
}

// TestCredentialsAdviceByTransport: a refused credential's advice names
// --forward-header only where it applies: over HTTP to the default
// endpoint's origin, saying whether the client's own header was sent on;
// never over stdio, nor for a per-call endpoint on another origin, where
// the startup headers do not go either (unless --headers-any-origin) and
// the advice names the call's own.
func TestCredentialsAdviceByTransport(t *testing.T) {
	srv, _ := testservers.Start(t, refuseAll())
	other, _ := testservers.Start(t, refuseAll())
	cfg := testConfig(t, srv.URL+"/graphql")
	cfg.Validate = false
	stdio := mcptest.Connect(t, NewServer(Options{Config: cfg, HTTP: upstream.NewHTTPClient("test"), Logger: slog.New(slog.DiscardHandler)}))
	plainURL, _ := serveHTTP(t, cfg)
	plain := connectHTTP(t, plainURL, map[string][]string{"Authorization": {"Bearer alice-token-111"}})
	forwarding := cfg
	forwarding.ForwardHeaders = []string{"Authorization"}
	forwardingURL, _ := serveHTTP(t, forwarding)
	alice := connectHTTP(t, forwardingURL, map[string][]string{"Authorization": {"Bearer alice-token-111"}})
	nobody := connectHTTP(t, forwardingURL, nil)
	anyOrigin := cfg
	anyOrigin.HeadersAnyOrigin = true
	everywhere := mcptest.Connect(t, NewServer(Options{Config: anyOrigin, HTTP: upstream.NewHTTPClient("test"), Logger: slog.New(slog.DiscardHandler)}))

	query := map[string]any{"query": "{ a }"}
	elsewhere := map[string]any{"query": "{ a }", "endpoint": other.URL + "/graphql"}
	introspect := map[string]any{"endpoint": srv.URL + "/graphql-errors"}
	for _, c := range []struct {
		name  string
		text  func(*testing.T) string
		want  upstream.Forward
		named bool
	}{
		{"stdio", mcptest.ErrorText(stdio, "graphql_query", query), upstream.NotForwarding, false},
		{"stdio introspection", mcptest.ErrorText(stdio, "graphql_introspect", introspect), upstream.NotForwarding, false},
		{"HTTP without --forward-header", mcptest.ErrorText(plain, "graphql_query", query), upstream.ForwardingOff, true},
		{"HTTP introspection without --forward-header", mcptest.ErrorText(plain, "graphql_introspect", introspect), upstream.ForwardingOff, true},
		// The startup headers go to the default endpoint's origin only:
		// elsewhere the call's headers are the only ones sent.
		{"stdio, another origin", mcptest.ErrorText(stdio, "graphql_query", elsewhere), upstream.StartupWithheld, false},
		{"stdio, another origin, --headers-any-origin", mcptest.ErrorText(everywhere, "graphql_query", elsewhere), upstream.NotForwarding, false},
		{"HTTP, another origin", mcptest.ErrorText(plain, "graphql_query", elsewhere), upstream.StartupWithheld, false},
		{"HTTP, forwarded", mcptest.ErrorText(alice, "graphql_query", query), upstream.Forwarded, true},
		{"HTTP, forwarded, another origin", mcptest.ErrorText(alice, "graphql_query", elsewhere), upstream.StartupWithheld, false},
		{"HTTP introspection, another origin", mcptest.ErrorText(plain, "graphql_introspect", map[string]any{"endpoint": other.URL + "/graphql-errors"}), upstream.StartupWithheld, false},
		{"HTTP, nothing to forward", mcptest.ErrorText(nobody, "graphql_query", query), upstream.ForwardedNone, true},
	} {
		text := c.text(t)
		if !strings.Contains(text, upstream.CredentialsAdvice(c.want)) {
			t.Errorf("%s:\n%s\nwant the advice %q", c.name, text, upstream.CredentialsAdvice(c.want))
		}
		if strings.Contains(text, "--forward-header") != c.named {
			t.Errorf("%s: names --forward-header: %v, want %v", c.name, !c.named, c.named)
		}
		if strings.Contains(text, "alice-token-111") {
			t.Errorf("%s: the client's token is in the error: %s", c.name, text)
		}
	}
}
