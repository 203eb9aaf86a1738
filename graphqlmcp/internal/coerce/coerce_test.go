package coerce

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

// testSDL has every kind of input type: the built-in scalars, an enum, a
// custom scalar, nested input objects with required fields and defaults, a
// @oneOf input and lists.
const testSDL = `directive @tagged(j: JSON) on FIELD
type Query {
  f(s: String, i: Int, fl: Float, b: Boolean, id: ID, e: Color, in: Filter, one: One, list: [Int], nested: [[Int]], any: JSON, colors: [Color!]!): String
}
enum Color { RED GREEN BLUE }
scalar JSON
input Range { from: Int, to: Int = 10, step: Int! }
input Filter { name: String!, range: Range, colors: [Color!], tags: [String] = ["a"], self: Filter }
input One @oneOf { a: Int, b: String }
`

func testSchema(t testing.TB) *ast.Schema {
	t.Helper()
	s, err := gqlparser.LoadSchema(&ast.Source{Name: "test", Input: testSDL})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// variableCase is an operation's variable definitions, the variables given
// (JSON) and graphql-js's messages for them (none: accepted).
type variableCase struct {
	name, defs, vars string
	want             []string
}

// variableCases hold each class of issue 26, with graphql-js 16.15's
// messages; TestVariablesAgainstGraphQLJS proves they are its own.
func variableCases() []variableCase {
	return []variableCase{
		{"number for String", "$s: String", `{"s": 5}`,
			[]string{`Variable "$s" got invalid value 5; String cannot represent a non string value: 5`}},
		{"1.5 for ID", "$id: ID", `{"id": 1.5}`,
			[]string{`Variable "$id" got invalid value 1.5; ID cannot represent value: 1.5`}},
		{"integer for ID", "$id: ID", `{"id": 12345678901234567890}`, nil},
		{"true for ID", "$id: ID", `{"id": true}`,
			[]string{`Variable "$id" got invalid value true; ID cannot represent value: true`}},
		{"string for Int", "$i: Int", `{"i": "5"}`,
			[]string{`Variable "$i" got invalid value "5"; Int cannot represent non-integer value: "5"`}},
		{"string for Float", "$fl: Float", `{"fl": "5"}`,
			[]string{`Variable "$fl" got invalid value "5"; Float cannot represent non numeric value: "5"`}},
		{"Int beyond 32 bits", "$i: Int", `{"i": 2147483648}`,
			[]string{`Variable "$i" got invalid value 2147483648; Int cannot represent non 32-bit signed integer value: 2147483648`}},
		{"Int below 32 bits", "$i: Int", `{"i": -2147483649}`,
			[]string{`Variable "$i" got invalid value -2147483649; Int cannot represent non 32-bit signed integer value: -2147483649`}},
		{"Int at the 32-bit ends", "$a: Int, $b: Int", `{"a": 2147483647, "b": -2147483648}`, nil},
		{"5.0, 1e3 and -0 are integers", "$a: Int, $b: Int, $c: Int", `{"a": 5.0, "b": 1e3, "c": -0}`, nil},
		{"1.5 for Int", "$i: Int", `{"i": 1.5}`,
			[]string{`Variable "$i" got invalid value 1.5; Int cannot represent non-integer value: 1.5`}},
		{"1e400 for Int and Float", "$i: Int, $fl: Float", `{"i": 1e400, "fl": -1e400}`,
			[]string{`Variable "$i" got invalid value Infinity; Int cannot represent non-integer value: Infinity`,
				`Variable "$fl" got invalid value -Infinity; Float cannot represent non numeric value: -Infinity`}},
		{"huge integer for Int", "$i: Int", `{"i": 1e21}`,
			[]string{`Variable "$i" got invalid value 1e+21; Int cannot represent non 32-bit signed integer value: 1e+21`}},
		{"tiny number for Float", "$fl: Float", `{"fl": 1e-400}`, nil},
		{"small fraction for Int", "$i: Int", `{"i": 1e-7}`,
			[]string{`Variable "$i" got invalid value 1e-7; Int cannot represent non-integer value: 1e-7`}},
		{"string for Boolean", "$b: Boolean", `{"b": "true"}`,
			[]string{`Variable "$b" got invalid value "true"; Boolean cannot represent a non boolean value: "true"`}},
		{"enum in another case", "$e: Color", `{"e": "red"}`,
			[]string{`Variable "$e" got invalid value "red"; Value "red" does not exist in "Color" enum. Did you mean the enum value "RED"?`}},
		{"enum as a number", "$e: Color", `{"e": 1}`,
			[]string{`Variable "$e" got invalid value 1; Enum "Color" cannot represent non-string value: 1.`}},
		{"enum exactly", "$e: Color", `{"e": "GREEN"}`, nil},
		{"__typename in an input object", "$in: Filter", `{"in": {"name": "x", "__typename": "Filter"}}`,
			[]string{`Variable "$in" got invalid value { __typename: "Filter", name: "x" }; Field "__typename" is not defined by type "Filter".`}},
		{"unknown field, suggested", "$in: Filter", `{"in": {"name": "x", "rnage": {}}}`,
			[]string{`Variable "$in" got invalid value { name: "x", rnage: {} }; Field "rnage" is not defined by type "Filter". Did you mean "range", "name", or "tags"?`}},
		{"oneOf with no member", "$one: One", `{"one": {}}`,
			[]string{`Variable "$one" got invalid value {}; Exactly one key must be specified for OneOf type "One".`}},
		{"oneOf with two members", "$one: One", `{"one": {"a": 1, "b": "x"}}`,
			[]string{`Variable "$one" got invalid value { a: 1, b: "x" }; Exactly one key must be specified for OneOf type "One".`}},
		{"oneOf with a null member", "$one: One", `{"one": {"b": null}}`,
			[]string{`Variable "$one" got invalid value null at "one.b"; Field "b" must be non-null.`}},
		{"oneOf with two, the first null", "$one: One", `{"one": {"a": null, "b": "x"}}`,
			[]string{`Variable "$one" got invalid value { a: null, b: "x" }; Exactly one key must be specified for OneOf type "One".`,
				`Variable "$one" got invalid value null at "one.a"; Field "a" must be non-null.`}},
		{"oneOf with one", "$one: One", `{"one": {"b": "x"}}`, nil},
		{"one value for a list", "$list: [Int]", `{"list": 5}`, nil},
		{"one bad value for a list", "$list: [Int]", `{"list": "x"}`,
			[]string{`Variable "$list" got invalid value "x"; Int cannot represent non-integer value: "x"`}},
		{"list item at its index", "$list: [Int]", `{"list": [1, 2, "3"]}`,
			[]string{`Variable "$list" got invalid value "3" at "list[2]"; Int cannot represent non-integer value: "3"`}},
		{"list of lists", "$nested: [[Int]]", `{"nested": [[1], 2, [true]]}`,
			[]string{`Variable "$nested" got invalid value true at "nested[2][0]"; Int cannot represent non-integer value: true`}},
		{"null for non-null", "$i: Int!", `{"i": null}`,
			[]string{`Variable "$i" of non-null type "Int!" must not be null.`}},
		{"required variable missing", "$i: Int!, $s: String", `{}`,
			[]string{`Variable "$i" of required type "Int!" was not provided.`}},
		{"required variable with a default", "$i: Int! = 3", `{}`, nil},
		{"required field missing", "$in: Filter", `{"in": {}}`,
			[]string{`Variable "$in" got invalid value {}; Field "name" of required type "String!" was not provided.`}},
		{"a path inside", "$in: Filter", `{"in": {"name": "x", "range": {"from": "abc", "step": 1}}}`,
			[]string{`Variable "$in" got invalid value "abc" at "in.range.from"; Int cannot represent non-integer value: "abc"`}},
		{"a required field deep inside", "$in: Filter", `{"in": {"name": "x", "self": {"name": "y", "range": {}}}}`,
			[]string{`Variable "$in" got invalid value {} at "in.self.range"; Field "step" of required type "Int!" was not provided.`}},
		{"null in a list of non-null", "$in: Filter", `{"in": {"name": "x", "colors": [null, "red"]}}`,
			[]string{`Variable "$in" got invalid value null at "in.colors[0]"; Expected non-nullable type "Color!" not to be null.`,
				`Variable "$in" got invalid value "red" at "in.colors[1]"; Value "red" does not exist in "Color" enum. Did you mean the enum value "RED"?`}},
		{"string for an input object", "$in: Filter", `{"in": "x"}`,
			[]string{`Variable "$in" got invalid value "x"; Expected type "Filter" to be an object.`}},
		{"list for an input object", "$in: Filter", `{"in": [{"name": "x"}]}`,
			[]string{`Variable "$in" got invalid value [{ name: "x" }]; Expected type "Filter" to be an object.`}},
		{"custom scalar takes anything", "$a: JSON, $b: JSON, $c: JSON", `{"a": {"x": [1, "y", null]}, "b": "s", "c": 1.5}`, nil},
		{"every problem, in order", "$i: Int!, $s: String, $in: Filter, $e: Color", `{"s": 1, "in": {"name": 2, "x": 1, "range": {"from": 1.5}}, "e": "BLUE"}`,
			[]string{
				`Variable "$i" of required type "Int!" was not provided.`,
				`Variable "$s" got invalid value 1; String cannot represent a non string value: 1`,
				`Variable "$in" got invalid value 2 at "in.name"; String cannot represent a non string value: 2`,
				`Variable "$in" got invalid value 1.5 at "in.range.from"; Int cannot represent non-integer value: 1.5`,
				`Variable "$in" got invalid value { from: 1.5 } at "in.range"; Field "step" of required type "Int!" was not provided.`,
				`Variable "$in" got invalid value { name: 2, range: { from: 1.5 }, x: 1 }; Field "x" is not defined by type "Filter".`,
			}},
		{"values printed as graphql-js prints them", "$i: Int", `{"i": {"a": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], "b": {"c": {"d": 1}, "e": []}, "2": "x\ny", "10": {}}}`,
			[]string{`Variable "$i" got invalid value { 2: "x\ny", 10: {}, a: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ... 2 more items], b: { c: [Object], e: [] } }; Int cannot represent non-integer value: { 2: "x\ny", 10: {}, a: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ... 2 more items], b: { c: [Object], e: [] } }`}},
		{"numbers printed as JavaScript prints them", "$a: String, $b: String, $c: String, $d: String", `{"a": 0.000001, "b": 123456789012345678901234, "c": 1.25e-8, "d": 100}`,
			[]string{
				`Variable "$a" got invalid value 0.000001; String cannot represent a non string value: 0.000001`,
				`Variable "$b" got invalid value 1.2345678901234569e+23; String cannot represent a non string value: 1.2345678901234569e+23`,
				`Variable "$c" got invalid value 1.25e-8; String cannot represent a non string value: 1.25e-8`,
				`Variable "$d" got invalid value 100; String cannot represent a non string value: 100`,
			}},
		{"variables the operation does not define are ignored", "$i: Int", `{"i": 1, "other": "x"}`, nil},
	}
}

func decodeJSON(t testing.TB, text string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return v
}

func operationOf(t testing.TB, defs string) *ast.OperationDefinition {
	t.Helper()
	doc, err := parser.ParseQuery(&ast.Source{Input: "query Q(" + defs + ") { __typename }"})
	if err != nil {
		t.Fatalf("%s: %v", defs, err)
	}
	return doc.Operations[0]
}

// TestVariables: each class of issue 26 is refused, or accepted, with
// graphql-js's message naming the variable, the path inside it and the
// rule, every problem listed in graphql-js's order.
func TestVariables(t *testing.T) {
	schema := testSchema(t)
	for _, tt := range variableCases() {
		t.Run(tt.name, func(t *testing.T) {
			res := Variables(schema, operationOf(t, tt.defs).VariableDefinitions, decodeJSON(t, tt.vars), 100, nil)
			var got []string
			for _, e := range res.Errors {
				got = append(got, e.Message)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if res.Total != len(tt.want) {
				t.Errorf("total %d", res.Total)
			}
		})
	}
}

// TestVariablesBounded: every problem is counted and only the first limit
// kept, and a huge value is quoted by a prefix and its length.
func TestVariablesBounded(t *testing.T) {
	schema := testSchema(t)
	items := make([]any, 5000)
	for i := range items {
		items[i] = "x"
	}
	res := Variables(schema, operationOf(t, "$list: [Int]").VariableDefinitions, map[string]any{"list": items}, 3, nil)
	if res.Total != 5000 || len(res.Errors) != 3 || res.Errors[2].Message != `Variable "$list" got invalid value "x" at "list[2]"; Int cannot represent non-integer value: "x"` {
		t.Errorf("total %d, %d kept: %v", res.Total, len(res.Errors), res.Errors)
	}
	if !slices.Equal(res.Errors[1].Path, []any{1}) || res.Errors[1].Variable != "list" {
		t.Errorf("error 2 is at %v of %q, want [1] of list", res.Errors[1].Path, res.Errors[1].Variable)
	}

	huge := strings.Repeat("é", 1_000_000)
	res = Variables(schema, operationOf(t, "$i: Int, $e: Color, $in: Filter").VariableDefinitions,
		map[string]any{"i": huge, "e": huge, "in": map[string]any{"name": "x", huge: map[string]any{huge: huge}}}, 10, nil)
	quoted := `"` + strings.Repeat("é", 40) + `…" (1000000 characters)`
	want := []string{
		`Variable "$i" got invalid value ` + quoted + `; Int cannot represent non-integer value: ` + quoted,
		`Variable "$e" got invalid value ` + quoted + `; Value "` + strings.Repeat("é", 40) + `…" does not exist in "Color" enum.`,
		// Quoted by 16 characters each: 40 would make it over 300 bytes.
		`Variable "$in" got invalid value { name: "x", ` + strings.Repeat("é", 16) + `…: { ` + strings.Repeat("é", 16) + `…: "` + strings.Repeat("é", 16) + `…" (1000000 characters) } }; Field "` + strings.Repeat("é", 16) + `…" is not defined by type "Filter".`,
	}
	var got []string
	for _, e := range res.Errors {
		got = append(got, e.Message)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// A big value deep inside, under a long name: the quotes shrink so
	// that the message keeps the place and the rule whole.
	big := map[string]any{}
	for i := range 12 {
		big[fmt.Sprintf("key%d", i)] = map[string]any{"k": strings.Repeat("v", 30)}
	}
	res = Variables(schema, operationOf(t, "$filterForTheIssuesOfTheRepository: Filter").VariableDefinitions,
		map[string]any{"filterForTheIssuesOfTheRepository": map[string]any{"name": "x", "colors": []any{big}, "range": map[string]any{"from": big, "step": 1}}}, 10, nil)
	if len(res.Errors) != 2 {
		t.Fatalf("%d errors: %v", len(res.Errors), res.Errors)
	}
	for i, want := range []string{
		`at "filterForTheIssuesOfTheRepository.range.from"; Int cannot represent non-integer value: { `,
		`at "filterForTheIssuesOfTheRepository.colors[0]"; Enum "Color" cannot represent non-string value: { `,
	} {
		if msg := res.Errors[i].Message; len(msg) > maxMessageBytes || !strings.Contains(msg, want) {
			t.Errorf("a %d-byte message lacks %q: %s", len(msg), want, msg)
		}
	}

	// Many errors deep inside: each costs its walk, not a copy of its
	// path or a message (a copy each would allocate gigabytes).
	bottom := map[string]any{"name": "x", "colors": slices.Repeat([]any{"x"}, 200_000)}
	for range 3000 {
		bottom = map[string]any{"name": "x", "self": bottom}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res = Variables(schema, operationOf(t, "$in: Filter").VariableDefinitions, map[string]any{"in": bottom}, 10, nil)
	runtime.ReadMemStats(&after)
	if res.Total != 200_000 || len(res.Errors) != 10 {
		t.Errorf("%d errors counted, %d kept", res.Total, len(res.Errors))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 100<<20 {
		t.Errorf("coercing allocated %d MB", alloc>>20)
	}

	// An object of 200,000 unknown keys: they are put in order once, and
	// each message quoting the object picks its first members in one pass
	// (sorting them all with a parse of each key per comparison, for each
	// message, took minutes).
	wide := map[string]any{"name": "x"}
	for i := range 200_000 {
		wide[fmt.Sprintf("k%d", i)] = 1
	}
	runtime.ReadMemStats(&before)
	res = Variables(schema, operationOf(t, "$in: Filter").VariableDefinitions, map[string]any{"in": wide}, 10, nil)
	runtime.ReadMemStats(&after)
	if res.Total != 200_000 || len(res.Errors) != 10 || !strings.HasPrefix(res.Errors[0].Message, `Variable "$in" got invalid value { k0: 1, k1: 1, k10: 1, k100: 1, k1000: 1, k10000: 1, k100000: 1,`) ||
		!strings.HasSuffix(res.Errors[0].Message, `; Field "k0" is not defined by type "Filter".`) {
		t.Errorf("%d errors counted, %d kept: %v", res.Total, len(res.Errors), res.Errors)
	}
	if n := after.Mallocs - before.Mallocs; n > 100_000 {
		t.Errorf("judging 200,000 unknown keys took %d allocations", n)
	}

	// A value nested thousands deep in a recursive input type: the path
	// keeps its ends.
	deep := map[string]any{"name": 1}
	for range 3000 {
		deep = map[string]any{"name": "x", "self": deep}
	}
	res = Variables(schema, operationOf(t, "$in: Filter").VariableDefinitions, map[string]any{"in": deep}, 10, nil)
	if len(res.Errors) != 1 || len(res.Errors[0].Message) > 400 || len(res.Errors[0].Path) != 3001 ||
		!strings.Contains(res.Errors[0].Message, `at "in.self.self.`) || !strings.Contains(res.Errors[0].Message, `self.self.name"; String cannot represent a non string value: 1`) {
		t.Errorf("%d errors: %v", len(res.Errors), res.Errors)
	}
}

// literalCase is an operation and graphql-js's ValuesOfCorrectTypeRule
// messages for it (none: valid).
type literalCase struct {
	name, query string
	want        []string
}

func literalCases() []literalCase {
	return []literalCase{
		{"Int literal beyond 32 bits", `{ f(i: 2147483648) }`, []string{`Int cannot represent non 32-bit signed integer value: 2147483648`}},
		{"Int literal below 32 bits", `{ f(i: -2147483649) }`, []string{`Int cannot represent non 32-bit signed integer value: -2147483649`}},
		{"Int literal beyond 64 bits", `{ f(i: 99999999999999999999) }`, []string{`Int cannot represent non 32-bit signed integer value: 99999999999999999999`}},
		{"Int literal at the ends", `{ a: f(i: 2147483647) b: f(i: -2147483648) }`, nil},
		{"Int literal in a list", `{ f(list: [1, 2147483648]) }`, []string{`Int cannot represent non 32-bit signed integer value: 2147483648`}},
		{"Int literal in a variable default", `query ($i: Int = 2147483648) { f(i: $i) }`, []string{`Int cannot represent non 32-bit signed integer value: 2147483648`}},
		{"Int literal in an input object", `{ f(in: {name: "x", range: {step: 4294967296}}) }`, []string{`Int cannot represent non 32-bit signed integer value: 4294967296`}},
		{"Float and ID beyond 64 bits", `{ f(fl: 99999999999999999999, id: 99999999999999999999) }`, nil},
		{"Float literal beyond a double", `{ f(fl: 1e400) }`, nil},
		{"Float for Int", `{ f(i: 1.0) }`, []string{`Int cannot represent non-integer value: 1.0`}},
		{"object for a scalar", `{ f(i: {}) }`, []string{`Int cannot represent non-integer value: {}`}},
		{"object for an enum", `{ f(e: {}) }`, []string{`Enum "Color" cannot represent non-enum value: {}.`}},
		{"object for a custom scalar", `{ f(any: {a: [1, {b: "c"}], d: null}) }`, nil},
		{"list for a scalar", `{ f(s: ["a"]) }`, []string{`String cannot represent a non string value: ["a"]`}},
		{"list for an input object", `{ f(in: [1]) }`, []string{`Expected value of type "Filter", found [1].`}},
		{"list in a list", `{ f(list: [[1]]) }`, []string{`Int cannot represent non-integer value: [1]`}},
		{"scalar for an input object", `{ f(in: 1) }`, []string{`Expected value of type "Filter", found 1.`}},
		{"enum value in another case", `{ f(e: red) }`, []string{`Value "red" does not exist in "Color" enum. Did you mean the enum value "RED"?`}},
		{"string for an enum", `{ f(e: "RED") }`, []string{`Enum "Color" cannot represent non-enum value: "RED". Did you mean the enum value "RED" or "GREEN"?`}},
		{"enum value for a string", `{ f(s: RED) }`, []string{`String cannot represent a non string value: RED`}},
		{"block string for Int", `{ f(i: """x""") }`, []string{`Int cannot represent non-integer value: """x"""`}},
		{"block string for String", `{ f(s: """x""") }`, nil},
		{"number for Boolean in a directive", `{ f @include(if: 1) }`, []string{`Boolean cannot represent a non boolean value: 1`}},
		{"null for non-null", `{ f(in: {name: null}) }`, []string{`Expected value of type "String!", found null.`}},
		{"null in a list of non-null", `{ f(colors: [RED, null]) }`, []string{`Expected value of type "Color!", found null.`}},
		{"required field missing", `{ f(in: {range: {from: 1}}) }`, []string{
			`Field "Filter.name" of required type "String!" was not provided.`,
			`Field "Range.step" of required type "Int!" was not provided.`}},
		{"__typename in an input object", `{ f(in: {name: "x", __typename: "Filter"}) }`, []string{`Field "__typename" is not defined by type "Filter".`}},
		{"unknown field, suggested", `{ f(in: {name: "x", rnage: {step: "x"}}) }`, []string{`Field "rnage" is not defined by type "Filter". Did you mean "range", "name", or "tags"?`}},
		{"oneOf with two members", `{ f(one: {a: 1, b: "x"}) }`, []string{`OneOf Input Object "One" must specify exactly one key.`}},
		{"oneOf with no member", `{ f(one: {}) }`, []string{`OneOf Input Object "One" must specify exactly one key.`}},
		{"oneOf with a null member", `{ f(one: {b: null}) }`, []string{`Field "One.b" must be non-null.`}},
		{"oneOf with one", `{ f(one: {b: "x"}) }`, nil},
		{"a fragment's literal judged once", `query { ...F ...F } fragment F on Query { f(i: 2147483648) }`, []string{`Int cannot represent non 32-bit signed integer value: 2147483648`}},
		{"unknown argument not judged", `{ f(nope: 2147483648) }`, nil},
		{"variable in a list for a custom scalar", `query ($v: Int) { f(any: [$v]) }`, []string{`Variable "$v" of type "Int" used in position expecting type "JSON".`}},
		{"variable in a list in a list for a custom scalar", `query ($v: [Int]) { f(any: [[$v]]) }`, []string{`Variable "$v" of type "[Int]" used in position expecting type "JSON".`}},
		{"variable of the scalar in a list for it", `query ($v: JSON!, $w: JSON) { f(any: [$v, [$w]]) }`, nil},
		{"variable in an object for a custom scalar", `query ($v: Int) { f(any: {a: [$v]}) }`, nil},
		{"variable in a list for a directive's custom scalar", `query ($v: String) { f @tagged(j: [$v]) }`, []string{`Variable "$v" of type "String" used in position expecting type "JSON".`}},
		{"values inside an unknown field not judged", `{ f(in: {name: "x", nope: {a: 2147483648}}) }`, []string{`Field "nope" is not defined by type "Filter". Did you mean "name"?`}},
	}
}

// escapeCases are string literals with \u escapes and graphql-js's
// messages for them (none: valid).
func escapeCases() []literalCase {
	return []literalCase{
		{"lone leading surrogate", `{ f(s: "\uD800") }`, []string{`Syntax Error: Invalid Unicode escape sequence: "\uD800".`}},
		{"lone trailing surrogate", `{ f(s: "a\uDFFF") }`, []string{`Syntax Error: Invalid Unicode escape sequence: "\uDFFF".`}},
		{"leading surrogate before another escape", `{ f(s: "\uD800\u0041") }`, []string{`Syntax Error: Invalid Unicode escape sequence: "\uD800".`}},
		{"two leading surrogates", `{ f(s: "é\uD83D\uD83D") }`, []string{`Syntax Error: Invalid Unicode escape sequence: "\uD83D".`}},
		{"lone surrogate in an unknown argument", `{ f(nope: ["\udc00"]) }`, []string{`Syntax Error: Invalid Unicode escape sequence: "\udc00".`}},
		{"lone surrogate in a fragment spread twice", `{ ...F ...F } fragment F on Query { f(s: "\uD800") }`, []string{`Syntax Error: Invalid Unicode escape sequence: "\uD800".`}},
		{"a pair", `{ f(s: "\uD83D\uDE00 \u{1F600} \\uD800 \uFFFD �") }`, nil},
		{"in a block string, no escape", `{ f(s: """\uD800""") }`, nil},
	}
}

// TestEscapeRule: a string with a \u escape of a lone surrogate is refused,
// as graphql-js's lexer refuses it, wherever it stands; a pair, a braced
// escape, an escaped backslash or U+FFFD itself is not.
func TestEscapeRule(t *testing.T) {
	schema := testSchema(t)
	for _, tt := range escapeCases() {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := parser.ParseQuery(&ast.Source{Input: tt.query})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range validator.ValidateWithRules(schema, doc, rules.NewRules(EscapeRule())) {
				got = append(got, e.Message)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestLiteralRule: LiteralRule refuses the literals graphql-js refuses and
// accepts the ones it accepts, with its messages, where gqlparser's rule
// is looser (an Int beyond 32 bits, {} for a scalar) or stricter (a Float
// or ID beyond 64 bits).
func TestLiteralRule(t *testing.T) {
	schema := testSchema(t)
	for _, tt := range literalCases() {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := parser.ParseQuery(&ast.Source{Input: tt.query})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range validator.ValidateWithRules(schema, doc, rules.NewRules(LiteralRule(nil))) {
				got = append(got, e.Message)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestCoerceAgainstGraphQLJS: graphql-js 16 (pinned; scripts/github-schema
// installs it and sets GRAPHQL_JS_DIR) gives the very messages the tables
// of TestVariables and TestLiteralRule expect: getVariableValues for the
// variables (given as graphqlmcp sends them, members in byte order), and
// validate with ValuesOfCorrectTypeRule (and VariablesInAllowedPositionRule,
// for variables in lists LiteralRule holds to their place's type) for the
// literals.
func TestCoerceAgainstGraphQLJS(t *testing.T) {
	dir := os.Getenv("GRAPHQL_JS_DIR")
	if dir == "" {
		t.Skip("GRAPHQL_JS_DIR is not set; scripts/github-schema runs this test")
	}
	const script = `const { createRequire } = require('node:module');
const g = createRequire(require('node:path').join(process.env.GRAPHQL_JS_DIR, 'package.json'))('graphql');
const input = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
const schema = g.buildSchema(input.sdl);
const out = {
  variables: input.variables.map(({ query, variables }) => {
    const op = g.parse(query).definitions[0];
    const res = g.getVariableValues(schema, op.variableDefinitions, JSON.parse(variables));
    return (res.errors ?? []).map((e) => e.message);
  }),
  literals: input.literals.map((query) =>
    g.validate(schema, g.parse(query), [g.ValuesOfCorrectTypeRule, g.VariablesInAllowedPositionRule]).map((e) => e.message)),
  escapes: input.escapes.map((query) => {
    try {
      g.parse(query);
      return [];
    } catch (e) {
      return [e.message];
    }
  }),
};
process.stdout.write(JSON.stringify(out));`
	type in struct {
		SDL       string `json:"sdl"`
		Variables []struct {
			Query     string `json:"query"`
			Variables string `json:"variables"`
		} `json:"variables"`
		Literals []string `json:"literals"`
		Escapes  []string `json:"escapes"`
	}
	input := in{SDL: testSDL}
	for _, tt := range variableCases() {
		// The members in the order graphqlmcp sends them.
		sent, err := json.Marshal(decodeJSON(t, tt.vars))
		if err != nil {
			t.Fatal(err)
		}
		input.Variables = append(input.Variables, struct {
			Query     string `json:"query"`
			Variables string `json:"variables"`
		}{"query Q(" + tt.defs + ") { __typename }", string(sent)})
	}
	cases := append(variableCases(), generatedCases(3000)...)
	for _, tt := range cases[len(variableCases()):] {
		sent, err := json.Marshal(decodeJSON(t, tt.vars))
		if err != nil {
			t.Fatal(err)
		}
		input.Variables = append(input.Variables, struct {
			Query     string `json:"query"`
			Variables string `json:"variables"`
		}{"query Q(" + tt.defs + ") { __typename }", string(sent)})
	}
	literals := append(literalCases(), generatedLiterals(3000)...)
	for _, tt := range literals {
		input.Literals = append(input.Literals, tt.query)
	}
	for _, tt := range escapeCases() {
		input.Escapes = append(input.Escapes, tt.query)
	}
	body, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "-e", script)
	cmd.Env = append(os.Environ(), "GRAPHQL_JS_DIR="+filepath.Clean(dir))
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var out struct{ Variables, Literals, Escapes [][]string }
	schema := testSchema(t)
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatal(err)
	}
	for i, tt := range cases {
		want := tt.want
		if i >= len(variableCases()) {
			want = nil
			for _, e := range Variables(schema, operationOf(t, tt.defs).VariableDefinitions, decodeJSON(t, tt.vars), 1000, nil).Errors {
				want = append(want, e.Message)
			}
		}
		if diff := cmp.Diff(want, out.Variables[i], cmpopts.EquateEmpty(), cmp.Comparer(cutMatches)); diff != "" {
			t.Errorf("variables %q: %s %s (-ours +graphql-js):\n%s", tt.name, tt.defs, tt.vars, diff)
		}
	}
	for i, tt := range escapeCases() {
		if diff := cmp.Diff(tt.want, out.Escapes[i], cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("escape %q (-ours +graphql-js):\n%s", tt.name, diff)
		}
	}
	for i, tt := range literals {
		want := tt.want
		if i >= len(literalCases()) {
			doc, err := parser.ParseQuery(&ast.Source{Input: tt.query})
			if err != nil {
				t.Fatalf("%s: %v", tt.query, err)
			}
			want = nil
			for _, e := range validator.ValidateWithRules(schema, doc, rules.NewRules(LiteralRule(nil))) {
				want = append(want, e.Message)
			}
		}
		if diff := cmp.Diff(want, out.Literals[i], cmpopts.EquateEmpty(), cmp.Comparer(cutMatches)); diff != "" {
			t.Errorf("literal %q: %s (-ours +graphql-js):\n%s", tt.name, tt.query, diff)
		}
	}
}

// generatedCases are n variables of the types of testSDL, each given a value
// of the right shape or not (numbers spelled as JSON may spell them, enum
// names in other cases, unknown keys, nulls, lists where none is expected,
// and the other way round), from a fixed seed.
func generatedCases(n int) []variableCase {
	types := []string{"String", "Int", "Float", "Boolean", "ID", "Color", "JSON", "Filter", "One", "Range",
		"[Int]", "[Int!]", "[[Int]]", "[Color!]!", "Filter!", "[Filter]", "One!", "Int!", "[One]", "[Range!]"}
	r := rand.New(rand.NewPCG(26, 1))
	cases := make([]variableCase, n)
	for i := range cases {
		var defs []string
		vars := map[string]any{}
		for j := range 1 + r.IntN(3) {
			name := fmt.Sprintf("v%d", j)
			t := types[r.IntN(len(types))]
			defs = append(defs, "$"+name+": "+t)
			if r.IntN(10) > 0 {
				vars[name] = generate(r, t, 0)
			}
		}
		text, err := json.Marshal(vars)
		if err != nil {
			panic(err)
		}
		cases[i] = variableCase{name: fmt.Sprintf("generated %d", i), defs: strings.Join(defs, ", "), vars: string(text)}
	}
	return cases
}

// generate is a value for type t, right in shape three times in four.
func generate(r *rand.Rand, t string, depth int) any {
	numbers := []string{"5", "5.0", "1.5", "1e3", "-0", "2147483647", "2147483648", "-2147483649", "1e400", "0.1", "12345678901234567890", "1e21", "1e-7"}
	if depth > 4 || r.IntN(4) == 0 {
		switch r.IntN(7) {
		case 0:
			return json.Number(numbers[r.IntN(len(numbers))])
		case 1:
			return []string{"RED", "red", "x", "5", "", "GREEN", "Blue"}[r.IntN(7)]
		case 2:
			return r.IntN(2) == 0
		case 3:
			return nil
		case 4:
			return []any{}
		case 5:
			return map[string]any{}
		default:
			items := make([]any, r.IntN(13))
			for i := range items {
				items[i] = generate(r, "Int", depth+1)
			}
			return items
		}
	}
	if inner, ok := strings.CutSuffix(t, "!"); ok {
		return generate(r, inner, depth)
	}
	if strings.HasPrefix(t, "[") {
		if r.IntN(4) == 0 {
			return generate(r, t[1:len(t)-1], depth+1)
		}
		items := make([]any, r.IntN(4))
		for i := range items {
			items[i] = generate(r, t[1:len(t)-1], depth+1)
		}
		return items
	}
	fields := map[string][]string{
		"Filter": {"name:String!", "range:Range", "colors:[Color!]", "tags:[String]", "self:Filter"},
		"Range":  {"from:Int", "to:Int", "step:Int!"},
		"One":    {"a:Int", "b:String"},
	}
	switch t {
	case "String":
		return []string{"s", "RED", "é\n\"x\""}[r.IntN(3)]
	case "Int", "Float":
		return json.Number(numbers[r.IntN(len(numbers))])
	case "Boolean":
		return r.IntN(2) == 0
	case "ID":
		if r.IntN(2) == 0 {
			return "id"
		}
		return json.Number(numbers[r.IntN(len(numbers))])
	case "Color":
		return []string{"RED", "GREEN", "BLUE", "red", "Green"}[r.IntN(5)]
	case "JSON":
		return map[string]any{"any": []any{json.Number("1"), "x", nil}}
	}
	obj := map[string]any{}
	for _, field := range fields[t] {
		name, ft, _ := strings.Cut(field, ":")
		if r.IntN(3) > 0 {
			obj[name] = generate(r, ft, depth+1)
		}
	}
	switch r.IntN(8) {
	case 0:
		obj["__typename"] = t
	case 1:
		obj["nmae"] = "x"
	case 2:
		obj["10"], obj["2"] = json.Number("1"), "two"
	}
	return obj
}

// cutMatches reports whether two messages are equal but where ours cut a
// long value (maxInspect) with "…", which stands for what graphql-js wrote
// there in full.
func cutMatches(a, b string) bool {
	if !strings.Contains(a+b, "…") {
		return a == b
	}
	ours, theirs := a, b
	if strings.Contains(b, "…") {
		ours, theirs = b, a
	}
	parts := strings.Split(ours, "…")
	if !strings.HasPrefix(theirs, parts[0]) || !strings.HasSuffix(theirs, parts[len(parts)-1]) {
		return false
	}
	rest := theirs[len(parts[0]) : len(theirs)-len(parts[len(parts)-1])]
	for _, part := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, part)
		if i < 0 {
			return false
		}
		rest = rest[i+len(part):]
	}
	return true
}

// generatedLiterals are n operations passing literals of every argument of
// testSDL's f, and a variable default, each of the right shape or not,
// from a fixed seed.
func generatedLiterals(n int) []literalCase {
	args := map[string]string{"s": "String", "i": "Int", "fl": "Float", "b": "Boolean", "id": "ID", "e": "Color", "in": "Filter",
		"one": "One", "list": "[Int]", "nested": "[[Int]]", "any": "JSON", "colors": "[Color!]!"}
	names := slices.Sorted(maps.Keys(args))
	r := rand.New(rand.NewPCG(26, 2))
	cases := make([]literalCase, n)
	for i := range cases {
		name := names[r.IntN(len(names))]
		query := fmt.Sprintf("{ f(%s: %s) }", name, literal(r, args[name], 0))
		if r.IntN(4) == 0 {
			query = fmt.Sprintf("query ($v: %s = %s) { f(%s: $v) }", args[name], literal(r, args[name], 0), name)
		}
		cases[i] = literalCase{name: fmt.Sprintf("generated %d", i), query: query}
	}
	return cases
}

// literal is a GraphQL literal for type t, right in shape three times in four.
func literal(r *rand.Rand, t string, depth int) string {
	junk := []string{"5", "5.0", "1.5", "1e3", "-0", "2147483647", "2147483648", "-2147483649", "99999999999999999999", "1e400",
		`"s"`, `"""block"""`, `"RED"`, "RED", "red", "true", "null", "[]", "{}", `[1, "x"]`, "{a: 1}", `{name: "x"}`}
	if depth > 4 || r.IntN(4) == 0 {
		return junk[r.IntN(len(junk))]
	}
	if inner, ok := strings.CutSuffix(t, "!"); ok {
		return literal(r, inner, depth)
	}
	if strings.HasPrefix(t, "[") {
		if r.IntN(4) == 0 {
			return literal(r, t[1:len(t)-1], depth+1)
		}
		items := make([]string, r.IntN(4))
		for i := range items {
			items[i] = literal(r, t[1:len(t)-1], depth+1)
		}
		return "[" + strings.Join(items, ", ") + "]"
	}
	fields := map[string][]string{
		"Filter": {"name:String!", "range:Range", "colors:[Color!]", "tags:[String]", "self:Filter"},
		"Range":  {"from:Int", "to:Int", "step:Int!"},
		"One":    {"a:Int", "b:String"},
	}
	switch t {
	case "String", "ID":
		return []string{`"s"`, `"""b"""`, "7"}[r.IntN(3)]
	case "Int", "Float":
		return junk[r.IntN(10)]
	case "Boolean":
		return "false"
	case "Color":
		return []string{"RED", "GREEN", "Blue"}[r.IntN(3)]
	case "JSON":
		return `{any: [1, "x", null, RED]}`
	}
	var members []string
	for _, field := range fields[t] {
		name, ft, _ := strings.Cut(field, ":")
		if r.IntN(3) > 0 {
			members = append(members, name+": "+literal(r, ft, depth+1))
		}
	}
	switch r.IntN(6) {
	case 0:
		members = append(members, "__typename: "+literal(r, "String", depth+1))
	case 1:
		members = append(members, "nmae: 1")
	}
	return "{" + strings.Join(members, ", ") + "}"
}

// TestLiteralRulePlaces: an error is placed where graphql-js places it, at
// the value's first character: a string at its opening quote (gqlparser
// says one column later) and a block string over several lines at its
// first line (gqlparser says its last, at a negative column).
func TestLiteralRulePlaces(t *testing.T) {
	schema := testSchema(t)
	for _, tt := range []struct {
		query string
		want  string
	}{
		{`{ f(i: "x") }`, "1:8"},
		{`{ f(s: 5) }`, "1:8"},
		{"{ f(i: \"\"\"a\n  b\"\"\") }", "1:8"},
		{"{\r\n  f(i: \"\"\"\n    a\n    b\n  \"\"\")\n}", "2:8"},
		{"{ f(i: 1)\n  g: f(in: {name: \"é\", range: {step: \"x\"}}) }", "2:38"},
		{`{ f(in: {name: 1}) }`, "1:16"},
		{`{ f(s: null, colors: null) }`, "1:22"},
	} {
		doc, err := parser.ParseQuery(&ast.Source{Input: tt.query})
		if err != nil {
			t.Fatal(err)
		}
		errs := validator.ValidateWithRules(schema, doc, rules.NewRules(LiteralRule(nil)))
		if len(errs) != 1 || len(errs[0].Locations) != 1 || fmt.Sprintf("%d:%d", errs[0].Locations[0].Line, errs[0].Locations[0].Column) != tt.want {
			t.Errorf("%q: %v, want one error at %s", tt.query, errs, tt.want)
		}
	}
}

// TestDefaultsNamingTheirOwnType: an input field whose default names its
// own type (input A { a: A = {} }, which gqlparser loads) is judged
// without expanding the default, which would never end.
func TestDefaultsNamingTheirOwnType(t *testing.T) {
	schema, err := gqlparser.LoadSchema(&ast.Source{Input: `type Query { f(a: A, o: O): String }
input A { a: A = {}, n: Int }
input O @oneOf { x: Int = null, y: Int }`})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		defs, vars string
		want       []string
	}{
		{"$a: A", `{"a": {"n": 1}}`, nil},
		{"$a: A = {n: 2}", `{}`, nil},
		{"$a: A", `{"a": {"a": {"n": "x"}}}`, []string{`Variable "$a" got invalid value "x" at "a.a.n"; Int cannot represent non-integer value: "x"`}},
		// A default of null is a key coerced to null, which @oneOf refuses.
		{"$o: O", `{"o": {}}`, []string{`Variable "$o" got invalid value null at "o.x"; Field "x" must be non-null.`}},
		{"$o: O", `{"o": {"y": 1}}`, []string{
			`Variable "$o" got invalid value { y: 1 }; Exactly one key must be specified for OneOf type "O".`,
			`Variable "$o" got invalid value null at "o.x"; Field "x" must be non-null.`}},
	} {
		res := Variables(schema, operationOf(t, tt.defs).VariableDefinitions, decodeJSON(t, tt.vars), 10, nil)
		var got []string
		for _, e := range res.Errors {
			got = append(got, e.Message)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tt.defs, tt.vars, diff)
		}
	}
}
