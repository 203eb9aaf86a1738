package tools

import (
	"encoding/json"
	"io"
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

type wipeResolver struct{ wiped *atomic.Bool }

func (*wipeResolver) A() *string { s := "a"; return &s }

func (r *wipeResolver) Wipe() *bool {
	r.wiped.Store(true)
	t := true
	return &t
}

// argResolver is wipeResolver with an argument on a, for a string literal
// to ride in.
type argResolver struct{ wipeResolver }

func (*argResolver) A(struct{ X *string }) *string { s := "a"; return &s }

// formDecoding is a real GraphQL server that, like express-graphql and
// GraphQL Yoga, takes application/x-www-form-urlencoded bodies as well as
// JSON, choosing by Content-Type; and, like servers that read a body by a
// header of their own, takes a form too when X-Body-As-Form is set. It
// parses the body as a form itself: r.ParseForm reads a POST body only
// when the Content-Type says it is a form, so with X-Body-As-Form and
// graphqlmcp's application/json it would read nothing, and the test would
// model no server. A form body's query string is read too, after the body,
// as url.ParseQuery reads both. wiped reports whether its one mutation ever
// ran.
func formDecoding(t *testing.T) (http.Handler, *atomic.Bool) {
	wiped := &atomic.Bool{}
	schema := graphql.MustParseSchema(`type Query { a(x: String): String } type Mutation { wipe: Boolean }`, &argResolver{wipeResolver{wiped}})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var params struct {
			Query         string         `json:"query"`
			OperationName string         `json:"operationName"`
			Variables     map[string]any `json:"variables"`
		}
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") || r.Header.Get("X-Body-As-Form") != "" {
			raw, err := io.ReadAll(r.Body)
			if err != nil {
				t.Errorf("reading the body: %v", err)
			}
			// ParseQuery keeps what it could read when one pair fails
			// (a stray %), as servers do.
			form, _ := url.ParseQuery(string(raw))
			params.Query, params.OperationName = form.Get("query"), form.Get("operationName")
		} else {
			json.NewDecoder(r.Body).Decode(&params)
		}
		w.Header().Set("Content-Type", "application/json")
		if params.Query == "" {
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"errors":[{"message":"Must provide query string."}]}`))
			return
		}
		json.NewEncoder(w).Encode(schema.Exec(r.Context(), params.Query, params.OperationName, params.Variables))
	}), wiped
}

// smuggling is the query: a comment that, read as a form, holds
// the field query=mutation{wipe}.
const smuggling = "query { a } # &query=mutation{wipe}&"

// TestFramingHeadersCannotSmuggle: against a real form-decoding GraphQL
// server, under --mutations never, a call's Content-Type (in any case) is
// refused with the header named and nothing sent; without it, the comment
// is not sent at all (the text is printed from the parsed document), so the
// mutation never runs either way.
func TestFramingHeadersCannotSmuggle(t *testing.T) {
	handler, wiped := formDecoding(t)
	srv, rec := testservers.Start(t, handler)
	for _, validate := range []bool{true, false} {
		cfg := testConfig(t, srv.URL)
		cfg.Validate, cfg.Mutations = validate, config.MutationsNever
		h := connect(t, cfg, nil)
		for _, name := range []string{"Content-Type", "content-type", "CONTENT-TYPE", "Content_Type", "content_type", "Content-Length", "Accept", "Transfer-Encoding", "X-HTTP-Method-Override", "X-Original-URL", "x_rewrite_url"} {
			before := rec.Count()
			res := h.call(t, "graphql_query", map[string]any{"query": smuggling, "headers": map[string]any{name: "application/x-www-form-urlencoded"}})
			text := mcptest.Text(res)
			named := `header "` + name + `" cannot be set`
			if strings.Contains(name, "_") {
				named = `(read as "` + http.CanonicalHeaderKey(strings.ReplaceAll(name, "_", "-")) + `": many servers read _ as -) cannot be set`
			}
			if !res.IsError || !strings.Contains(text, named) || !strings.Contains(text, "remove it") {
				t.Errorf("validate=%v, %s: isError=%v: %s", validate, name, res.IsError, text)
			}
			if rec.Count() != before {
				t.Errorf("validate=%v, %s: %d requests sent", validate, name, rec.Count()-before)
			}
		}
		before := rec.Count()
		res := h.call(t, "graphql_query", map[string]any{"query": smuggling})
		if res.IsError || !strings.Contains(mcptest.Text(res), `"a":"a"`) {
			t.Errorf("validate=%v: the query itself: %s", validate, mcptest.Text(res))
		}
		for _, got := range rec.Requests()[before:] {
			if strings.Contains(string(got.Body), "wipe") || strings.Contains(string(got.Body), "#") {
				t.Errorf("the endpoint received what the guard did not judge: %s", got.Body)
			}
		}
	}
	if wiped.Load() {
		t.Fatal("the smuggled mutation ran")
	}
}

// TestIntrospectionFailureBlamesTheCallsHeaders: an introspection that
// fails with the call's headers and succeeds without them is not read as
// "introspection is off": the operation is refused, the headers named, and
// nothing but introspections is sent. One that fails with and without them
// is: the operation goes unchecked, and the result says introspection
// failed.
func TestIntrospectionFailureBlamesTheCallsHeaders(t *testing.T) {
	handler, wiped := formDecoding(t)
	srv, rec := testservers.Start(t, handler)
	cfg := validating(t, srv.URL)
	cfg.Mutations = config.MutationsNever
	h := connect(t, cfg, nil)
	res := h.call(t, "graphql_query", map[string]any{"query": smuggling, "headers": map[string]any{"X-Body-As-Form": "1"}})
	text := mcptest.Text(res)
	if !res.IsError || !strings.Contains(text, "failed with this call's headers and succeeds without them") || !strings.Contains(text, `"X-Body-As-Form"`) {
		t.Errorf("isError=%v: %s", res.IsError, text)
	}
	if rec.Operations() != 0 || wiped.Load() {
		t.Errorf("%d operations sent, wiped=%v", rec.Operations(), wiped.Load())
	}
	res = h.call(t, "graphql_introspect", map[string]any{"headers": map[string]any{"X-Body-As-Form": "1"}})
	if text := mcptest.Text(res); !res.IsError || !strings.Contains(text, `this call's headers ("X-Body-As-Form") were sent with it`) {
		t.Errorf("graphql_introspect: isError=%v: %s", res.IsError, text)
	}

	off, _ := testservers.Start(t, testservers.NewFaults())
	cfg = validating(t, off.URL+"/errors")
	h = connect(t, cfg, nil)
	res = h.call(t, "graphql_query", map[string]any{"query": "{ a }", "headers": map[string]any{"X-Team": "t"}})
	if text := mcptest.Text(res); !strings.Contains(text, "since introspection failed") {
		t.Errorf("introspection off whatever the headers: isError=%v: %s", res.IsError, text)
	}
}
