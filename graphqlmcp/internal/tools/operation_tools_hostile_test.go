package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestSavedOperationSchemaAgreesWithCall: a saved operation's input schema
// allows exactly what its call takes (graphql-js's coercion): a value the
// schema allows is sent, and one it refuses is refused before anything is
// sent. A client that checks arguments against the schema must never stop
// a call the server would make, nor let through one it refuses.
func TestSavedOperationSchemaAgreesWithCall(t *testing.T) {
	rec, url := fakeKinds(t)
	session, _ := savedServer(t, kindsConfig(t, url, filepath.Join(kindsDir, "ops")), nil)
	tools := toolsByName(t, session)
	for _, c := range []struct{ tool, args string }{
		{"find_items", `{"exact": true}`},
		{"find_items", `{}`},
		{"find_items", `{"exact": "yes"}`},
		{"find_items", `{"exact": true, "ids": ["1", 2]}`},         // ID takes an integer, as graphql-js's does
		{"find_items", `{"exact": true, "ids": 7}`},                // a list takes one item alone
		{"find_items", `{"exact": true, "ids": "7"}`},              // a list takes one item alone
		{"find_items", `{"exact": true, "ids": [1.5]}`},            // ID: not a fraction
		{"find_items", `{"exact": true, "ids": [true]}`},           // ID: not a boolean
		{"find_items", `{"exact": true, "ids": [null]}`},           // [ID!]
		{"find_items", `{"exact": true, "ids": null}`},             // the list is nullable
		{"find_items", `{"exact": true, "when": 5}`},               // a custom scalar takes what its endpoint parses
		{"find_items", `{"exact": true, "when": {"at": "now"}}`},   // a custom scalar takes what its endpoint parses
		{"find_items", `{"exact": true, "first": 2.0}`},            // an integral number is an Int
		{"find_items", `{"exact": true, "first": 2e0}`},            // an integral number is an Int
		{"find_items", `{"exact": true, "first": 2147483648}`},     // Int is 32-bit
		{"find_items", `{"exact": true, "ratio": 3}`},              // an Int is a Float
		{"find_items", `{"exact": true, "order": "OLD"}`},          // a deprecated value is a value
		{"find_items", `{"exact": true, "order": "asc"}`},          // enum values are case-sensitive
		{"find_items", `{"exact": true, "filter": {"tags": "x"}}`}, // a list in an input object takes one item too
		{"find_items", `{"exact": true, "filter": {"and": {"text": "x"}}}`},
		{"find_items", `{"exact": true, "filter": {"limit": null}}`}, // a nullable field with a default takes null
		{"find_items", `{"exact": true, "filter": {"order": null}}`},
		{"find_items", `{"exact": true, "filter": null}`},
		{"user_by_key", `{"key": {"id": 1}}`},
		{"user_by_key", `{"key": {"id": null}}`},
		{"user_by_key", `{"key": null}`},
		{"tag_item", `{"id": 5, "tag": "x", "allowMutations": true}`},
	} {
		var args map[string]any
		if err := json.Unmarshal([]byte(c.args), &args); err != nil {
			t.Fatal(err)
		}
		allowed := resolved(t, tools[c.tool].InputSchema).Validate(args)
		before := rec.Count()
		res := mcptest.Call(t, context.Background(), session, c.tool, args)
		sent := rec.Count() > before
		if sent != (allowed == nil) {
			t.Errorf("%s %s: the schema allows it: %v (%v); the call sent it: %v (%s)", c.tool, c.args, allowed == nil, allowed, sent, mcptest.Text(res))
		}
	}
}

