package tools

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpforge/servers/graphqlmcp/internal/schema"
)

// differentialClasses are the classes of case TestDifferential's corpus
// must hold, each over at least one of the schemas vendored here: the
// valid operations, the one-rule mutants of each validation and coercion
// rule, and the valid variants that a too strict check would refuse.
var differentialClasses = []string{
	"valid", "valid/another-operation", "valid/defaulted-variable-in-non-null-position",
	"valid/variable-Int-exponent", "valid/variable-Int-whole-float", "valid/variable-Float-whole-float", "valid/variable-Float-exponent",
	"valid/variable-Int-negative-zero", "valid/extra-variable", "valid/variable-ID-large-integer",
	"valid/non-null-variable-with-default", "valid/nullable-variable-where-place-has-default",
	"variable/null-for-non-null-with-default",
	"valid/variable-Int-bounds", "valid/literal-Int-bounds", "valid/literal-block-string", "valid/introspection",
	"document/impossible-named-fragment", "document/introspection-off-root", "document/introspection-off-query",
	"literal/Int/whole-float", "literal/Int/exponent", "literal/Int/leading-zero", "literal/Int/trailing-dot",
	"literal/Float/leading-dot", "literal/Float/exponent-without-digits", "valid/literal-string-control-character",
	"document/invalid-other-operation", "valid/custom-directive", "document/custom-directive-misplaced",
	"valid/variable-ID-whole-float", "variable/Int/overflow", "variable/Float/overflow", "valid/anonymous-operation", "valid/query-shorthand", "literal/input/__typename", "valid/literal-custom-scalar-object", "valid/variable-custom-scalar-object", "document/duplicate-fragment", "literal/input/list", "variable/input/list", "document/variable-sibling-scalar", "document/variable-item-type-for-list",
	"document/variable-nullable-items", "document/variable-non-null-items", "document/typename-argument", "document/typename-selection", "document/defer", "document/introspection-missing-argument",
	"valid/literal-number-forms", "valid/extra-commas", "valid/byte-order-mark", "valid/carriage-returns",
	"valid/literal-block-string-control-character", "valid/comment-control-character",
	"literal/String/lone-surrogate-escape", "literal/String/unknown-escape",
	"valid/literal-braced-unicode-escape", "valid/literal-surrogate-pair-escape",
	"document/anonymous-beside-another", "document/directive-argument-type", "document/directive-missing-argument",
	"document/directive-unknown-argument", "document/duplicate-argument", "document/duplicate-directive",
	"document/duplicate-operation-name", "document/duplicate-variable", "document/field-on-union",
	"document/fragment-cycle", "document/fragment-on-scalar", "document/impossible-fragment",
	"document/leaf-selection", "document/misplaced-directive", "document/misplaced-directive-on-operation",
	"document/missing-argument", "document/missing-selection", "document/no-such-operation",
	"document/nullable-variable-in-non-null-position", "document/oneOf-nullable-variable",
	"document/overlap-different-arguments", "document/overlap-different-fields", "document/overlap-different-types",
	"document/subscription", "document/undefined-variable", "document/unknown-argument", "document/unknown-directive",
	"document/unknown-directive-on-operation", "document/unknown-field", "document/unknown-fragment",
	"document/unknown-type", "document/unused-fragment", "document/unused-variable", "document/variable-of-output-type",
	"document/variable-of-unknown-type", "document/variable-type-mismatch",
	"literal/Boolean/number", "literal/Boolean/string", "literal/Float/boolean", "literal/Float/string",
	"literal/ID/boolean", "literal/ID/float", "literal/Int/below-32-bits", "literal/Int/beyond-32-bits",
	"literal/Int/boolean", "literal/Int/float", "literal/Int/string", "literal/String/boolean", "literal/String/number",
	"literal/enum/case", "literal/enum/string", "literal/enum/unknown", "literal/input/duplicate-field",
	"literal/input/missing-required", "literal/input/string", "literal/input/unknown-field", "literal/list/extra-nesting",
	"literal/list/for-scalar", "literal/non-null/null", "literal/oneOf/null-member", "literal/oneOf/two", "literal/oneOf/zero",
	"variable/Boolean/number", "variable/Boolean/string", "variable/Float/boolean", "variable/Float/string",
	"variable/ID/boolean", "variable/ID/float", "variable/Int/below-32-bits", "variable/Int/beyond-32-bits",
	"variable/Int/boolean", "variable/Int/float", "variable/Int/string", "variable/String/boolean", "variable/String/number",
	"variable/enum/case", "variable/enum/number", "variable/enum/unknown", "variable/input/__typename",
	"variable/input/missing-required", "variable/input/string", "variable/input/unknown-field",
	"variable/list/extra-nesting", "variable/list/for-scalar", "variable/missing-required", "variable/non-null/null",
	"variable/oneOf/null-member", "variable/oneOf/two", "variable/oneOf/zero",
}

// TestDifferentialCorpus holds the corpus of TestDifferential (which needs
// Node and graphql-js) to what it must be, with no Node: the same on every
// run (fixed seeds, nothing from map order), and holding every class of
// differentialClasses over the schemas vendored here (GitHub's adds more
// cases, not classes).
func TestDifferentialCorpus(t *testing.T) {
	seen := map[string]int{}
	for _, ds := range differentialSchemas("") {
		if ds.name == "github" {
			continue
		}
		s, err := schema.Load(ds.file, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatalf("%s: %v", ds.file, err)
		}
		first, again := diffCorpus(t, ds, s), diffCorpus(t, ds, s)
		if diff := cmp.Diff(first, again); diff != "" {
			t.Errorf("%s: the corpus changed from one generation to the next (-first +again):\n%.2000s", ds.name, diff)
		}
		for _, c := range first {
			seen[c.Class]++
		}
	}
	want := map[string]bool{}
	for _, class := range differentialClasses {
		want[class] = true
		if seen[class] == 0 {
			t.Errorf("no case of class %s in the corpus", class)
		}
	}
	for class := range seen {
		if !want[class] {
			t.Errorf("class %s is not in differentialClasses: add it", class)
		}
	}
}
