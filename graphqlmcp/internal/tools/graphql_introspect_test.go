package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	graphql "github.com/graph-gophers/graphql-go"
	"github.com/graph-gophers/graphql-go/example/starwars"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/mcpforge/servers/graphqlmcp/internal/schema"
	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
	"github.com/mcpforge/servers/shared/mcptool"
)

// shape reduces a schema to what a round trip must keep: every type's kind,
// fields with argument and return types, interfaces, union members, enum
// values and input fields, with defaults.
func shape(s *ast.Schema) map[string]string {
	out := map[string]string{}
	for name, def := range s.Types {
		if def.BuiltIn || strings.HasPrefix(name, "__") {
			continue
		}
		var parts []string
		for _, f := range def.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			var args []string
			for _, a := range f.Arguments {
				arg := a.Name + ": " + a.Type.String()
				if a.DefaultValue != nil {
					arg += " = " + a.DefaultValue.String()
				}
				args = append(args, arg)
			}
			field := f.Name + "(" + strings.Join(args, ", ") + "): " + f.Type.String()
			if f.DefaultValue != nil {
				field += " = " + f.DefaultValue.String()
			}
			parts = append(parts, field)
		}
		for _, v := range def.EnumValues {
			parts = append(parts, "enum "+v.Name)
		}
		interfaces := append([]string(nil), def.Interfaces...)
		members := append([]string(nil), def.Types...)
		sort.Strings(interfaces)
		sort.Strings(members)
		sort.Strings(parts)
		out[name] = fmt.Sprintf("%s implements %v members %v {%s}", def.Kind, interfaces, members, strings.Join(parts, "; "))
	}
	return out
}

func loadSDL(t *testing.T, sdl string) *ast.Schema {
	t.Helper()
	s, err := gqlparser.LoadSchema(&ast.Source{Name: "schema.graphql", Input: sdl})
	if err != nil {
		t.Fatalf("LoadSchema: %v\n%s", err, sdl)
	}
	return s
}

// TestIntrospectRoundTrip serves the starwars schema, introspects it, and
// checks that the SDL loads back and matches the original type for type,
// field for field.
func TestIntrospectRoundTrip(t *testing.T) {
	srv, rec := testservers.Start(t, testservers.Starwars())
	h := connect(t, testConfig(t, srv.URL), nil)

	res := h.call(t, "graphql_introspect", map[string]any{"includeDeprecated": true})
	if res.IsError {
		t.Fatalf("isError: %s", mcptest.Text(res))
	}
	// graph-gophers predates isOneOf and specifiedByURL: the newest query
	// is rejected with errors that name both, so the next one asked is the
	// oldest, skipping the one that would fail on specifiedByURL.
	reqs := rec.Requests()
	if len(reqs) != 2 {
		t.Fatalf("want two introspection queries, newest first; got %d requests", len(reqs))
	}
	for i, want := range []struct{ oneOf, specifiedBy bool }{{true, true}, {false, false}} {
		body := string(reqs[i].Body)
		if strings.Contains(body, "isOneOf") != want.oneOf || strings.Contains(body, "specifiedByURL") != want.specifiedBy {
			t.Errorf("query %d: isOneOf %v, specifiedByURL %v; want %v, %v", i+1, !want.oneOf, !want.specifiedBy, want.oneOf, want.specifiedBy)
		}
	}
	out := mcptest.Structured(t, res)
	if out["view"] != "sdl" || out["cached"] != false {
		t.Errorf("view = %v, cached = %v; want sdl, false", out["view"], out["cached"])
	}
	if mcptest.LastText(res) != out["text"] {
		t.Error("text content is not the SDL of the structured result")
	}
	got := shape(loadSDL(t, mcptest.LastText(res)))
	want := shape(loadSDL(t, starwars.Schema))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("schema after the round trip (-original +introspected):\n%s", diff)
	}
	if int(out["typeCount"].(float64)) != len(want) {
		t.Errorf("typeCount = %v, want %d", out["typeCount"], len(want))
	}
}

func TestIntrospectDeprecated(t *testing.T) {
	srv, _ := testservers.Start(t, testservers.Deprecations())
	h := connect(t, testConfig(t, srv.URL), nil)

	without := mcptest.Text(h.call(t, "graphql_introspect", map[string]any{}))
	if strings.Contains(without, "old") || strings.Contains(without, "BLUE") {
		t.Errorf("deprecated members returned without includeDeprecated:\n%s", without)
	}
	with := mcptest.Text(h.call(t, "graphql_introspect", map[string]any{"includeDeprecated": true}))
	for _, want := range []string{`old: String @deprecated(reason: "use name")`, "BLUE @deprecated"} {
		if !strings.Contains(with, want) {
			t.Errorf("SDL with includeDeprecated lacks %q:\n%s", want, with)
		}
	}
}

