package tools

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/mcptest"
)

// perCaller answers introspection with a schema of the caller's own, named
// by its Authorization (whose description echoes the credential, as an
// endpoint that puts the viewer in its docs would), and 401 to anyone else.
func perCaller(tokens ...string) http.Handler {
	schemas := map[string]http.Handler{}
	for _, token := range tokens {
		schemas["Bearer "+token] = testservers.Introspection("type Query {\n# for " + token + "\nonly_" + strings.ReplaceAll(token, "-", "_") + ": String }")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := schemas[r.Header.Get("Authorization")]; ok {
			h.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		json.NewEncoder(w).Encode(map[string]any{"errors": []any{map[string]any{"message": "who are you?"}}})
	})
}

// TestForwardedHeadersReachSchema: graphql_introspect and the
// graphql://schema resource read the default endpoint's schema as the
// client its HTTP request forwards (--forward-header), not as the
// operator, and what the endpoint echoes of the credential is redacted.
func TestForwardedHeadersReachSchema(t *testing.T) {
	srv, rec := testservers.Start(t, perCaller("alice-token-111", "bob-token-222"))
	cfg := validating(t, srv.URL)
	cfg.Headers = map[string]string{"Authorization": "Bearer operator-token-000"}
	cfg.ForwardHeaders = []string{"Authorization"}
	url, logs := serveHTTP(t, cfg)
	ctx := context.Background()
	for _, token := range []string{"alice-token-111", "bob-token-222"} {
		session := connectHTTP(t, url, map[string][]string{"Authorization": {"Bearer " + token}})
		field := "only_" + strings.ReplaceAll(token, "-", "_")
		before := rec.Count()
		res := mcptest.Call(t, ctx, session, "graphql_introspect", map[string]any{})
		text := mcptest.Text(res)
		if res.IsError || !strings.Contains(text, field) || strings.Contains(text, token) || !strings.Contains(text, upstream.Redacted) {
			t.Errorf("%s: graphql_introspect: isError=%v: %s", token, res.IsError, text)
		}
		for _, got := range rec.Requests()[before:] {
			if got.Header.Get("Authorization") != "Bearer "+token {
				t.Errorf("%s: introspection sent with Authorization %q", token, got.Header.Get("Authorization"))
			}
		}
		read, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: schemaURI})
		if err != nil {
			t.Fatalf("%s: reading %s: %v", token, schemaURI, err)
		}
		if sdl := read.Contents[0].Text; !strings.Contains(sdl, field) || strings.Contains(sdl, token) {
			t.Errorf("%s: %s reads %s", token, schemaURI, sdl)
		}
		// One type's view (graphql://type/{name}) reads as the client too,
		// and shows nothing of its credential.
		typed, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: typeURIPrefix + "Query"})
		if err != nil {
			t.Fatalf("%s: reading the Query type: %v", token, err)
		}
		if text := typed.Contents[0].Text; !strings.Contains(text, field) || strings.Contains(text, token) {
			t.Errorf("%s: %sQuery reads %s", token, typeURIPrefix, text)
		}
	}
	// A client that forwards nothing reads as the operator, who has no
	// schema here: the 401 says so.
	nobody := connectHTTP(t, url, nil)
	res := mcptest.Call(t, ctx, nobody, "graphql_introspect", map[string]any{})
	if !res.IsError || !strings.Contains(mcptest.Text(res), "401") {
		t.Errorf("no forwarded header: isError=%v: %s", res.IsError, mcptest.Text(res))
	}
	for _, secret := range []string{"alice-token-111", "bob-token-222", "operator-token-000"} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("the log shows %s", secret)
		}
	}
}

// TestForwardedHeadersKeptWhenBlamingHeaders: when introspection answers
// without a schema and the call gave headers, the second introspection
// without the call's headers still carries the forwarded ones: without
// them the endpoint refuses anyone (401), which says nothing of the call's
// headers, and the operation goes unchecked as it would have without them.
func TestForwardedHeadersKeptWhenBlamingHeaders(t *testing.T) {
	srv, rec := testservers.Start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Authorization") != "Bearer erin-token-888" {
			w.WriteHeader(http.StatusUnauthorized)
			json.NewEncoder(w).Encode(map[string]any{"errors": []any{map[string]any{"message": "who are you?"}}})
			return
		}
		if strings.Contains(readBody(r), "IntrospectionQuery") {
			json.NewEncoder(w).Encode(map[string]any{"errors": []any{map[string]any{"message": "GraphQL introspection is not allowed"}}})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"auth": "ok"}})
	}))
	cfg := validating(t, srv.URL)
	cfg.ForwardHeaders = []string{"Authorization"}
	url, _ := serveHTTP(t, cfg)
	session := connectHTTP(t, url, map[string][]string{"Authorization": {"Bearer erin-token-888"}})
	res := mcptest.Call(t, context.Background(), session, "graphql_query", map[string]any{"query": "{ auth }", "headers": map[string]any{"X-Trace": "1"}})
	if res.IsError || !strings.Contains(mcptest.Text(res), `"auth":"ok"`) {
		t.Errorf("isError=%v: %s", res.IsError, mcptest.Text(res))
	}
	for _, got := range rec.Requests() {
		if got.Header.Get("Authorization") != "Bearer erin-token-888" {
			t.Errorf("a request went without the forwarded Authorization: %v", got.Header)
		}
	}
}
