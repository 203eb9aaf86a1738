package tools

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/config"
	"github.com/mcpforge/servers/graphqlmcp/internal/schema"
	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/mcptest"
	"github.com/mcpforge/servers/shared/mcptool"
)

const kindsDir = "testdata/operations/kinds"

// savedServer starts a server with cfg and a client connected to it; its
// context ends with the test, which stops the reload watcher.
func savedServer(t *testing.T, cfg config.Config, clientOpts *mcp.ClientOptions) (*mcp.ClientSession, *mcptest.SyncBuffer) {
	t.Helper()
	return savedServerContext(t, context.Background(), cfg, clientOpts)
}

func savedServerContext(t *testing.T, parent context.Context, cfg config.Config, clientOpts *mcp.ClientOptions) (*mcp.ClientSession, *mcptest.SyncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(parent)
	t.Cleanup(cancel)
	logs := &mcptest.SyncBuffer{}
	server, err := New(ctx, Options{Config: cfg, HTTP: upstream.NewHTTPClient("graphqlmcp-test"),
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})), Version: "test"})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	session, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, clientOpts).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	return session, logs
}

func kindsConfig(t *testing.T, endpoint string, paths ...string) config.Config {
	t.Helper()
	cfg := testConfig(t, endpoint)
	s, err := schema.Load(filepath.Join(kindsDir, "schema.graphql"), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Schema, cfg.Validate, cfg.Operations = s, true, paths
	return cfg
}

func toolsByName(t *testing.T, session *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	list, err := session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tool := range list.Tools {
		byName[tool.Name] = tool
	}
	return byName
}

// resolved is a listed schema, as a client reads it, resolved for
// validation by jsonschema-go.
func resolved(t *testing.T, raw any) *jsonschema.Resolved {
	t.Helper()
	data, err := json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("resolving %s: %v", data, err)
	}
	return r
}