func TestIntrospectTypesAndSearch(t *testing.T) {
	srv, _ := testservers.Start(t, testservers.Starwars())
	h := connect(t, testConfig(t, srv.URL), nil)

	res := h.call(t, "graphql_introspect", map[string]any{"types": []any{"Human", "Nope"}})
	if res.IsError || mcptest.Structured(t, res)["view"] != "types" {
		t.Fatalf("got %s", mcptest.Text(res))
	}
	for _, want := range []string{"type Human implements Character {", `# No type named "Nope".`} {
		if !strings.Contains(mcptest.Text(res), want) {
			t.Errorf("types view lacks %q:\n%s", want, mcptest.Text(res))
		}
	}
	if strings.Contains(mcptest.Text(res), "type Droid") {
		t.Errorf("types view has a type that was not asked for:\n%s", mcptest.Text(res))
	}

	res = h.call(t, "graphql_introspect", map[string]any{"search": "friend"})
	for _, want := range []string{
		"type FriendsConnection",
		"Human.friendsConnection(first: Int, after: ID): FriendsConnection!",
		"Character.friends: [Character]",
	} {
		if !strings.Contains(mcptest.Text(res), want) {
			t.Errorf("search view lacks %q:\n%s", want, mcptest.Text(res))
		}
	}
	res = h.call(t, "graphql_introspect", map[string]any{"search": "episode"})
	if !strings.Contains(mcptest.Text(res), "Query.hero(episode: Episode = NEWHOPE): Character") {
		t.Errorf("search by argument name:\n%s", mcptest.Text(res))
	}
	res = h.call(t, "graphql_introspect", map[string]any{"search": "zzzz"})
	if res.IsError || !strings.Contains(mcptest.Text(res), "Nothing in the schema") {
		t.Errorf("empty search: %s", mcptest.Text(res))
	}
}

// TestIntrospectSearchPaths: through an MCP session, search finds names by
// their words ("friends connection" finds FriendsConnection) and gives
// under each type and field the shortest paths from Query, with the
// arguments a query must give and the one that sizes a page.
func TestIntrospectSearchPaths(t *testing.T) {
	srv, _ := testservers.Start(t, testservers.Starwars())
	h := connect(t, testConfig(t, srv.URL), nil)
	res := h.call(t, "graphql_introspect", map[string]any{"search": "friends connection"})
	text := mcptest.LastText(res)
	for _, want := range []string{
		`# 4 names match "friends connection":`,
		"type FriendsConnection\n" +
			"  path: Query.hero -> Character.friendsConnection(first) -> FriendsConnection\n" +
			"  path: Query.droid(id!) -> Droid.friendsConnection(first) -> FriendsConnection\n" +
			"  path: Query.human(id!) -> Human.friendsConnection(first) -> FriendsConnection\n",
		"Human.friendsConnection(first: Int, after: ID): FriendsConnection!\n" +
			"  path: Query.human(id!) -> Human.friendsConnection(first)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("lacks %q:\n%s", want, text)
		}
	}
	res = h.call(t, "graphql_introspect", map[string]any{"search": "a b c d e f g h i"})
	if text := mcptest.Text(res); !res.IsError || !strings.Contains(text, "search has 9 words, more than the 8 a search matches") {
		t.Errorf("9 words: isError=%v %s", res.IsError, text)
	}
	res = h.call(t, "graphql_introspect", map[string]any{"search": "starship"})
	if text := mcptest.LastText(res); !strings.Contains(text, "type Starship\n  path: Query.starship(id!) -> Starship\n") ||
		!strings.Contains(text, "Query.starship(id: ID!): Starship\n") || strings.Contains(text, "Query.starship(id: ID!): Starship\n  path:") {
		t.Errorf("starship:\n%s", text)
	}
}

func TestIntrospectCache(t *testing.T) {
	srv, rec := testservers.Start(t, testservers.Starwars())
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	h := connect(t, testConfig(t, srv.URL), func() time.Time { return now })

	h.call(t, "graphql_introspect", map[string]any{})
	fetches := rec.Count()
	if fetches == 0 {
		t.Fatal("nothing was fetched")
	}
	res := h.call(t, "graphql_introspect", map[string]any{"search": "droid"})
	if rec.Count() != fetches || mcptest.Structured(t, res)["cached"] != true {
		t.Errorf("second call fetched again (%d requests, want %d) or was not marked cached", rec.Count(), fetches)
	}
	h.call(t, "graphql_introspect", map[string]any{"headers": map[string]any{"X-Tenant": "b"}})
	if rec.Count() != 2*fetches {
		t.Errorf("other headers did not fetch their own schema: %d requests", rec.Count())
	}
	h.call(t, "graphql_introspect", map[string]any{"refresh": true})
	if rec.Count() != 3*fetches {
		t.Errorf("refresh: true did not fetch again: %d requests", rec.Count())
	}
	now = now.Add(5*time.Minute + time.Second)
	res = h.call(t, "graphql_introspect", map[string]any{})
	if rec.Count() != 4*fetches || mcptest.Structured(t, res)["cached"] != false {
		t.Errorf("an expired entry was used: %d requests", rec.Count())
	}
}

