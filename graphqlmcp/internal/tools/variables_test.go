package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestVariablesGivenAsString: variables sent as a string holding a JSON
// object, as models often send them, run as that object, and the result
// says so.
func TestVariablesGivenAsString(t *testing.T) {
	srv, rec := testservers.Start(t, testservers.Starwars())
	h := connect(t, validating(t, srv.URL), nil)
	res := h.call(t, "graphql_query", map[string]any{
		"query":     `query Hero($ep: Episode) { hero(episode: $ep) { name } }`,
		"variables": ` {"ep": "EMPIRE"} `,
	})
	if res.IsError || !strings.Contains(mcptest.Text(res), "Luke Skywalker") {
		t.Fatalf("isError=%v: %s", res.IsError, mcptest.Text(res))
	}
	if mcptest.LastText(res) != stringVariablesNote {
		t.Errorf("last block = %q, want the note", mcptest.LastText(res))
	}
	var body struct{ Variables map[string]any }
	if err := json.Unmarshal(rec.Requests()[rec.Count()-1].Body, &body); err != nil || body.Variables["ep"] != "EMPIRE" {
		t.Errorf("sent %s (%v)", rec.Requests()[rec.Count()-1].Body, err)
	}
	// Given as an object, no note.
	res = h.call(t, "graphql_query", map[string]any{"query": `query Hero($ep: Episode) { hero(episode: $ep) { name } }`, "variables": map[string]any{"ep": "EMPIRE"}})
	if strings.Contains(mcptest.Text(res), stringVariablesNote) {
		t.Errorf("note given for an object: %s", mcptest.Text(res))
	}
}

// TestVariablesRefusedUnlessObject: anything but an object, or a string
// holding one, is refused with the argument, the rule and the fix, and
// nothing is sent; the string's object is held to the rules an object is
// (each member once, no lone surrogate escape).
func TestVariablesRefusedUnlessObject(t *testing.T) {
	tests := []struct {
		name      string
		variables any
		want      []string
	}{
		{"a number", 5, []string{`argument "variables" must be a JSON object, not a number`, `such as {"id": "1000"}`, "leave variables out"}},
		{"a boolean", true, []string{`argument "variables" must be a JSON object, not a boolean`}},
		{"an array", []any{1}, []string{`argument "variables" must be a JSON object, not an array`}},
		{"a string that is not JSON", `{ep: EMPIRE}`, []string{`argument "variables" is a string whose text is not JSON (at byte 2 of its text)`, "given as an object rather than a string"}},
		{"a string holding an array", `[{"ep": "EMPIRE"}]`, []string{`argument "variables" is a string holding an array; it must be a JSON object`}},
		{"a string holding null", `null`, []string{`argument "variables" is a string holding null`}},
		{"a string holding a string", `"{}"`, []string{`argument "variables" is a string holding a string`}},
		{"an empty string", ``, []string{`argument "variables" is an empty string`, "left out when the operation has none"}},
		{"a string with more after the object", `{"ep": "EMPIRE"} {}`, []string{`is a string whose text is not JSON`}},
		{"a string giving a member twice", `{"ep": "EMPIRE", "ep": "JEDI"}`, []string{`gives the member "ep" twice; give each member once`}},
		{"a string holding a lone surrogate escape", `{"ep": "\ud800"}`, []string{`variable "$ep" at "ep": a string holds the escape \ud800`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, rec := testservers.Start(t, testservers.Starwars())
			res := connect(t, validating(t, srv.URL), nil).call(t, "graphql_query", map[string]any{
				"query": `query Hero($ep: Episode) { hero(episode: $ep) { name } }`, "variables": tt.variables,
			})
			if !res.IsError {
				t.Fatalf("accepted: %s", mcptest.Text(res))
			}
			for _, want := range tt.want {
				if !strings.Contains(mcptest.Text(res), want) {
					t.Errorf("error %q lacks %q", mcptest.Text(res), want)
				}
			}
			if n := rec.Count(); n != 0 {
				t.Errorf("%d requests sent, want none", n)
			}
		})
	}
}
