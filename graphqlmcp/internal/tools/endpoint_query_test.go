package tools

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	graphql "github.com/graph-gophers/graphql-go"

	"github.com/mcpforge/servers/graphqlmcp/internal/config"
	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// urlQueryFirst is a real GraphQL server that, like express-graphql (and
// koa-graphql, and forks of graphql-http), takes query, variables and
// operationName from the URL's query string before the body's, on POST
// too. wiped reports whether its one mutation ever ran.
func urlQueryFirst() (http.Handler, *atomic.Bool) {
	wiped := &atomic.Bool{}
	schema := graphql.MustParseSchema(`type Query { a: String } type Mutation { wipe: Boolean }`, &wipeResolver{wiped})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Query         string         `json:"query"`
			OperationName string         `json:"operationName"`
			Variables     map[string]any `json:"variables"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		if v := r.URL.Query().Get("query"); v != "" {
			body.Query = v
		}
		if v := r.URL.Query().Get("operationName"); v != "" {
			body.OperationName = v
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(schema.Exec(r.Context(), body.Query, body.OperationName, body.Variables))
	}), wiped
}

// TestEndpointQueryStringCannotSmuggle: under --mutations never, a per-call
// endpoint whose query string holds an operation (any parameter a server
// reads, in any spelling) is refused before anything is sent, by
// graphql_query with and without --validate and by graphql_introspect;
// the default endpoint and a plain per-call endpoint still work.
func TestEndpointQueryStringCannotSmuggle(t *testing.T) {
	handler, wiped := urlQueryFirst()
	srv, rec := testservers.Start(t, handler)
	wipe := url.QueryEscape("mutation{wipe}")
	endpoints := []string{
		srv.URL + "/other?query=" + wipe,
		srv.URL + "/graphql?query=" + wipe,
		srv.URL + "/graphql?Query=" + wipe,
		srv.URL + "/graphql?%71uery=" + wipe,
		srv.URL + "/graphql?x=1&query=" + wipe,
		srv.URL + "/graphql?operationName=W&query=" + url.QueryEscape("mutation W{wipe}"),
		srv.URL + "/graphql?variables=%7B%7D",
		srv.URL + "/graphql?extensions=%7B%7D",
		srv.URL + "/graphql?_method=GET",
	}
	for _, validate := range []bool{false, true} {
		cfg := testConfig(t, srv.URL+"/graphql")
		cfg.Validate, cfg.Mutations = validate, config.MutationsNever
		h := connect(t, cfg, nil)
		for _, endpoint := range endpoints {
			before := rec.Count()
			for _, call := range []struct {
				tool string
				args map[string]any
			}{
				{"graphql_query", map[string]any{"query": "{ a }", "endpoint": endpoint}},
				{"graphql_introspect", map[string]any{"endpoint": endpoint}},
			} {
				res := h.call(t, call.tool, call.args)
				text := mcptest.Text(res)
				if !res.IsError || !strings.Contains(text, "query string is not the one configured") || !strings.Contains(text, "remove the query string") {
					t.Errorf("validate=%v, %s %s: isError=%v: %.300s", validate, call.tool, endpoint, res.IsError, text)
				}
			}
			if n := rec.Count() - before; n != 0 {
				t.Errorf("validate=%v, %s: %d requests sent", validate, endpoint, n)
			}
		}
		for _, endpoint := range []string{"", srv.URL + "/other"} {
			res := h.call(t, "graphql_query", map[string]any{"query": "{ a }", "endpoint": endpoint})
			if res.IsError || !strings.Contains(mcptest.Text(res), `"a":"a"`) {
				t.Errorf("validate=%v, endpoint %q: isError=%v: %.300s", validate, endpoint, res.IsError, mcptest.Text(res))
			}
		}
	}
	if wiped.Load() {
		t.Fatal("under --mutations never, the mutation in an endpoint's query string ran")
	}
}