func TestIntrospectionDisabled(t *testing.T) {
	srv, _ := testservers.Start(t, testservers.Starwars(graphql.DisableIntrospection()))
	h := connect(t, testConfig(t, srv.URL), nil)
	res := h.call(t, "graphql_introspect", map[string]any{})
	if !res.IsError || !strings.Contains(mcptest.Text(res), "may have introspection disabled") {
		t.Errorf("got %s", mcptest.Text(res))
	}
}

func TestIntrospectRefusals(t *testing.T) {
	srv, rec := testservers.Start(t, testservers.Starwars())
	h := connect(t, testConfig(t, srv.URL), nil)
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"endpoint": "not a url"}, "not an absolute http(s) URL"},
		{map[string]any{"endpoint": "http://169.254.169.254/"}, "is refused"},
		{map[string]any{"headers": map[string]any{"Content-Length": "5"}}, `header "Content-Length" cannot be set`},
		{map[string]any{"types": []any{""}}, "remove the empty entry"},
		{map[string]any{"types": "Human"}, `argument "types" must be an array of strings`},
		{map[string]any{"depth": 3}, `unknown argument "depth"`},
	} {
		res := h.call(t, "graphql_introspect", tt.args)
		if !res.IsError || !strings.Contains(mcptest.Text(res), tt.want) {
			t.Errorf("%v: got %q, want an error containing %q", tt.args, mcptest.Text(res), tt.want)
		}
	}
	if rec.Count() != 0 {
		t.Errorf("upstream received %d requests", rec.Count())
	}
}

// bigSchema is a schema whose SDL is far over the size limit.
func bigSchema(types int) string {
	var b strings.Builder
	b.WriteString("type Query {\n")
	for i := range types {
		fmt.Fprintf(&b, "  item%d(id: ID!, first: Int = 10): Item%d\n", i, i)
	}
	b.WriteString("}\n")
	for i := range types {
		fmt.Fprintf(&b, "\"\"\"Item number %d, with a description long enough to weigh something in the SDL.\"\"\"\n", i)
		fmt.Fprintf(&b, "type Item%d {\n  id: ID!\n  name: String\n  description: String\n  tags: [String!]!\n  createdAt: String\n  parent: Item%d\n}\n", i, max(i-1, 0))
	}
	return b.String()
}

func TestIntrospectOverview(t *testing.T) {
	srv, _ := testservers.Start(t, testservers.Introspection(bigSchema(1500)))
	h := connect(t, testConfig(t, srv.URL), nil)
	res := h.call(t, "graphql_introspect", map[string]any{})
	if res.IsError {
		t.Fatal(mcptest.Text(res))
	}
	out := mcptest.Structured(t, res)
	if out["view"] != "overview" {
		t.Fatalf("view = %v, want overview (SDL %v bytes)", out["view"], out["sdlBytes"])
	}
	if n := len(mcptest.LastText(res)); n > schema.MaxViewBytes {
		t.Errorf("overview is %d bytes, over %d", n, schema.MaxViewBytes)
	}
	for _, want := range []string{"type Query {", "  item7(id: ID!, first: Int = 10): Item7", "OBJECT (1501): Item0, Item1,", "types: [\"TypeName\", ...]"} {
		if !strings.Contains(mcptest.Text(res), want) {
			t.Errorf("overview lacks %q", want)
		}
	}
}