// TestSavedOperationInputSchemas: each GraphQL input type kind maps to a
// JSON Schema that a validator holds values to as GraphQL coerces them:
// scalars, an enum (its values and descriptions), an input object under
// $defs that refers to itself, lists, non-null as required, defaults,
// @oneOf, and a custom scalar with its description and specifiedByURL
// (of any JSON type, as its endpoint parses it). Names, descriptions from comments or generated, and
// annotations follow the operation.
func TestSavedOperationInputSchemas(t *testing.T) {
	session, _ := savedServer(t, kindsConfig(t, "http://127.0.0.1:9/graphql", filepath.Join(kindsDir, "ops")), nil)
	tools := toolsByName(t, session)
	for _, name := range []string{"graphql_query", "graphql_introspect", "find_items", "user_by_key", "search", "tag_item"} {
		if tools[name] == nil {
			t.Fatalf("tool %s is not listed; got %v", name, tools)
		}
	}
	find := tools["find_items"]
	if find.Description != "Lists items that match a filter.\nA filter may nest (and, not)." {
		t.Errorf("find_items description = %q, want the comment above the operation", find.Description)
	}
	if !strings.Contains(tools["search"].Description, "query Search") || !strings.Contains(tools["search"].Description, "search") {
		t.Errorf("search's generated description %q should name the operation and its root field", tools["search"].Description)
	}
	if !find.Annotations.ReadOnlyHint || tools["tag_item"].Annotations.ReadOnlyHint {
		t.Errorf("annotations: find_items read-only %v, tag_item read-only %v; want a query read-only and a mutation not",
			find.Annotations.ReadOnlyHint, tools["tag_item"].Annotations.ReadOnlyHint)
	}
	schemaText, _ := json.Marshal(find.InputSchema)
	for _, want := range []string{`"$defs"`, `"Filter"`, `"$ref":"#/$defs/Filter"`, `specified by https://www.rfc-editor.org/rfc/rfc3339`,
		`An instant, as RFC 3339 text.`, `ASC: oldest first`, `OLD: use ASC`[:4], `"default":5`, `"required":["exact"]`, `passed to items(filter:) what to match`} {
		if !strings.Contains(string(schemaText), want) {
			t.Errorf("find_items input schema lacks %s:\n%s", want, schemaText)
		}
	}
	// Output: a field under @include, or in a fragment only some of a
	// union's members meet, may be absent; the others are required.
	for _, c := range []struct {
		tool, data string
		valid      bool
	}{
		{"find_items", `{"items": [{"id": "1", "title": null, "at": null, "score": null, "tags": [], "order": null}]}`, true},
		{"find_items", `{"items": [{"id": "1", "title": null, "at": null, "score": null, "order": null}]}`, false}, // tags: [String!]!
		{"find_items", `{"items": [{"id": 1, "title": null, "at": null, "score": null, "tags": [], "order": null}]}`, false},
		{"find_items", `{"items": null}`, false},
		{"search", `{"search": [{"__typename": "User"}, {"__typename": "Item", "title": "t"}]}`, true},
		{"search", `{"search": [{"login": "x"}]}`, false},
	} {
		var data any
		if err := json.Unmarshal([]byte(c.data), &data); err != nil {
			t.Fatal(err)
		}
		err := resolved(t, tools[c.tool].OutputSchema).Validate(map[string]any{"data": data})
		if (err == nil) != c.valid {
			t.Errorf("%s output %s: validation error %v, want valid %v", c.tool, c.data, err, c.valid)
		}
	}
	cases := []struct {
		tool  string
		args  string
		valid bool
	}{
		{"find_items", `{"exact": true}`, true},
		{"find_items", `{}`, false}, // non-null → required
		{"find_items", `{"exact": "yes"}`, false},
		{"find_items", `{"exact": true, "first": 3, "ratio": 0.5, "ids": ["1", "2"], "when": "2024-01-01T00:00:00Z"}`, true},
		{"find_items", `{"exact": true, "first": 2.5}`, false},        // Int
		{"find_items", `{"exact": true, "first": 3000000000}`, false}, // Int is 32-bit
		{"find_items", `{"exact": true, "ratio": "x"}`, false},        // Float
		{"find_items", `{"exact": true, "ids": "1"}`, true},           // a list takes one item alone
		{"find_items", `{"exact": true, "ids": [null]}`, false},       // [ID!]
		{"find_items", `{"exact": true, "first": null}`, true},        // nullable
		{"find_items", `{"exact": true, "when": 5}`, true},            // a custom scalar takes what its endpoint parses
		{"find_items", `{"exact": true, "ids": [true]}`, false},       // ID: a string or an integer
		{"find_items", `{"exact": true, "order": "DESC"}`, true},
		{"find_items", `{"exact": true, "order": "SIDEWAYS"}`, false}, // enum
		{"find_items", `{"exact": true, "filter": {"text": "a", "and": [{"not": {"tags": ["x"]}}], "order": "ASC"}}`, true},
		{"find_items", `{"exact": true, "filter": {"and": [{"not": {"tags": [1]}}]}}`, false}, // recursion checked deep
		{"find_items", `{"exact": true, "filter": {"order": null}}`, false},                   // non-null field
		{"find_items", `{"exact": true, "filter": {"color": "red"}}`, false},                  // unknown field
		{"find_items", `{"exact": true, "extra": 1}`, false},                                  // unknown argument
		{"user_by_key", `{"key": {"login": "octocat"}}`, true},
		{"user_by_key", `{"key": {}}`, false},                        // @oneOf: one
		{"user_by_key", `{"key": {"id": "1", "login": "x"}}`, false}, // @oneOf: not two
		{"user_by_key", `{"key": {"login": null}}`, false},           // @oneOf: not null
		{"tag_item", `{"id": "1", "tag": "x", "allowMutations": true}`, true},
	}
	for _, c := range cases {
		var instance map[string]any
		if err := json.Unmarshal([]byte(c.args), &instance); err != nil {
			t.Fatal(err)
		}
		err := resolved(t, tools[c.tool].InputSchema).Validate(instance)
		if (err == nil) != c.valid {
			t.Errorf("%s %s: validation error %v, want valid %v", c.tool, c.args, err, c.valid)
		}
	}
}