// TestSavedOperationForwardsHeaders: over HTTP, a saved operation's call
// sends the headers --forward-header names from the client's request, as
// graphql_query does, and its result and errors never show them.
func TestSavedOperationForwardsHeaders(t *testing.T) {
	srv, rec := testservers.Start(t, echoAuth())
	cfg := withSchemaFile(t, testConfig(t, srv.URL), echoSDL)
	cfg.Headers = map[string]string{"Authorization": "Bearer operator-token-000"}
	cfg.ForwardHeaders = []string{"Authorization", "X-Team"}
	ops := filepath.Join(t.TempDir(), "who.graphql")
	writeFile(t, ops, "query WhoAmI { auth team }\nquery Team($n: Boolean!) { team @skip(if: $n) }\n")
	cfg.Operations = []string{ops}
	url, _ := serveHTTP(t, cfg)

	alice := connectHTTP(t, url, map[string][]string{"Authorization": {"Bearer alice-token-111"}, "X-Team": {"team-alice-111"}})
	nobody := connectHTTP(t, url, nil)
	ctx := context.Background()
	for _, c := range []struct {
		name       string
		session    *mcp.ClientSession
		auth, team string
	}{{"alice", alice, "Bearer alice-token-111", "team-alice-111"}, {"nobody", nobody, "Bearer operator-token-000", ""}} {
		before := rec.Count()
		res := mcptest.Call(t, ctx, c.session, "who_am_i", nil)
		if res.IsError {
			t.Fatalf("%s: %s", c.name, mcptest.Text(res))
		}
		sent := rec.Requests()[before:]
		if len(sent) != 1 || sent[0].Header.Get("Authorization") != c.auth || sent[0].Header.Get("X-Team") != c.team {
			t.Errorf("%s: the endpoint received %v, want Authorization %q and X-Team %q", c.name, sent, c.auth, c.team)
		}
		text := mcptest.Text(res)
		structured, _ := json.Marshal(res.StructuredContent)
		for _, secret := range []string{"alice-token-111", "operator-token-000"} {
			if strings.Contains(text, secret) || strings.Contains(string(structured), secret) {
				t.Errorf("%s: the result shows %s: %s %s", c.name, secret, text, structured)
			}
		}
	}
	// A refusal quoting an argument the model copied a credential into.
	res := mcptest.Call(t, ctx, alice, "team", map[string]any{"n": "team-alice-111"})
	if !res.IsError || strings.Contains(mcptest.Text(res), "team-alice-111") {
		t.Errorf("a refused argument holding the forwarded value: %s", mcptest.Text(res))
	}
}