// TestIntrospectModernQuery serves a canned answer to the current
// introspection query, as servers that support specifiedByURL give it.
func TestIntrospectModernQuery(t *testing.T) {
	answer := `{"data":{"__schema":{"queryType":{"name":"Root"},"mutationType":null,"subscriptionType":null,
	"types":[{"kind":"OBJECT","name":"Root","description":"The root.","specifiedByURL":null,
	  "fields":[{"name":"when","description":null,"args":[{"name":"tz","description":null,"type":{"kind":"SCALAR","name":"String","ofType":null},"defaultValue":"\"UTC\"","isDeprecated":false,"deprecationReason":null}],
	    "type":{"kind":"NON_NULL","name":null,"ofType":{"kind":"SCALAR","name":"DateTime","ofType":null}},"isDeprecated":false,"deprecationReason":null}],
	  "inputFields":null,"interfaces":[],"enumValues":null,"possibleTypes":null},
	 {"kind":"SCALAR","name":"DateTime","description":null,"specifiedByURL":"https://scalars.graphql.org/andimarek/date-time","fields":null,"inputFields":null,"interfaces":null,"enumValues":null,"possibleTypes":null},
	 {"kind":"SCALAR","name":"String","description":null,"specifiedByURL":null,"fields":null,"inputFields":null,"interfaces":null,"enumValues":null,"possibleTypes":null}],
	"directives":[{"name":"cost","description":null,"isRepeatable":true,"locations":["FIELD_DEFINITION"],"args":[{"name":"weight","description":null,"type":{"kind":"NON_NULL","name":null,"ofType":{"kind":"SCALAR","name":"Int","ofType":null}},"defaultValue":"1","isDeprecated":false,"deprecationReason":null}]}]}}}`
	srv, rec := testservers.Start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(answer))
	}))
	h := connect(t, testConfig(t, srv.URL), nil)
	res := h.call(t, "graphql_introspect", map[string]any{})
	if res.IsError {
		t.Fatal(mcptest.Text(res))
	}
	for _, want := range []string{
		"schema {\n  query: Root\n}",
		`scalar DateTime @specifiedBy(url: "https://scalars.graphql.org/andimarek/date-time")`,
		`directive @cost(weight: Int! = 1) repeatable on FIELD_DEFINITION`,
		`when(tz: String = "UTC"): DateTime!`,
	} {
		if !strings.Contains(mcptest.Text(res), want) {
			t.Errorf("SDL lacks %q:\n%s", want, mcptest.Text(res))
		}
	}
	loadSDL(t, mcptest.LastText(res))
	var sent struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if err := json.Unmarshal(rec.Requests()[0].Body, &sent); err != nil {
		t.Fatal(err)
	}
	if rec.Count() != 1 || !strings.Contains(sent.Query, "specifiedByURL") || !strings.Contains(sent.Query, "isOneOf") ||
		!strings.Contains(sent.Query, "args(includeDeprecated: true)") || len(sent.Variables) != 0 {
		t.Errorf("sent %d requests; first: %s", rec.Count(), rec.Requests()[0].Body)
	}
}

// TestIntrospectMalformedAnswer: an answer with a type reference named ""
// used to panic in the SDL printer and take the process down. It is refused
// with the bad entry named, and the server goes on answering.
func TestIntrospectMalformedAnswer(t *testing.T) {
	bad := `{"data":{"__schema":{"queryType":{"name":"Query"},"directives":[],"types":[` +
		`{"kind":"OBJECT","name":"Query","fields":[{"name":"boom","args":[],"type":{"kind":"SCALAR","name":""}}]}]}}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, bad)
	}))
	t.Cleanup(srv.Close)
	h := connect(t, testConfig(t, srv.URL), nil)
	res := h.call(t, "graphql_introspect", map[string]any{})
	text := mcptest.Text(res)
	if !res.IsError || !strings.Contains(text, `type Query: field boom type has the name ""`) || !strings.Contains(text, "malformed") {
		t.Errorf("got isError=%v %q", res.IsError, text)
	}
	if res := h.call(t, "graphql_query", map[string]any{"query": "{ __typename }"}); res.IsError {
		t.Errorf("the server stopped answering: %s", mcptest.Text(res))
	}
}

// TestIntrospectSmallTexts: an endpoint's message is quoted as it came,
// after the server's sentence, in a frame; a full stop is not doubled; a
// count of one is singular.
func TestIntrospectSmallTexts(t *testing.T) {
	endpoint := serveBody(t, `{"errors":[{"message":"Introspection is disabled."}]}`)
	res := connect(t, testConfig(t, endpoint), nil).call(t, "graphql_introspect", map[string]any{})
	text := mcptest.Text(res)
	if blocks, outside := mcptool.Frames(text); !res.IsError || strings.Contains(text, "..") || len(blocks) != 1 || blocks[0] != "Introspection is disabled." ||
		!strings.Contains(outside, "failed: the endpoint refused it with the error quoted below. The endpoint may have introspection disabled") {
		t.Errorf("got %q", text)
	}
	srv, _ := testservers.Start(t, testservers.Starwars())
	res = connect(t, testConfig(t, srv.URL), nil).call(t, "graphql_introspect", map[string]any{"search": "mass"})
	if text := mcptest.LastText(res); !strings.HasPrefix(text, `# 1 name matches "mass":`) {
		t.Errorf("search with one hit:\n%s", text)
	}
}