// fakeKinds answers the kinds schema's operations with canned data and
// records what it was sent.
func fakeKinds(t *testing.T) (*testservers.Recorder, string) {
	t.Helper()
	srv, rec := testservers.Start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			OperationName string `json:"operationName"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "application/json")
		switch body.OperationName {
		case "FindItems":
			io.WriteString(w, `{"data":{"items":[{"id":"1","title":null,"at":"2024-01-01T00:00:00Z","score":1.5,"tags":["a"],"order":"ASC","sameOrder":"ASC"}]}}`)
		case "Search":
			io.WriteString(w, `{"data":{"search":[{"__typename":"User","login":"octocat"},{"__typename":"Item","title":"t"}]}}`)
		case "UserByKey":
			io.WriteString(w, `{"data":{"user":{"id":"1","login":"octocat","items":[]}}}`)
		default:
			io.WriteString(w, `{"data":null,"errors":[{"message":"unknown"}]}`)
		}
	}))
	return rec, srv.URL
}

// TestSavedOperationCalls: a call sends the stored operation with its
// arguments as variables, and its structured result matches the output
// schema derived from the selection set; bad arguments are refused before
// anything is sent, naming the argument, the place and the expected type.
func TestSavedOperationCalls(t *testing.T) {
	rec, url := fakeKinds(t)
	session, _ := savedServer(t, kindsConfig(t, url, filepath.Join(kindsDir, "ops")), nil)
	tools := toolsByName(t, session)
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"find_items", map[string]any{"exact": true, "filter": map[string]any{"and": []any{map[string]any{"text": "x"}}}}},
		{"search", map[string]any{"text": "oct"}},
		{"user_by_key", map[string]any{"key": map[string]any{"login": "octocat"}}},
	} {
		res := mcptest.Call(t, context.Background(), session, call.tool, call.args)
		if res.IsError {
			t.Fatalf("%s: %v", call.tool, mcptest.Text(res))
		}
		if err := resolved(t, tools[call.tool].OutputSchema).Validate(res.StructuredContent); err != nil {
			t.Errorf("%s: structured result %v does not match its output schema: %v", call.tool, res.StructuredContent, err)
		}
	}
	sent := rec.Requests()
	if len(sent) != 3 {
		t.Fatalf("the endpoint got %d requests, want 3", len(sent))
	}
	var first struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if err := json.Unmarshal(sent[0].Body, &first); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(first.Query, "query FindItems (") || first.Variables["exact"] != true {
		t.Errorf("find_items sent %s", sent[0].Body)
	}
	var third struct {
		Query string `json:"query"`
	}
	_ = json.Unmarshal(sent[2].Body, &third)
	if !strings.Contains(third.Query, "fragment UserFields on User") {
		t.Errorf("user_by_key sent %q, want it with the fragment from the other file", third.Query)
	}

	for _, bad := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"find_items", map[string]any{}, []string{`Variable "$exact" of required type "Boolean!" was not provided.`}},
		{"find_items", map[string]any{"exact": true, "filter": map[string]any{"and": []any{map[string]any{"limit": "ten"}}}},
			[]string{`Variable "$filter" got invalid value "ten" at "filter.and[0].limit"`, `Int cannot represent non-integer value: "ten"`}},
		{"find_items", map[string]any{"exact": true, "colour": 1}, []string{`unknown argument "colour": find_items accepts only`}},
		{"user_by_key", map[string]any{"key": map[string]any{"id": "1", "login": "x"}}, []string{`"$key"`, `Exactly one key must be specified for OneOf type "UserKey"`}},
		{"tag_item", map[string]any{"id": "1", "tag": "x"}, []string{"pass allowMutations: true"}},
	} {
		res := mcptest.Call(t, context.Background(), session, bad.tool, bad.args)
		text := mcptest.Text(res)
		if !res.IsError {
			t.Errorf("%s %v: not refused: %s", bad.tool, bad.args, text)
		}
		for _, want := range bad.want {
			if !strings.Contains(text, want) {
				t.Errorf("%s %v: %s\nwant it to say %s", bad.tool, bad.args, text, want)
			}
		}
	}
	if got := rec.Count(); got != 3 {
		t.Errorf("refused calls sent %d requests", got-3)
	}
}

// TestSavedOperationsSampleAPI: a folder of operations against the sample
// API (graph-gophers' Star Wars, introspected at startup): a query with an
// enum default, a query with an optional enum argument, and a mutation
// that runs only with allowMutations under --mutations per-call.
func TestSavedOperationsSampleAPI(t *testing.T) {
	srv, rec := testservers.Start(t, testservers.Starwars())
	cfg := testConfig(t, srv.URL)
	cfg.Validate, cfg.Operations = true, []string{"testdata/operations/starwars"}
	session, _ := savedServer(t, cfg, nil)
	tools := toolsByName(t, session)
	for _, name := range []string{"hero_of_episode", "starship_length", "create_review"} {
		if tools[name] == nil {
			t.Fatalf("%s not listed", name)
		}
	}
	res := mcptest.Call(t, context.Background(), session, "hero_of_episode", map[string]any{"episode": "EMPIRE"})
	if res.IsError || !strings.Contains(mcptest.Text(res), "Luke Skywalker") {
		t.Errorf("hero_of_episode EMPIRE: %s", mcptest.Text(res))
	}
	if err := resolved(t, tools["hero_of_episode"].OutputSchema).Validate(res.StructuredContent); err != nil {
		t.Errorf("output schema: %v", err)
	}
	res = mcptest.Call(t, context.Background(), session, "starship_length", map[string]any{"id": "3000", "unit": "FOOT"})
	if res.IsError || !strings.Contains(mcptest.Text(res), "Millennium Falcon") {
		t.Errorf("starship_length: %s", mcptest.Text(res))
	}
	review := map[string]any{"episode": "JEDI", "review": map[string]any{"stars": 5, "commentary": "good"}}
	before := rec.Operations()
	if res := mcptest.Call(t, context.Background(), session, "create_review", review); !res.IsError {
		t.Errorf("create_review without allowMutations ran: %s", mcptest.Text(res))
	}
	if rec.Operations() != before {
		t.Error("a refused mutation was sent")
	}
	review["allowMutations"] = true
	if res := mcptest.Call(t, context.Background(), session, "create_review", review); res.IsError || !strings.Contains(mcptest.Text(res), `"stars":5`) {
		t.Errorf("create_review with allowMutations: %s", mcptest.Text(res))
	}
}

// TestSavedOperationPersistedQueries: operations from an Apollo
// persisted-query manifest are sent by id (the persistedQuery extension,
// no text), and with the text only after the endpoint answers
// PersistedQueryNotFound, as Apollo's APQ protocol specifies; a Relay map's
// by doc_id.
func TestSavedOperationPersistedQueries(t *testing.T) {
	var mu sync.Mutex
	known := map[string]bool{}
	srv, rec := testservers.Start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Query      string `json:"query"`
			DocID      string `json:"doc_id"`
			Extensions struct {
				PersistedQuery struct {
					Hash string `json:"sha256Hash"`
				} `json:"persistedQuery"`
			} `json:"extensions"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		id := body.Extensions.PersistedQuery.Hash + body.DocID
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if body.Query == "" && !known[id] {
			io.WriteString(w, `{"errors":[{"message":"PersistedQueryNotFound","extensions":{"code":"PERSISTED_QUERY_NOT_FOUND"}}]}`)
			return
		}
		known[id] = true
		io.WriteString(w, `{"data":{"items":[{"id":"1","title":"first"}]}}`)
	}))
	dir := t.TempDir()
	apollo := filepath.Join(dir, "manifest.json")
	body := "query ItemTitles($first: Int) { items(first: $first) { id title } }"
	writeFile(t, apollo, `{"format":"apollo-persisted-query-manifest","version":1,"operations":[{"id":"abc123","name":"ItemTitles","type":"query","body":`+quote(body)+`}]}`)
	relay := filepath.Join(dir, "relay.json")
	writeFile(t, relay, `{"r1": `+quote("query RelayItems { items { id } }")+`}`)
	session, _ := savedServer(t, kindsConfig(t, srv.URL, apollo, relay), nil)
	for range 2 {
		if res := mcptest.Call(t, context.Background(), session, "item_titles", map[string]any{"first": 1}); res.IsError || !strings.Contains(mcptest.Text(res), "first") {
			t.Fatalf("item_titles: %s", mcptest.Text(res))
		}
	}
	if res := mcptest.Call(t, context.Background(), session, "relay_items", nil); res.IsError {
		t.Fatalf("relay_items: %s", mcptest.Text(res))
	}
	var sent []map[string]any
	for _, r := range rec.Requests() {
		var m map[string]any
		_ = json.Unmarshal(r.Body, &m)
		sent = append(sent, m)
	}
	if len(sent) != 5 {
		t.Fatalf("sent %d requests, want 5 (id, id+text, id; doc_id, doc_id+text): %v", len(sent), sent)
	}
	if sent[0]["query"] != nil || sent[1]["query"] != body || sent[2]["query"] != nil {
		t.Errorf("APQ: want id alone, then id with the stored text, then id alone; got %v", sent[:3])
	}
	ext, _ := sent[0]["extensions"].(map[string]any)
	pq, _ := ext["persistedQuery"].(map[string]any)
	if pq["sha256Hash"] != "abc123" || pq["version"] != float64(1) {
		t.Errorf("APQ extension = %v", ext)
	}
	if sent[3]["doc_id"] != "r1" || sent[3]["query"] != nil || sent[4]["query"] == nil {
		t.Errorf("Relay: want doc_id alone, then with the text; got %v", sent[3:])
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestSavedOperationRefusals: every problem stops the start, one line
// each, file:line:col: message, and no tool is listed.
func TestSavedOperationRefusals(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name  string
		files map[string]string
		cfg   func(*config.Config)
		want  []string
	}{
		{"syntax", map[string]string{"a.graphql": "query A {\n  items {\n"}, nil, []string{"a.graphql:3:1: Syntax Error"}},
		{"unknown field", map[string]string{"a.graphql": "query A {\n  items { id colour }\n}"}, nil,
			[]string{`a.graphql:2:14: Cannot query field "colour" on type "Item".`}},
		{"two problems, two files", map[string]string{"a.graphql": "query A { nope }", "b.graphql": "query B($x: Int) { items { id } }"}, nil,
			[]string{`a.graphql:1:11: Cannot query field "nope" on type "Query".`, `b.graphql:1:9: Variable "$x" is never used in operation "B".`}},
		{"fragment in another file", map[string]string{"a.graphql": "query A { items { ...F } }", "f.graphql": "\n\nfragment F on Item { id bad }"}, nil,
			[]string{`f.graphql:3:25: Cannot query field "bad" on type "Item".`}},
		{"name clash", map[string]string{"a.graphql": "query GetItems { items { id } }", "b.graphql": "\nquery getItems { items { id } }"}, nil,
			[]string{"b.graphql:2:1: operation getItems makes the tool name get_items, as operation GetItems at", "a.graphql:1:1 does"}},
		{"anonymous", map[string]string{"a.graphql": "{ items { id } }"}, nil, []string{"a.graphql:1:1: an anonymous query cannot be a tool"}},
		{"builtin name", map[string]string{"a.graphql": "query GraphqlQuery { items { id } }"}, nil, []string{"which is graphqlmcp's own"}},
		{"group name", map[string]string{"a.graphql": "query Operations { items { id } }"}, nil,
			[]string{"a.graphql:1:1: operation Operations makes the tool name operations, the name --tools and --exclude-tools give all saved operations"}},
		{"too costly", map[string]string{"a.graphql": "query A { items(first: 50) { id } search(text: \"x\") { __typename } }"},
			func(c *config.Config) { c.MaxComplexity = 20 }, []string{"a.graphql:1:1: operation A: query complexity", "over the ceiling of 20"}},
		{"mutations never", map[string]string{"a.graphql": "mutation M { tag(id: 1, tag: \"x\") { id } }"},
			func(c *config.Config) { c.Mutations = config.MutationsNever }, []string{"a.graphql:1:1: operation M is a mutation, and this server refuses all mutations"}},
		{"subscription", map[string]string{"a.graphql": "subscription S { items { id } }"}, nil, []string{"a.graphql:1:1: operation S is a subscription"}},
		{"manifest", map[string]string{"m.json": "{\n  \"q1\": \"query Q { nope }\"\n}"}, nil,
			[]string{`m.json:2:9: operation Q, line 1, column 11 of its text: Cannot query field "nope"`}},
		{"manifest not JSON", map[string]string{"m.json": "{\n  \"q1\": oops\n}"}, nil, []string{"m.json:2:10: is not a JSON object"}},
		{"manifest format", map[string]string{"m.json": `{"format": "apollo-persisted-query-manifest", "version": 2, "operations": []}`}, nil,
			[]string{`m.json:1:1: has format "apollo-persisted-query-manifest" version 2`}},
		{"fragment twice", map[string]string{"a.graphql": "query A { items { ...F } }\nfragment F on Item { id }", "b.graphql": "fragment F on Item { title }"}, nil,
			[]string{"b.graphql:1:1: fragment F is defined again; it is defined at", "a.graphql:2:1 too"}},
		{"allowMutations variable", map[string]string{"a.graphql": "mutation M($allowMutations: String!) { tag(id: 1, tag: $allowMutations) { id } }"}, nil,
			[]string{"a.graphql:1:1: operation M has a variable $allowMutations"}},
		{"empty folder", map[string]string{"notes.txt": "nothing"}, nil, []string{"holds no .graphql or .gql file"}},
		{"only fragments", map[string]string{"f.graphql": "fragment F on Item { id }"}, nil, []string{"holds fragments but no operation"}},
		{"no schema", map[string]string{"a.graphql": "query A { items { id } }"}, func(c *config.Config) { c.Schema = nil },
			[]string{"--operations: the saved operations are checked against the schema of http://127.0.0.1:9/graphql, which could not be read", "give the schema with --schema"}},
		{"missing", nil, func(c *config.Config) { c.Operations = []string{filepath.Join(dir, "absent.graphql")} }, []string{"absent.graphql: cannot be read"}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sub := filepath.Join(dir, string(rune('a'+i)))
			if err := os.MkdirAll(sub, 0o700); err != nil {
				t.Fatal(err)
			}
			for name, text := range c.files {
				writeFile(t, filepath.Join(sub, name), text)
			}
			cfg := kindsConfig(t, "http://127.0.0.1:9/graphql", sub)
			for name := range c.files {
				if strings.HasSuffix(name, ".json") {
					cfg.Operations = []string{filepath.Join(sub, name)}
				}
			}
			if c.cfg != nil {
				c.cfg(&cfg)
			}
			_, err := New(context.Background(), Options{Config: cfg, HTTP: upstream.NewHTTPClient("test"), Logger: slog.New(slog.DiscardHandler)})
			if err == nil {
				t.Fatal("the server started")
			}
			for _, want := range c.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error:\n%v\nwant it to hold %q", err, want)
				}
			}
			lines := strings.Split(err.Error(), "\n")
			for _, line := range lines[1:] {
				if c.name == "no schema" {
					break
				}
				if !strings.Contains(line, sub) && !strings.Contains(line, dir) {
					t.Errorf("problem line %q does not start with its file", line)
				}
			}
		})
	}
}