// TestSavedOperationAnswerOfAnotherShape: an endpoint whose answer does
// not have the shape of the operation's selection (it does not follow the
// schema the operation was checked against) gets its answer shown as text,
// marked an error, with no structured content a client would refuse for
// not matching the tool's output schema. An answer of the right shape,
// errors and partial data included, is structured content that matches.
func TestSavedOperationAnswerOfAnotherShape(t *testing.T) {
	answers := map[string]string{
		"FindItems": `{"data":{"items":"not a list"}}`,
		"Search":    `{"data":{"search":[{"__typename":"User","login":null}]},"errors":[{"message":"login failed","path":["search",0,"login"]}]}`,
		"UserByKey": `{"data":{"user":null},"errors":[{"message":"no such user"}],"extensions":{"cost":3}}`,
	}
	srv, _ := testservers.Start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			OperationName string `json:"operationName"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, answers[body.OperationName])
	}))
	session, _ := savedServer(t, kindsConfig(t, srv.URL, filepath.Join(kindsDir, "ops")), nil)
	tools := toolsByName(t, session)

	res := mcptest.Call(t, context.Background(), session, "find_items", map[string]any{"exact": true})
	if !res.IsError || res.StructuredContent != nil || !strings.Contains(mcptest.Text(res), "not a list") || !strings.Contains(mcptest.Text(res), "shape") {
		t.Errorf("an answer of another shape: error %v, structured %v, text %s", res.IsError, res.StructuredContent, mcptest.Text(res))
	}
	// login is String! in the schema, so null there breaks the schema too.
	res = mcptest.Call(t, context.Background(), session, "search", map[string]any{"text": "x"})
	if res.StructuredContent != nil {
		if err := resolved(t, tools["search"].OutputSchema).Validate(res.StructuredContent); err != nil {
			t.Errorf("search: structured content %v does not match the output schema: %v", res.StructuredContent, err)
		}
	}
	res = mcptest.Call(t, context.Background(), session, "user_by_key", map[string]any{"key": map[string]any{"login": "x"}})
	if res.StructuredContent == nil {
		t.Fatalf("user_by_key: an answer of null data and errors has no structured content: %s", mcptest.Text(res))
	}
	if err := resolved(t, tools["user_by_key"].OutputSchema).Validate(res.StructuredContent); err != nil {
		t.Errorf("user_by_key: structured content %v does not match the output schema: %v", res.StructuredContent, err)
	}
}

// TestSavedOperationPersistedQueryFallback: a manifest's operation goes by
// id, and with its text once more when the endpoint does not take the id:
// it does not know it (PersistedQueryNotFound), it takes no persisted
// queries (PersistedQueryNotSupported, as Apollo's client reads it), or it
// refuses a request with no query as a bad request (HTTP 400, no data), as
// a server without persisted queries does. An endpoint that asks for the
// text again after getting it is answered no third time.
func TestSavedOperationPersistedQueryFallback(t *testing.T) {
	for _, c := range []struct {
		name string
		// answer answers a request with no query text.
		status int
		answer string
		// forever answers the text too as it answers the id alone.
		forever bool
		ok      bool
	}{
		{"not found", 200, `{"errors":[{"message":"PersistedQueryNotFound","extensions":{"code":"PERSISTED_QUERY_NOT_FOUND"}}]}`, false, true},
		{"not supported", 200, `{"errors":[{"message":"PersistedQueryNotSupported","extensions":{"code":"PERSISTED_QUERY_NOT_SUPPORTED"}}]}`, false, true},
		{"no query", 400, `{"errors":[{"message":"Must provide query string."}]}`, false, true},
		{"asks forever", 200, `{"errors":[{"message":"PersistedQueryNotFound"}]}`, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, rec := testservers.Start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var body struct {
					Query string `json:"query"`
				}
				_ = json.NewDecoder(r.Body).Decode(&body)
				w.Header().Set("Content-Type", "application/json")
				if body.Query == "" || c.forever {
					w.WriteHeader(c.status)
					io.WriteString(w, c.answer)
					return
				}
				io.WriteString(w, `{"data":{"items":[{"id":"1"}]}}`)
			}))
			manifest := filepath.Join(t.TempDir(), "manifest.json")
			writeFile(t, manifest, `{"format":"apollo-persisted-query-manifest","version":1,"operations":[{"id":"abc","name":"Ids","type":"query","body":"query Ids { items { id } }"}]}`)
			session, _ := savedServer(t, kindsConfig(t, srv.URL, manifest), nil)
			res := mcptest.Call(t, context.Background(), session, "ids", nil)
			if res.IsError == c.ok {
				t.Errorf("error %v, want %v: %s", res.IsError, !c.ok, mcptest.Text(res))
			}
			if got := rec.Count(); got != 2 {
				t.Errorf("the endpoint got %d requests, want the id, then the id with the text", got)
			}
		})
	}
}

// TestSavedOperationOutputOfMergedFields: a response key selected twice,
// once where it is always in the answer and once under @include or a type
// condition only some objects meet, merges both selections; a field only
// the conditional one selects may be absent from the answer, and the
// output schema must allow that.
func TestSavedOperationOutputOfMergedFields(t *testing.T) {
	ops := filepath.Join(t.TempDir(), "merged.graphql")
	writeFile(t, ops, `query Merged($more: Boolean!) {
  user(key: {login: "a"}) { login }
  user(key: {login: "a"}) @include(if: $more) { id }
  search(text: "a") {
    ... on User { items(first: 1) { id } }
    ... on Item { title }
  }
  node(id: "1") {
    ... on User { items(first: 1) { id } }
    ... on Node { id }
  }
}
`)
	session, _ := savedServer(t, kindsConfig(t, "http://127.0.0.1:9/graphql", ops), nil)
	out := resolved(t, toolsByName(t, session)["merged"].OutputSchema)
	for _, c := range []struct {
		data  string
		valid bool
	}{
		// $more false: user has no id.
		{`{"user": {"login": "a"}, "search": [], "node": {"id": "1"}}`, true},
		{`{"user": {"login": "a", "id": "1"}, "search": [{"items": [{"id": "2"}]}, {"title": null}], "node": {"id": "1", "items": []}}`, true},
		{`{"user": {"id": "1"}, "search": [], "node": {"id": "1"}}`, false}, // login is always there
		{`{"user": {"login": "a"}, "search": [], "node": {}}`, false},       // every Node has id
	} {
		var data any
		if err := json.Unmarshal([]byte(c.data), &data); err != nil {
			t.Fatal(err)
		}
		if err := out.Validate(map[string]any{"data": data}); (err == nil) != c.valid {
			t.Errorf("data %s: validation error %v, want valid %v", c.data, err, c.valid)
		}
	}
}

// TestSavedOperationCallsDuringReload: calls of a saved operation made
// while its files are reloaded, again and again, each run the operation
// (a tool that stays is replaced in place, never missing), and the race
// detector finds nothing shared unguarded between the calls and the swap.
func TestSavedOperationCallsDuringReload(t *testing.T) {
	_, url := fakeKinds(t)
	file := filepath.Join(t.TempDir(), "ops.graphql")
	writeFile(t, file, "query UserByKey { user(key: {login: \"a\"}) { id } }")
	reload := make(chan struct{})
	ctx := context.WithValue(context.Background(), reloadKey{}, reload)
	session, _ := savedServerContext(t, ctx, kindsConfig(t, url, file), nil)

	stop := make(chan struct{})
	failures := make(chan string, 100)
	var callers sync.WaitGroup
	for range 3 {
		callers.Add(1)
		go func() {
			defer callers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "user_by_key", Arguments: map[string]any{}})
				switch {
				case err != nil:
					failures <- err.Error()
				case res.IsError:
					failures <- mcptest.Text(res)
				}
			}
		}()
	}
	for i := range 20 {
		// Each reload reads a new text of the same operation; a send
		// waits until the watcher takes it, after the reload before.
		writeFile(t, file, fmt.Sprintf("# Edit %d.\nquery UserByKey { user(key: {login: \"a\"}) { id } }", i))
		reload <- struct{}{}
	}
	close(stop)
	callers.Wait()
	close(failures)
	for f := range failures {
		t.Errorf("a call during a reload failed: %s", f)
	}
}