// TestIntrospectSuggestsTypes: a misspelt type name gets the closest names
// by edit distance, and a call none of whose types exists is an error.
func TestIntrospectSuggestsTypes(t *testing.T) {
	srv, _ := testservers.Start(t, testservers.Starwars())
	h := connect(t, testConfig(t, srv.URL), nil)
	res := h.call(t, "graphql_introspect", map[string]any{"types": []string{"Driod"}})
	if text := mcptest.LastText(res); !res.IsError || !strings.HasPrefix(text, `# No type named "Driod". Similar: Droid`) {
		t.Errorf("isError=%v %q", res.IsError, text)
	}
	res = h.call(t, "graphql_introspect", map[string]any{"types": []string{"starship"}})
	if text := mcptest.Text(res); !strings.Contains(text, "Similar: Starship") {
		t.Errorf("a change of case: %q", text)
	}
	res = h.call(t, "graphql_introspect", map[string]any{"types": []string{"Droid", "Nope"}})
	if text := mcptest.Text(res); res.IsError || !strings.Contains(text, "type Droid") || !strings.Contains(text, `# No type named "Nope".`) {
		t.Errorf("one of two found: isError=%v %q", res.IsError, text)
	}
}

// TestIntrospectUnknownTypesBesideASearch: types none of which exists make
// the call an error only when a search beside them finds nothing either: an
// error's text is cut short (2,000 bytes), and a search's answer would be
// lost from what the model reads.
func TestIntrospectUnknownTypesBesideASearch(t *testing.T) {
	srv, _ := testservers.Start(t, testservers.Starwars())
	h := connect(t, testConfig(t, srv.URL), nil)
	res := h.call(t, "graphql_introspect", map[string]any{"types": []string{"Nope"}, "search": "friend"})
	text := mcptest.LastText(res)
	if res.IsError || !strings.Contains(text, `# No type named "Nope".`) || !strings.Contains(text, "type FriendsConnection\n  path: ") {
		t.Errorf("isError=%v:\n%s", res.IsError, text)
	}
	res = h.call(t, "graphql_introspect", map[string]any{"types": []string{"Nope"}, "search": "zzzz"})
	if text := mcptest.LastText(res); !res.IsError || !strings.Contains(text, "Nothing in the schema has a name matching") {
		t.Errorf("nothing found: isError=%v:\n%s", res.IsError, text)
	}
}

// TestIntrospectSuggestionsBounded: a huge unknown name, or many of them,
// are answered without measuring each against every type.
func TestIntrospectSuggestionsBounded(t *testing.T) {
	srv, _ := testservers.Start(t, testservers.Starwars())
	h := connect(t, testConfig(t, srv.URL), nil)
	res := h.call(t, "graphql_introspect", map[string]any{"types": []string{strings.Repeat("Driod", 100_000)}})
	if text := mcptest.Text(res); !res.IsError || strings.Contains(text, "Similar:") {
		t.Errorf("a 500,000-character name: isError=%v, %.200q", res.IsError, text)
	}
	many := make([]string, 50)
	for i := range many {
		many[i] = fmt.Sprintf("Driod%d", i)
	}
	res = h.call(t, "graphql_introspect", map[string]any{"types": many})
	if n := strings.Count(mcptest.Text(res), "Similar: Droid"); !res.IsError || n != 10 {
		t.Errorf("50 unknown names: isError=%v, %d with suggestions, want the first 10", res.IsError, n)
	}
}

// TestIntrospectTypesAndSearchShareTheBudget: types and search asked
// together stay within the 100,000-byte budget between them (each was
// capped alone: 110,406 bytes on GitHub), and the cut types answer names
// what it left out.
func TestIntrospectTypesAndSearchShareTheBudget(t *testing.T) {
	var sdl strings.Builder
	sdl.WriteString("type Query { a: Int }\n")
	for _, name := range []string{"A", "B", "C", "D", "E"} {
		fmt.Fprintf(&sdl, "type %s {\n", name)
		for i := range 600 {
			fmt.Fprintf(&sdl, "  field%04dWithAFairlyLongNameToFillSpace: String\n", i)
		}
		sdl.WriteString("}\n")
	}
	srv, _ := testservers.Start(t, testservers.Introspection(sdl.String()))
	h := connect(t, testConfig(t, srv.URL), nil)
	res := h.call(t, "graphql_introspect", map[string]any{"types": []string{"A", "B", "C", "D", "E"}, "search": "field00"})
	text := mcptest.Text(res)
	out := mcptest.Structured(t, res)
	if len(text) > schema.MaxViewBytes || out["truncated"] != true || out["view"] != "types+search" {
		t.Errorf("%d bytes, truncated %v, view %v", len(text), out["truncated"], out["view"])
	}
	if !strings.Contains(text, "Left out: ") || !strings.Contains(text, `Ask for them in another call: types: [`) || !strings.Contains(text, `names match "field00"`) {
		t.Errorf("the answer does not name what it left out, or lacks the search:\n%s", text[max(0, len(text)-3000):])
	}
}