// TestSavedOperationReload: a SIGHUP reads the files again; a good edit
// swaps the tools and the client hears notifications/tools/list_changed;
// a bad edit keeps the last good set and logs why.
func TestSavedOperationReload(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ops.graphql")
	writeFile(t, file, "query First { items { id } }")
	changed := make(chan struct{}, 10)
	session, logs := savedServer(t, kindsConfig(t, "http://127.0.0.1:9/graphql", dir), &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	if toolsByName(t, session)["first"] == nil {
		t.Fatal("first not listed")
	}
	writeFile(t, file, "query Second { items { title } }")
	hangUp(t)
	waitFor(t, changed)
	tools := toolsByName(t, session)
	if tools["second"] == nil || tools["first"] != nil {
		t.Fatalf("after the edit, tools are %v; want second in place of first", tools)
	}

	writeFile(t, file, "query Third { nope }")
	hangUp(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := logs.Await(ctx, "not reloaded"); err != nil {
		t.Fatalf("%v; no log line says the bad edit was not loaded:\n%s", err, logs.String())
	}
	if !strings.Contains(logs.String(), `Cannot query field \"nope\"`) && !strings.Contains(logs.String(), `Cannot query field "nope"`) {
		t.Errorf("the log does not say why:\n%s", logs.String())
	}
	if tools := toolsByName(t, session); tools["second"] == nil || tools["third"] != nil {
		t.Errorf("after a bad edit, tools are %v; want the last good set", tools)
	}
}

func hangUp(t *testing.T) {
	t.Helper()
	self, err := os.FindProcess(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if err := self.Signal(syscall.SIGHUP); err != nil {
		t.Skipf("this system sends no SIGHUP: %v", err)
	}
}

func waitFor(t *testing.T, ch chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed within 10s")
	}
}

// TestSavedOperationsGitHub: a folder of operations against GitHub's public
// schema (scripts/github-schema sets GITHUB_SCHEMA_DIR): input objects
// with enums and defaults (IssueOrder), lists of enums, custom scalars
// (DateTime, URI) and a mutation's input object map to schemas that a
// validator holds values to.
func TestSavedOperationsGitHub(t *testing.T) {
	introspection := testservers.GitHubIntrospection(t)
	file := filepath.Join(t.TempDir(), "github.json")
	writeFile(t, file, string(introspection))
	s, err := schema.Load(file, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, "http://127.0.0.1:9/graphql")
	cfg.Schema, cfg.Validate, cfg.Operations = s, true, []string{"testdata/operations/github"}
	session, _ := savedServer(t, cfg, nil)
	tools := toolsByName(t, session)
	for _, c := range []struct {
		tool  string
		args  string
		valid bool
	}{
		{"repository_issues", `{"owner": "octocat", "name": "hello"}`, true},
		{"repository_issues", `{"owner": "octocat"}`, false},
		{"repository_issues", `{"owner": "o", "name": "n", "states": ["OPEN", "CLOSED"], "orderBy": {"field": "UPDATED_AT", "direction": "ASC"}}`, true},
		{"repository_issues", `{"owner": "o", "name": "n", "states": ["SHUT"]}`, false},
		{"repository_issues", `{"owner": "o", "name": "n", "orderBy": {"field": "UPDATED_AT"}}`, false},
		{"search_repositories", `{"query": "graphql", "first": 2}`, true},
		{"add_reaction", `{"input": {"subjectId": "I_1", "content": "HEART"}, "allowMutations": true}`, true},
		{"add_reaction", `{"input": {"subjectId": "I_1", "content": "LOVE"}}`, false},
	} {
		tool := tools[c.tool]
		if tool == nil {
			t.Fatalf("%s is not listed", c.tool)
		}
		var instance map[string]any
		if err := json.Unmarshal([]byte(c.args), &instance); err != nil {
			t.Fatal(err)
		}
		if err := resolved(t, tool.InputSchema).Validate(instance); (err == nil) != c.valid {
			t.Errorf("%s %s: validation error %v, want valid %v", c.tool, c.args, err, c.valid)
		}
	}
	text, _ := json.Marshal(tools["search_repositories"].OutputSchema)
	for _, want := range []string{`"repositoryCount":{"type":"integer"}`, `"nameWithOwner"`, `"__typename":{"type":"string"}`} {
		if !strings.Contains(string(text), want) {
			t.Errorf("search_repositories output schema lacks %s: %s", want, text)
		}
	}
}

// TestSavedOperationPoll: with no signal, a poll of the files' sizes and
// times (every pollSaved, on the bubble's clock) finds an edit, reloads,
// and the client hears notifications/tools/list_changed; a poll that finds
// nothing changed reloads nothing.
func TestSavedOperationPoll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		file := filepath.Join(dir, "ops.graphql")
		writeFile(t, file, "query First { items { id } }")
		changed := make(chan struct{}, 10)
		// No SIGHUP: the signal package may not touch the bubble's channels.
		ctx := context.WithValue(context.Background(), reloadKey{}, make(chan struct{}))
		session, _ := savedServerContext(t, ctx, kindsConfig(t, "http://127.0.0.1:9/graphql", dir), &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
		})
		time.Sleep(3 * pollSaved)
		synctest.Wait()
		if len(changed) != 0 {
			t.Fatalf("%d list_changed notifications with no edit", len(changed))
		}
		writeFile(t, file, "query Second { items { title } }")
		time.Sleep(pollSaved + time.Second)
		synctest.Wait()
		if len(changed) != 1 {
			t.Fatalf("%d list_changed notifications after one edit and a poll, want 1", len(changed))
		}
		if tools := toolsByName(t, session); tools["second"] == nil || tools["first"] != nil {
			t.Errorf("after the edit, tools are %v; want second in place of first", tools)
		}
	})
}

