package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestLoneSurrogatesRefused: a lone surrogate escape, which stands for no
// character, is refused before anything is sent, with validation on or
// off: in the query text with graphql-js's message (operation.Choose, as
// graphql-js refuses it at parse; review F7), and in variables, where Go
// would send U+FFFD in its place, naming the variable and the path inside
// it (review R5-4). A whole pair is sent as written.
func TestLoneSurrogatesRefused(t *testing.T) {
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"in the query", map[string]any{"query": `{ hero { friendsConnection(after: "\uD800") { totalCount } } }`},
			`line 1, column 36: Syntax Error: Invalid Unicode escape sequence: "\uD800".`},
		{"in a variable", map[string]any{"query": `query($s: String) { hero { friendsConnection(after: $s) { totalCount } } }`, "variables": json.RawMessage(`{"s":"a\udc00b"}`)},
			`variable "$s" at "s": a string holds the escape \udc00, half of a UTF-16 surrogate pair`},
		{"deep in a variable", map[string]any{"query": `query($e: [Episode]) { hero { name } }`, "variables": json.RawMessage(`{"e": ["JEDI", {"a": [1, "\ud83d\ude00", "x\uD800"]}]}`)},
			`variable "$e" at "e[1].a[2]": a string holds the escape \uD800`},
		{"in the query's JSON", map[string]any{"query": json.RawMessage(`"{ hero { friendsConnection(after: \"x\ud800\") { totalCount } } }"`)},
			`query: the text holds the JSON escape \ud800, half of a UTF-16 surrogate pair`},
		{"in the query's JSON, a comment", map[string]any{"query": json.RawMessage(`"{ hero { name } } # \\udc00 \ud800"`)},
			`query: the text holds the JSON escape \ud800`},
		{"in a key", map[string]any{"query": `query($e: [Episode]) { hero { name } }`, "variables": json.RawMessage(`{"e": [{"\udfff": 1}]}`)},
			`variable "$e" at "e[0]": a key holds the escape \udfff`},
	}
	for _, validate := range []bool{true, false} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s, validate=%v", tt.name, validate), func(t *testing.T) {
				srv, rec := testservers.Start(t, starwarsAnswering(t))
				cfg := testConfig(t, srv.URL)
				cfg.Validate = validate
				res := connect(t, cfg, nil).call(t, "graphql_query", tt.args)
				if !res.IsError || !strings.Contains(mcptest.Text(res), tt.want) {
					t.Errorf("validate=%v: %s, want an error holding %s", validate, mcptest.Text(res), tt.want)
				}
				if rec.Count() != 0 {
					t.Errorf("validate=%v: %d requests reached the endpoint, want none", validate, rec.Count())
				}
			})
		}
	}
	// Variables that are not an object are refused (by the arguments'
	// decoder), lone surrogate or not.
	srv, rec := testservers.Start(t, starwarsAnswering(t))
	res := connect(t, testConfig(t, srv.URL), nil).call(t, "graphql_query", map[string]any{
		"query": `{ hero { name } }`, "variables": json.RawMessage(`["\ud800", {"a": "\udc00"}]`)})
	if !res.IsError || rec.Count() != 0 {
		t.Errorf("variables an array: %s; %d requests reached the endpoint, want an error and none", mcptest.Text(res), rec.Count())
	}
	srv, rec = testservers.Start(t, starwarsAnswering(t))
	res = connect(t, testConfig(t, srv.URL), nil).call(t, "graphql_query", map[string]any{
		"query": `query($s: ID) { hero { friendsConnection(after: $s) { totalCount } } }`, "variables": json.RawMessage(`{"s":"\ud83d\ude00"}`)})
	if res.IsError || rec.Operations() != 1 || !strings.Contains(string(rec.Requests()[0].Body), `"s":"😀"`) {
		t.Errorf("a whole pair: %s; sent %d operations", mcptest.Text(res), rec.Operations())
	}
}