// TestSchemaFileServesTheDefaultEndpoint: with --schema, graphql_introspect
// reads the default endpoint's schema from the file, even from an endpoint
// whose introspection is disabled, and sends nothing; another endpoint is
// still introspected.
func TestSchemaFileServesTheDefaultEndpoint(t *testing.T) {
	disabled, rec := testservers.Start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"errors":[{"message":"introspection is disabled"}]}`)
	}))
	path := filepath.Join(t.TempDir(), "schema.graphql")
	if err := os.WriteFile(path, []byte(starwars.Schema), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, disabled.URL)
	var err error
	if cfg.Schema, err = schema.Load(path, time.Now()); err != nil {
		t.Fatal(err)
	}
	h := connect(t, cfg, nil)
	res := h.call(t, "graphql_introspect", map[string]any{"types": []string{"Droid"}})
	if res.IsError || !strings.Contains(mcptest.Text(res), "type Droid implements Character") || rec.Count() != 0 {
		t.Errorf("isError=%v, %d requests: %s", res.IsError, rec.Count(), mcptest.Text(res))
	}
	other, _ := testservers.Start(t, testservers.Starwars())
	res = h.call(t, "graphql_introspect", map[string]any{"endpoint": other.URL, "types": []string{"Human"}})
	if res.IsError || !strings.Contains(mcptest.Text(res), "type Human") {
		t.Errorf("another endpoint: isError=%v %s", res.IsError, mcptest.Text(res))
	}
}

// TestIntrospectFallsBackOneStep: an endpoint that lacks isOneOf alone
// (graphql-js before 16.9) is asked the query without it, not the oldest.
func TestIntrospectFallsBackOneStep(t *testing.T) {
	answer := mustIntrospection(t, starwars.Schema)
	srv, rec := testservers.Start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if bytes.Contains(body, []byte("isOneOf")) {
			io.WriteString(w, `{"errors":[{"message":"Cannot query field \"isOneOf\" on type \"__Type\"."}]}`)
			return
		}
		w.Write(answer)
	}))
	res := connect(t, testConfig(t, srv.URL), nil).call(t, "graphql_introspect", map[string]any{})
	reqs := rec.Requests()
	if res.IsError || len(reqs) != 2 || !bytes.Contains(reqs[1].Body, []byte("specifiedByURL")) {
		t.Errorf("isError=%v, %d requests; the second should keep specifiedByURL", res.IsError, len(reqs))
	}
}

// mustIntrospection is graph-gophers' introspection answer for sdl, as a
// whole response.
func mustIntrospection(t *testing.T, sdl string) []byte {
	t.Helper()
	result, err := graphql.MustParseSchema(sdl, nil).ToJSON()
	if err != nil {
		t.Fatal(err)
	}
	return append(append([]byte(`{"data":`), result...), '}')
}

// TestIntrospectCountsEachTypeOnce: an unknown name given twice is one
// unknown name, and a call none of whose names exists is an error however
// often they are given (it was not: two names asked, one missing).
func TestIntrospectCountsEachTypeOnce(t *testing.T) {
	srv, _ := testservers.Start(t, testservers.Starwars())
	h := connect(t, testConfig(t, srv.URL), nil)
	res := h.call(t, "graphql_introspect", map[string]any{"types": []string{"Nope", "Nope"}})
	if text := mcptest.LastText(res); !res.IsError || strings.Count(text, `# No type named "Nope".`) != 1 {
		t.Errorf("isError=%v %q", res.IsError, text)
	}
	res = h.call(t, "graphql_introspect", map[string]any{"types": []string{"Droid", "Droid"}})
	if text := mcptest.LastText(res); res.IsError || strings.Count(text, "type Droid implements") != 1 {
		t.Errorf("isError=%v %q", res.IsError, text)
	}
}

// TestIntrospectSaysTheValidatorCannotLoadTheSchema: a schema that
// graphqlmcp prints but gqlparser's validator cannot load (Query implements
// Node without Node's field) is said in the introspection's answer, where
// the validator is built, rather than built on the side with its error
// dropped.
func TestIntrospectSaysTheValidatorCannotLoadTheSchema(t *testing.T) {
	endpoint := serveBody(t, `{"data":{"__schema":{"queryType":{"name":"Query"},"directives":[],"types":[
	{"kind":"OBJECT","name":"Query","fields":[{"name":"a","args":[],"type":{"kind":"SCALAR","name":"Int"}}],"interfaces":[{"kind":"INTERFACE","name":"Node"}]},
	{"kind":"INTERFACE","name":"Node","fields":[{"name":"id","args":[],"type":{"kind":"SCALAR","name":"ID"}}],"possibleTypes":[{"kind":"OBJECT","name":"Query"}]},
	{"kind":"SCALAR","name":"Int"},{"kind":"SCALAR","name":"ID"}]}}}`)
	cfg := testConfig(t, endpoint)
	cfg.Validate = true
	res := connect(t, cfg, nil).call(t, "graphql_introspect", map[string]any{})
	if text := mcptest.Text(res); res.IsError || !strings.Contains(text, "graphql_query cannot check operations against this schema before sending them") ||
		!strings.Contains(text, "Node") {
		t.Errorf("isError=%v %q", res.IsError, text)
	}
}