// TestSavedOperationFilter: the tool filter takes saved operations by
// name and as the group "operations" (--tools operations lists nothing
// else); --read-only leaves out a saved mutation.
func TestSavedOperationFilter(t *testing.T) {
	for _, c := range []struct {
		filter       mcptool.Filter
		listed, gone []string
	}{
		{mcptool.Filter{Exclude: []string{"find_items"}}, []string{"search", "tag_item"}, []string{"find_items"}},
		{mcptool.Filter{ReadOnly: true}, []string{"find_items", "search"}, []string{"tag_item"}},
		{mcptool.Filter{Exclude: []string{"operations"}}, []string{"graphql_query"}, []string{"find_items", "search", "tag_item", "user_by_key"}},
		// A deployment that exposes nothing but reviewed operations.
		{mcptool.Filter{Only: []string{"operations"}}, []string{"find_items", "search", "tag_item", "user_by_key"}, []string{"graphql_query", "graphql_introspect"}},
		{mcptool.Filter{Only: []string{"search", "graphql_introspect"}}, []string{"search", "graphql_introspect"}, []string{"find_items", "graphql_query"}},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		server, err := New(ctx, Options{Config: kindsConfig(t, "http://127.0.0.1:9/graphql", filepath.Join(kindsDir, "ops")),
			HTTP: upstream.NewHTTPClient("test"), Logger: slog.New(slog.DiscardHandler), Tools: c.filter})
		if err != nil {
			t.Fatalf("%+v: %v", c.filter, err)
		}
		tools := toolsByName(t, mcptest.Connect(t, server))
		for _, name := range c.listed {
			if tools[name] == nil {
				t.Errorf("%+v: %s is not listed", c.filter, name)
			}
		}
		for _, name := range c.gone {
			if tools[name] != nil {
				t.Errorf("%+v: %s is listed", c.filter, name)
			}
		}
		cancel()
	}
}

