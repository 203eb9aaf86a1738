package tools

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/mcpforge/servers/graphqlmcp/internal/config"
	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/mcptest"
	"github.com/mcpforge/servers/shared/mcptool"
)

// deferSchema declares @defer and @stream, as a server that delivers
// incrementally does (yoga's plugin adds them to its schema).
const deferSchema = `
directive @defer(if: Boolean! = true, label: String) on FRAGMENT_SPREAD | INLINE_FRAGMENT
directive @stream(if: Boolean! = true, label: String, initialCount: Int = 0) on FIELD
type Query { hero: Hero }
type Hero { id: ID! name: String friends(first: Int): [Friend!]! }
type Friend { name: String }
`

// multipartEndpoint answers introspection from deferSchema and every other
// operation with parts, in yoga's framing; hold, when set, is waited on
// (or the request's end) before the last part. It records the Accept
// header of the last operation.
type multipartEndpoint struct {
	parts  []string
	hold   chan struct{}
	schema http.Handler
	mu     sync.Mutex
	accept string
}

func (e *multipartEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if strings.Contains(string(body), "__schema") {
		e.schema.ServeHTTP(w, r)
		return
	}
	e.mu.Lock()
	e.accept = r.Header.Get("Accept")
	e.mu.Unlock()
	if !strings.Contains(r.Header.Get("Accept"), "multipart/mixed") {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"data":{"hero":{"id":"1"}}}`)
		return
	}
	w.Header().Set("Content-Type", `multipart/mixed; boundary="-"`)
	_, _ = io.WriteString(w, "\r\n---")
	for i, p := range e.parts {
		if i == len(e.parts)-1 && e.hold != nil {
			w.(http.Flusher).Flush()
			select {
			case <-e.hold:
			case <-r.Context().Done():
				return
			}
		}
		fmt.Fprintf(w, "\r\nContent-Type: application/json; charset=utf-8\r\n\r\n%s\r\n---", p)
	}
	_, _ = io.WriteString(w, "--\r\n")
}

func (e *multipartEndpoint) lastAccept() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.accept
}

// deferConfig is testConfig with validation on: the operations are checked
// against deferSchema, which declares @defer and @stream, before sending.
func deferConfig(t *testing.T, endpoint string) config.Config {
	cfg := testConfig(t, endpoint)
	cfg.Validate = true
	return cfg
}

const deferQuery = `query { hero { id ... @defer(label: "slow") { name } friends(first: 3) @stream(initialCount: 1) { name } } }`

// TestQueryIncremental runs graphql_query in an MCP session against a
// loopback endpoint that answers in parts: the operation (checked against
// a schema that declares @defer and @stream) asks for multipart/mixed,
// and the result is the merged response with a note saying how it came.
func TestQueryIncremental(t *testing.T) {
	tests := []struct {
		name  string
		parts []string
	}{
		{"2022 draft", []string{
			`{"data":{"hero":{"id":"1","friends":[{"name":"Han"}]}},"hasNext":true}`,
			`{"incremental":[{"items":[{"name":"Leia"}],"path":["hero","friends",1]}],"hasNext":true}`,
			`{"incremental":[{"data":{"name":"Luke"},"path":["hero"],"label":"slow"},{"items":[{"name":"C-3PO"}],"path":["hero","friends",2]}],"hasNext":false}`,
		}},
		{"graphql-js 17", []string{
			`{"data":{"hero":{"id":"1","friends":[{"name":"Han"}]}},"pending":[{"id":"0","path":["hero"],"label":"slow"},{"id":"1","path":["hero","friends"]}],"hasNext":true}`,
			`{"incremental":[{"id":"1","items":[{"name":"Leia"}]}],"hasNext":true}`,
			`{"incremental":[{"id":"0","data":{"name":"Luke"}},{"id":"1","items":[{"name":"C-3PO"}]}],"completed":[{"id":"0"},{"id":"1"}],"hasNext":false}`,
		}},
	}
	want := map[string]any{"data": map[string]any{"hero": map[string]any{
		"id": "1", "name": "Luke", "friends": []any{map[string]any{"name": "Han"}, map[string]any{"name": "Leia"}, map[string]any{"name": "C-3PO"}},
	}}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			endpoint := &multipartEndpoint{parts: tt.parts, schema: testservers.Introspection(deferSchema)}
			srv, _ := testservers.Start(t, endpoint)
			h := connect(t, deferConfig(t, srv.URL), nil)
			res := h.call(t, "graphql_query", map[string]any{"query": deferQuery})
			if res.IsError {
				t.Fatalf("isError: %s", mcptest.Text(res))
			}
			if diff := cmp.Diff(want, mcptest.Structured(t, res)); diff != "" {
				t.Errorf("structured content (-want +got):\n%s", diff)
			}
			// The server's sentence outside, the endpoint's label after it
			// in a frame of its own.
			note := `The endpoint delivered this answer incrementally (@defer/@stream) in 3 parts, merged here into one result (its label named below).`
			blocks, outside := mcptool.Frames(mcptest.Text(res))
			if text := mcptest.Text(res); !strings.Contains(outside, note) || len(blocks) != 2 || blocks[1] != `labels: "slow"` || !strings.HasPrefix(answerText(t, res), `{"data":{"hero":{"id":"1","friends":[{"name":"Han"},{"name":"Leia"},{"name":"C-3PO"}],"name":"Luke"}}}`) {
				t.Errorf("text %s", text)
			}
			if got := endpoint.lastAccept(); got != upstream.IncrementalAccept {
				t.Errorf("Accept %q, want %q", got, upstream.IncrementalAccept)
			}
			// Without @defer or @stream, the Accept is today's, and the
			// answer one JSON document with no note.
			res = h.call(t, "graphql_query", map[string]any{"query": `{ hero { id } }`})
			if res.IsError || strings.Contains(mcptest.Text(res), "incrementally") || endpoint.lastAccept() != upstream.Defaults().Get("Accept") {
				t.Errorf("plain operation: %s, Accept %q", mcptest.Text(res), endpoint.lastAccept())
			}
		})
	}
}

// TestQueryIncrementalEndedEarly: a stream the call's timeout cuts keeps
// what came, and the note says what is missing and what to do.
func TestQueryIncrementalEndedEarly(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	endpoint := &multipartEndpoint{hold: hold, schema: testservers.Introspection(deferSchema), parts: []string{
		`{"data":{"hero":{"id":"1","friends":[]}},"pending":[{"id":"0","path":["hero"],"label":"slow"}],"hasNext":true}`,
		`{"incremental":[{"id":"0","data":{"name":"Luke"}}],"completed":[{"id":"0"}],"hasNext":false}`,
	}}
	srv, _ := testservers.Start(t, endpoint)
	h := connect(t, deferConfig(t, srv.URL), nil)
	res := h.call(t, "graphql_query", map[string]any{"query": deferQuery, "timeout": 200})
	if res.IsError {
		t.Fatalf("isError: %s", mcptest.Text(res))
	}
	text := mcptest.Text(res)
	for _, want := range []string{`{"data":{"hero":{"id":"1","friends":[]}}}`,
		"in 1 part, merged here into one result. The stream ended before the endpoint said it was complete (no part had hasNext: false), so this is only what came: the reading timed out after 200 ms. Still missing: the 1 named below. Pass a larger timeout"} {
		if !strings.Contains(text, want) {
			t.Errorf("text %s\nlacks %s", text, want)
		}
	}
	if blocks, _ := mcptool.Frames(text); len(blocks) != 2 || blocks[1] != "still missing: slow" {
		t.Errorf("frames %q", blocks)
	}
}

// TestQueryIncrementalHostile: a stream that cannot be read is a tool error
// that says why and what to do, never a crash; what of the endpoint's it
// points at is quoted after the sentence, in one frame.
func TestQueryIncrementalHostile(t *testing.T) {
	for name, tt := range map[string]struct {
		parts       []string
		want, quote string
	}{
		"bad JSON": {[]string{`{"data":{"hero":{"id":"1"}},"hasNext":true}`, `{"incremental":[{"data":{"name":`},
			"part 2 is not a JSON object (its start is quoted below)", `{"incremental":[{"data":{"name":`},
		"a path to nothing": {[]string{`{"data":{"hero":null},"hasNext":true}`, `{"incremental":[{"data":{"name":"x"},"path":["hero"]}],"hasNext":false}`},
			"puts its data at the path quoted below, which is null, not an object", "hero"},
	} {
		t.Run(name, func(t *testing.T) {
			srv, _ := testservers.Start(t, &multipartEndpoint{parts: tt.parts, schema: testservers.Introspection(deferSchema)})
			h := connect(t, deferConfig(t, srv.URL), nil)
			res := h.call(t, "graphql_query", map[string]any{"query": deferQuery})
			text := mcptest.Text(res)
			blocks, outside := mcptool.Frames(text)
			if !res.IsError || !strings.Contains(outside, tt.want) || !strings.Contains(outside, "run the operation without @defer and @stream") ||
				len(blocks) != 1 || blocks[0] != tt.quote {
				t.Errorf("got %v %s", res.IsError, text)
			}
		})
	}
}

// TestQueryIncrementalUndeclared: against a schema that does not declare
// @stream, the operation is refused before sending, as graphql-js refuses
// it.
func TestQueryIncrementalUndeclared(t *testing.T) {
	srv, rec := testservers.Start(t, testservers.Starwars())
	h := connect(t, deferConfig(t, srv.URL), nil)
	res := h.call(t, "graphql_query", map[string]any{"query": `{ hero { friends @stream { name } } }`})
	if text := mcptest.Text(res); !res.IsError || !strings.Contains(text, `Unknown directive "@stream"`) || rec.Operations() != 0 {
		t.Errorf("got %v %s, %d operations sent", res.IsError, text, rec.Operations())
	}
}

func TestUsesIncremental(t *testing.T) {
	for query, want := range map[string]bool{
		`{ a }`:                    false,
		`{ a @include(if: true) }`: false,
		`{ ... @defer { a } }`:     true,
		`{ a { b @stream } }`:      true,
		`{ ...F } fragment F on Q { a { ... on A @defer(label: "x") { b } } }`: true,
		`{ a { ...F @defer } } fragment F on A { b }`:                          true,
		`{ a(defer: true) @skip(if: false) { stream } }`:                       false,
	} {
		doc, err := parser.ParseQuery(&ast.Source{Input: query})
		if err != nil {
			t.Fatal(err)
		}
		if got := usesIncremental(doc); got != want {
			t.Errorf("usesIncremental(%s) = %v, want %v", query, got, want)
		}
	}
}

// TestQueryIncrementalRedacts: a startup secret an endpoint echoes in its
// parts, written with JSON escapes, or spread over the steps of a path
// that the note names (its dot joins them), reaches the model in neither
// the text nor the structured content.
func TestQueryIncrementalRedacts(t *testing.T) {
	const secret = "ghp.Secret/Token_123"
	escaped := strings.ReplaceAll(strings.ReplaceAll(secret, "/", `\/`), "S", `\u0053`)
	endpoint := &multipartEndpoint{schema: testservers.Introspection(deferSchema), parts: []string{
		`{"data":{"hero":{"id":"` + escaped + `","friends":[]}},"pending":[{"id":"0","path":["ghp","Secret/Token_123"]},{"id":"1","path":["hero"],"label":"` + escaped + `"}],"hasNext":true}`,
		`{"incremental":[{"id":"1","data":{"name":"` + escaped + `"}}],"completed":[{"id":"1"}],"hasNext":true}`,
	}}
	srv, _ := testservers.Start(t, endpoint)
	cfg := deferConfig(t, srv.URL)
	cfg.Headers = map[string]string{"Authorization": "Bearer " + secret}
	h := connect(t, cfg, nil)
	res := h.call(t, "graphql_query", map[string]any{"query": deferQuery})
	raw, _ := json.Marshal(res.StructuredContent)
	var decoded any
	if err := json.Unmarshal(raw, &decoded); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(decoded)
	text := mcptest.Text(res)
	for _, shown := range []string{string(again), text} {
		if strings.Contains(shown, secret) || strings.Contains(shown, escaped) || !strings.Contains(shown, "[REDACTED]") {
			t.Errorf("secret shows: %s", shown)
		}
	}
	if blocks, _ := mcptool.Frames(text); len(blocks) != 2 || !strings.HasSuffix(blocks[1], "\nstill missing: at [REDACTED]") {
		t.Errorf("note: %s", text)
	}
}

// TestQueryIncrementalTooLarge: a stream that passes --max-response-bytes
// keeps the parts that came whole within it, and the note says where it
// stopped and what to ask instead.
func TestQueryIncrementalTooLarge(t *testing.T) {
	friend := `{"incremental":[{"items":[{"name":"` + strings.Repeat("x", 4000) + `"}],"path":["hero","friends",%d]}],"hasNext":true}`
	parts := []string{`{"data":{"hero":{"id":"1","friends":[]}},"hasNext":true}`}
	for i := range 4 {
		parts = append(parts, fmt.Sprintf(friend, i))
	}
	endpoint := &multipartEndpoint{schema: testservers.Introspection(deferSchema), parts: parts}
	srv, _ := testservers.Start(t, endpoint)
	cfg := deferConfig(t, srv.URL)
	cfg.MaxResponseBytes = 10000
	h := connect(t, cfg, nil)
	res := h.call(t, "graphql_query", map[string]any{"query": deferQuery})
	text := mcptest.Text(res)
	if res.IsError || strings.Count(text, strings.Repeat("x", 4000)) != 2 ||
		!strings.Contains(text, "so this is only what came: the reading stopped at the response size limit of 10000 bytes (--max-response-bytes). A last part was cut off midway and left out. Select fewer fields, or fetch fewer items with a first/limit argument.") {
		t.Errorf("got %v %s", res.IsError, text)
	}
}
