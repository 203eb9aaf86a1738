package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/operation"
	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// maxErrorBytes is the most an error may take, whatever the arguments.
const maxErrorBytes = 2_048

// TestErrorsBounded: for every tool, every argument read from its own
// schema (so that one added later is tried too) is given hostile values:
// each string argument, each string in an array, each name and each value
// of a map (headers, variables, nested ones) a 1.1 MB string; the query
// documents as large as its bound allows, with one huge name or value;
// each integer argument numbers no int or float64 holds exactly (2^63,
// 1e400, -1e20, 1.1 MB of digits). Every error quotes a short prefix at
// most and is at most 2 KB; every out-of-range number is refused and
// nothing is sent.
func TestErrorsBounded(t *testing.T) {
	srv, rec := testservers.Start(t, testservers.Starwars())
	h := connect(t, validating(t, srv.URL), nil)
	valid := func(tool string) map[string]any {
		if tool == "graphql_query" {
			return map[string]any{"query": "{ hero { name } }"}
		}
		return map[string]any{}
	}
	list, err := h.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tried := 0
	for _, tool := range list.Tools {
		schema := mcptest.InputSchema(t, tool)
		for _, name := range slices.Sorted(maps.Keys(schema.Properties)) {
			for label, value := range hostileValues(name, schema.Properties[name]) {
				tried++
				before := rec.Count()
				args := mcptest.ArgumentsWith(t, valid(tool.Name), name, value)
				res, err := h.session.CallTool(context.Background(), &mcp.CallToolParams{Name: tool.Name, Arguments: args})
				if err != nil {
					t.Errorf("%s %s %s: protocol error %.300v", tool.Name, name, label, err)
					continue
				}
				text := mcptest.Text(res)
				if res.IsError && len(text) > maxErrorBytes {
					t.Errorf("%s %s %s: the error is %d bytes, over %d: %.300s…", tool.Name, name, label, len(text), maxErrorBytes, text)
				}
				if strings.HasPrefix(label, "number") {
					if !res.IsError || !strings.Contains(text, fmt.Sprintf("%q", name)) && !strings.Contains(text, name+" ") {
						t.Errorf("%s %s %s: want a refusal naming the argument, got %.300s", tool.Name, name, label, text)
					}
					if n := rec.Count() - before; n != 0 {
						t.Errorf("%s %s %s: %d requests sent, want none", tool.Name, name, label, n)
					}
				}
			}
		}
	}
	if tried < 25 {
		t.Errorf("tried %d values; the tools' schemas were not read", tried)
	}
}

// hostileValues are the values to try for the argument name of schema p, as
// raw JSON, by label.
func hostileValues(name string, p *jsonschema.Schema) map[string]json.RawMessage {
	huge := strings.Repeat("x", 1_100_000)
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	switch {
	case name == "query":
		// Within the query's size bound, so that they reach the parser
		// and the rules, each quoting what it refuses.
		long := strings.Repeat("y", operation.MaxQueryBytes-100)
		return map[string]json.RawMessage{
			"1.1 MB string":             json.RawMessage(q(huge)),
			"unknown field, long name":  json.RawMessage(q("{ " + long + " }")),
			"syntax error after a name": json.RawMessage(q("{ hero { " + long + " ( } }")),
			"long string value":         json.RawMessage(q(`{ hero(episode: "` + long + `") { name } }`)),
			"long variable name":        json.RawMessage(q("query Q($" + long + ": Int) { hero { name } }")),
			"long operation name":       json.RawMessage(q("query " + long + " { hero { name } } query B { hero { name } }")),
			"long fragment name":        json.RawMessage(q("{ hero { ..." + long + " } }")),
			"long directive name":       json.RawMessage(q("{ hero @" + long + " { name } }")),
			"long argument name":        json.RawMessage(q("{ hero(" + long + ": 1) { name } }")),
			"long enum value":           json.RawMessage(q("{ hero(episode: " + long + ") { name } }")),
		}
	case p.Type == "string":
		return map[string]json.RawMessage{"1.1 MB string": json.RawMessage(q(huge))}
	case p.Type == "array":
		many := strings.TrimSuffix(repeat(10_000, `"z%0100d",`), ",")
		return map[string]json.RawMessage{
			"1.1 MB item":           json.RawMessage("[" + q(huge) + "]"),
			"10,000 items of 100 B": json.RawMessage("[" + many + "]"),
		}
	case p.Type == "object":
		values := map[string]json.RawMessage{
			"1.1 MB name":  json.RawMessage(`{` + q(huge) + `:"v"}`),
			"1.1 MB value": json.RawMessage(`{"k":` + q(huge) + `}`),
		}
		if p.AdditionalProperties == nil || p.AdditionalProperties.Type != "string" {
			values["1.1 MB value, nested"] = json.RawMessage(`{"k":{"l":[` + q(huge) + `]}}`)
			values["1.1 MB name, nested"] = json.RawMessage(`{"k":{` + q(huge) + `:1}}`)
			values["1.1 MB of digits, nested"] = json.RawMessage(`{"k":` + strings.Repeat("9", 1_100_000) + `}`)
		}
		return values
	case p.Type == "integer" || p.Type == "number":
		return map[string]json.RawMessage{
			"number 2^63":          json.RawMessage("9223372036854775808"),
			"number -2^63-1":       json.RawMessage("-9223372036854775809"),
			"number 2^64":          json.RawMessage("18446744073709551616"),
			"number 1e300":         json.RawMessage("1e300"),
			"number 1e400":         json.RawMessage("1e400"),
			"number -1e20":         json.RawMessage("-1e20"),
			"number 2^53+1":        json.RawMessage("9007199254740993"),
			"number 1.1 MB digits": json.RawMessage(strings.Repeat("9", 1_100_000)),
		}
	}
	return nil
}

// TestProtocolErrorsBounded: a tool, resource or prompt named by 1.1 MB, or
// a tool that does not exist, is refused with an error of at most 2 KB that
// says what is wrong (not a recovered panic).
func TestProtocolErrorsBounded(t *testing.T) {
	srv, _ := testservers.Start(t, testservers.Starwars())
	mcptest.CheckProtocolErrorsBounded(t, connect(t, validating(t, srv.URL), nil).session, "graphql", maxErrorBytes)
}