// TestSavedMutationAsksTheUser: a saved mutation the guard allows is shown
// to the user before it is sent, on every link a client can be asked over,
// as graphql_query's are: sent on a yes, not on a no.
func TestSavedMutationAsksTheUser(t *testing.T) {
	for _, l := range mcptest.AskingLinks() {
		t.Run(l.Name, func(t *testing.T) {
			for _, c := range []struct {
				answer *mcptest.Person
				sent   bool
			}{
				{mcptest.Answering("accept", true), true},
				{mcptest.Answering("decline", nil), false},
			} {
				srv, rec := testservers.Start(t, testservers.Starwars())
				cfg := testConfig(t, srv.URL)
				cfg.Validate, cfg.Operations = true, []string{"testdata/operations/starwars"}
				ctx, cancel := context.WithCancel(context.Background())
				server, err := New(ctx, Options{Config: cfg, HTTP: upstream.NewHTTPClient("test"), Logger: slog.New(slog.DiscardHandler), Version: "test"})
				if err != nil {
					t.Fatal(err)
				}
				session := l.Dial(t, server, c.answer.Client())
				res := mcptest.Call(t, context.Background(), session, "create_review",
					map[string]any{"episode": "JEDI", "review": map[string]any{"stars": 4}, "allowMutations": true})
				if n := len(c.answer.Questions()); n != 1 {
					t.Fatalf("%s: asked %d times, want once", c.answer.Answer.Action, n)
				}
				if !strings.Contains(c.answer.Questions()[0], "mutation CreateReview") {
					t.Errorf("the question %q does not name the mutation", c.answer.Questions()[0])
				}
				if sent := rec.Operations() == 1; sent != c.sent || res.IsError == c.sent {
					t.Errorf("%s: sent %v (error %v: %s), want sent %v", c.answer.Answer.Action, sent, res.IsError, mcptest.Text(res), c.sent)
				}
				cancel()
			}
		})
	}
}