// TestIntrospectPolicyRefusalAskedOnce: an endpoint that refuses
// introspection for a reason that names no field (disabled by policy) is
// asked once, not again in two older forms that it refuses alike.
func TestIntrospectPolicyRefusalAskedOnce(t *testing.T) {
	for _, body := range []string{`{"errors":[{"message":"GraphQL introspection is not allowed by Apollo Server"}]}`, `{"data":null}`} {
		srv, rec := testservers.Start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, body)
		}))
		res := connect(t, testConfig(t, srv.URL), nil).call(t, "graphql_introspect", map[string]any{})
		if !res.IsError || !strings.Contains(mcptest.Text(res), "may have introspection disabled") || rec.Introspections() != 1 {
			t.Errorf("%s: isError=%v, %d introspections, want 1: %s", body, res.IsError, rec.Introspections(), mcptest.Text(res))
		}
	}
}

// TestIntrospectEndpointThatTakesOtherRequests: an endpoint that takes
// persisted operations only, or refuses a POST, is said to, with what
// graphqlmcp sends (a POST with the full text), not said to have
// introspection disabled; it is asked once (the refusal is remembered as
// long as a schema would be cached), and graphql_query sends it nothing
// unchecked (it would refuse the operation alike).
func TestIntrospectEndpointThatTakesOtherRequests(t *testing.T) {
	for _, tt := range []struct {
		name, contentType, allow, body string
		status                         int
		want                           string
	}{
		{"yoga persisted operations", "application/graphql-response+json", "", `{"errors":[{"message":"PersistedQueryOnly","extensions":{"code":"PERSISTED_QUERY_ONLY"}}]}`, 400, "persisted operations only"},
		{"apollo safelist code", "application/json", "", `{"errors":[{"message":"Operation rejected","extensions":{"code":"QUERY_NOT_IN_SAFELIST"}}]}`, 200, "persisted operations only"},
		{"persisted query not found", "application/json", "", `{"errors":[{"message":"PersistedQueryNotFound"}]}`, 200, "persisted operations only"},
		{"plain text", "text/plain", "", "Only persisted documents are accepted.", 400, "persisted operations only"},
		{"GET only", "text/plain", "GET, HEAD", "Method Not Allowed", 405, "HTTP 405 Method Not Allowed (it allows GET, HEAD only)"},
		{"GET only, GraphQL errors", "application/json", "GET", `{"errors":[{"message":"POST is not supported"}]}`, 405, "HTTP 405: the endpoint refused it with the error quoted below. graphqlmcp sends"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, rec := testservers.Start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", tt.contentType)
				if tt.allow != "" {
					w.Header().Set("Allow", tt.allow)
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			cfg := testConfig(t, srv.URL)
			cfg.Validate = true
			h := connect(t, cfg, nil)
			res := h.call(t, "graphql_introspect", map[string]any{})
			text := mcptest.Text(res)
			if !res.IsError || !strings.Contains(text, tt.want) || !strings.Contains(text, "POST with its full text") || strings.Contains(text, "introspection disabled") {
				t.Errorf("isError=%v %s", res.IsError, text)
			}
			if rec.Count() != 1 {
				t.Errorf("%d requests, want 1", rec.Count())
			}
			for range 2 {
				res = h.call(t, "graphql_query", map[string]any{"query": "{ a }"})
				if !res.IsError || !strings.Contains(mcptest.Text(res), tt.want) || rec.Operations() != 0 {
					t.Errorf("graphql_query: isError=%v, %d operations sent: %s", res.IsError, rec.Operations(), mcptest.Text(res))
				}
			}
			// The refusal is remembered as long as a schema would be
			// cached: the calls after the first do not ask again.
			if rec.Count() != 1 {
				t.Errorf("%d requests after two queries, want 1", rec.Count())
			}
		})
	}
}

