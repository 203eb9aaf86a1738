package coerce

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

// FuzzCoerce: any operation over testSDL and any JSON variables are judged
// without a panic; Variables keeps at most its limit of errors and counts
// every one, and every message
// of either check is bounded whatever the size of what it quotes.
func FuzzCoerce(f *testing.F) {
	for _, c := range variableCases() {
		f.Add("query Q("+c.defs+") { f(i: 1) }", c.vars)
	}
	for _, c := range literalCases() {
		f.Add(c.query, `{}`)
	}
	f.Add(`query($in: Filter = {name: "x", self: {name: 1}}) { f(in: $in) }`, `{"in": {"self": {"self": {"name": [[[[1]]]]}}}}`)
	for _, c := range escapeCases() {
		f.Add(c.query, `{}`)
	}
	schema := testSchema(f)
	f.Fuzz(func(t *testing.T, query, variables string) {
		doc, err := parser.ParseQuery(&ast.Source{Input: query})
		if err != nil || len(doc.Operations) == 0 {
			return
		}
		for _, e := range validator.ValidateWithRules(schema, doc, rules.NewRules(LiteralRule(nil), EscapeRule())) {
			if len(e.Message) > 2000 {
				t.Errorf("a %d-byte literal message: %.300s", len(e.Message), e.Message)
			}
		}
		dec := json.NewDecoder(strings.NewReader(variables))
		dec.UseNumber()
		var inputs map[string]any
		if dec.Decode(&inputs) != nil {
			return
		}
		const limit = 3
		res := Variables(schema, doc.Operations[0].VariableDefinitions, inputs, limit, nil)
		if len(res.Errors) > limit || res.Total < len(res.Errors) {
			t.Fatalf("%d errors kept, %d counted", len(res.Errors), res.Total)
		}
		for _, e := range res.Errors {
			if len(e.Message) > 2000 || !strings.HasPrefix(e.Message, `Variable "$`+e.Variable+`" `) {
				t.Errorf("a %d-byte message: %.300s", len(e.Message), e.Message)
			}
		}
	})
}