// TestIntrospectRefusalThatOnlyMentionsPersisted: an answer is not read as
// persisted-only for a word it merely holds: a refusal that quotes a name
// with "persisted" in it (a field of the endpoint's, which messages quote),
// or a 2xx answer that is not a GraphQL response (another API at that URL).
// Each is an endpoint that may take operations as text: graphql_query sends
// one unchecked.
func TestIntrospectRefusalThatOnlyMentionsPersisted(t *testing.T) {
	for _, tt := range []struct{ name, contentType, body string }{
		{"quoted field name", "application/json", `{"errors":[{"message":"Cannot query field \"__schema\" on type \"Query\". Did you mean \"persistedQueries\"?"}]}`},
		{"graphql-java quoting", "application/json", `{"errors":[{"message":"Validation error (FieldUndefined@[__schema]) : Field '__schema' in type 'Query' is undefined; try 'persistedQuery'"}]}`},
		{"hot chocolate quoting", "application/json", "{\"errors\":[{\"message\":\"The field `__schema` does not exist on the type `Query`. Use `persistedOperations`.\"}]}"},
		{"2xx, not GraphQL", "application/json", `{"status":"ok","persisted":true}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, rec := testservers.Start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				w.Header().Set("Content-Type", tt.contentType)
				if bytes.Contains(body, []byte("IntrospectionQuery")) {
					io.WriteString(w, tt.body)
					return
				}
				io.WriteString(w, `{"data":{"a":1}}`)
			}))
			cfg := testConfig(t, srv.URL)
			cfg.Validate = true
			h := connect(t, cfg, nil)
			res := h.call(t, "graphql_introspect", map[string]any{})
			if text := mcptest.Text(res); !res.IsError || strings.Contains(text, "persisted operations only") {
				t.Errorf("isError=%v %s", res.IsError, text)
			}
			res = h.call(t, "graphql_query", map[string]any{"query": "{ a }"})
			if res.IsError || rec.Operations() != 1 {
				t.Errorf("graphql_query: isError=%v, %d operations sent: %s", res.IsError, rec.Operations(), mcptest.Text(res))
			}
		})
	}
}

// TestIntrospectAllowHeaderEchoingASecret: a 405's Allow header that echoes
// a startup credential is not named in the error; HTTP's method names are.
func TestIntrospectAllowHeaderEchoingASecret(t *testing.T) {
	const secret = "QWERTYUIOP"
	srv, _ := testservers.Start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, credential, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		w.Header().Set("Allow", "GET, "+credential)
		w.WriteHeader(http.StatusMethodNotAllowed)
	}))
	cfg := testConfig(t, srv.URL)
	cfg.Headers = map[string]string{"Authorization": "Bearer " + secret}
	res := connect(t, cfg, nil).call(t, "graphql_introspect", map[string]any{})
	if text := mcptest.Text(res); !res.IsError || strings.Contains(text, secret) || !strings.Contains(text, "HTTP 405") {
		t.Errorf("isError=%v %s", res.IsError, text)
	}
}

// TestIntrospectAndQueryConcurrently: graphql_introspect building the
// validator's schema while graphql_query calls need it (run under -race):
// one introspection serves all (as many requests as one call alone makes:
// graph-gophers lacks isOneOf, so two), every query is checked against the
// same schema (a misspelt field is refused with the suggestion, never
// sent), and the valid ones are sent.
func TestIntrospectAndQueryConcurrently(t *testing.T) {
	alone, aloneRec := testservers.Start(t, testservers.Starwars())
	connect(t, testConfig(t, alone.URL), nil).call(t, "graphql_introspect", map[string]any{})
	srv, rec := testservers.Start(t, testservers.Starwars())
	cfg := testConfig(t, srv.URL)
	cfg.Validate = true
	h := connect(t, cfg, nil)
	const calls = 8
	errs := make(chan string, 3*calls)
	var wg sync.WaitGroup
	for range calls {
		wg.Add(3)
		go func() {
			defer wg.Done()
			if res := h.call(t, "graphql_introspect", map[string]any{"types": []string{"Human"}}); res.IsError || strings.Contains(mcptest.Text(res), "cannot check") {
				errs <- "introspect: " + mcptest.Text(res)
			}
		}()
		go func() {
			defer wg.Done()
			if res := h.call(t, "graphql_query", map[string]any{"query": "{ hero { name } }"}); res.IsError {
				errs <- "valid query: " + mcptest.Text(res)
			}
		}()
		go func() {
			defer wg.Done()
			if res := h.call(t, "graphql_query", map[string]any{"query": "{ hero { nmae } }"}); !res.IsError || !strings.Contains(mcptest.Text(res), `Did you mean "name"`) {
				errs <- "misspelt query: " + mcptest.Text(res)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if rec.Introspections() != aloneRec.Introspections() || rec.Operations() != calls {
		t.Errorf("%d introspection requests (want %d, as one call alone), %d operations sent (want %d)", rec.Introspections(), aloneRec.Introspections(), rec.Operations(), calls)
	}
}
