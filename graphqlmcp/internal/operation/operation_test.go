package operation

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// repeat is n copies of format, each given its index.
func repeat(n int, format string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, format, i)
	}
	return b.String()
}

// TestBounds: a document past any bound is refused before validation, with
// the bound named; one at every bound is accepted.
func TestBounds(t *testing.T) {
	nested := func(n int) string {
		return strings.Repeat("{ a ", n) + strings.Repeat("}", n)
	}
	refused := map[string]struct{ limit, query string }{
		// The two documents: 3,000 "x:" aliased fields over 35 KB,
		// and 25,000 copies of one field.
		"3,000 x: aliases":          {"fields per response name", "{ " + repeat(3000, `x: echo(s:"%d") x: a `)[:35_500] + " }"},
		"25,000 copies":             {"fields per response name", "{ " + strings.Repeat("a ", 25_000) + "}"},
		"fields":                    {"fields", "{ " + repeat(MaxFields+1, "f%d ") + "}"},
		"fields through spreads":    {"fields", "{ a { ...F } b { ...F } c { ...F } } fragment F on T { " + repeat(400, "f%d ") + "}"},
		"same name in fragments":    {"fields per response name", "{ " + repeat(MaxSameName/2+1, "...F%d ") + "} " + repeat(MaxSameName/2+1, "fragment F%d on T { x x } ")},
		"same name inline":          {"fields per response name", "{ " + strings.Repeat("... on T { x } ", MaxSameName+1) + "}"},
		"aliases":                   {"aliases", "{ " + repeat(MaxAliases+1, "a%d: f ") + "}"},
		"depth":                     {"depth", nested(MaxDepth + 1)},
		"depth through fragments":   {"depth", "{ " + strings.Repeat("a { ", 60) + "...F" + strings.Repeat(" }", 60) + " } fragment F on T { " + strings.Repeat("b { ", 41) + "c" + strings.Repeat(" }", 41) + " }"},
		"tokens":                    {"tokens", "{ a(x: [" + strings.Repeat("1 ", MaxTokens) + "]) }"},
		"arguments":                 {"arguments", "{ a(" + repeat(MaxArguments+1, "x%d: 1 ") + ") }"},
		"directive arguments":       {"arguments", "{ a @d(" + repeat(MaxArguments+1, "x%d: 1 ") + ") }"},
		"arguments in all":          {"arguments", "{ " + repeat(MaxAllArguments/50+1, "f%d("+repeat(50, "x%d: 1 ")+") ") + "}"},
		"directives":                {"directives", "{ a" + strings.Repeat(" @d", MaxArguments+1) + " }"},
		"a chain of fragments":      {"fragment spreads per selection", "{ " + repeat(250, "a%d: hero { ...F0 } ") + "} " + chain(5000) + "fragment F5000 on T { name }"},
		"spreads through fragments": {"fragment spreads", "{ " + repeat(250, "a%d: hero { ...F0 } ") + "} " + chain(10) + "fragment F10 on T { name }"},
		"spreads in one selection":  {"fragment spreads per selection", "{ a { " + repeat(MaxSelectionSpreads+1, "...F%d ") + "} } " + repeat(MaxSelectionSpreads+1, "fragment F%[1]d on T { f%[1]d } ")},
		"fragments fanning out":     {"fields", "{ ...F0 } " + repeat(30, "fragment F%[1]d on T { x { ...F%[1]d_ } y { ...F%[1]d_ } } ") + "fragment F30_ on T { leaf }"},
	}
	for name, tt := range refused {
		t.Run(name, func(t *testing.T) {
			query := fixFanOut(tt.query)
			_, err := Choose(query, "")
			var bounds *BoundsError
			if !errors.As(err, &bounds) || bounds.Limit != tt.limit {
				t.Fatalf("Choose = %v, want the %s bound", err, tt.limit)
			}
			if !strings.Contains(err.Error(), "("+tt.limit+")") || !strings.Contains(err.Error(), "not checked or sent") {
				t.Errorf("the refusal does not name the bound %q: %v", tt.limit, err)
			}
		})
	}
	accepted := map[string]string{
		"fields":     "{ " + repeat(MaxFields, "f%d ") + "}",
		"same name":  "{ " + strings.Repeat("x ", MaxSameName) + "}",
		"aliases":    "{ " + repeat(MaxAliases, "a%d: f ") + "}",
		"depth":      nested(MaxDepth),
		"arguments":  "{ a(" + repeat(MaxArguments, "x%d: 1 ") + ") }",
		"fragments":  "{ a { ...F } b { ...F } } fragment F on T { " + repeat(499, "f%d ") + "}",
		"a cycle":    "{ ...A } fragment A on T { ...B } fragment B on T { ...A }",
		"undefined":  "{ ...Missing }",
		"long query": `{ a(s: "` + strings.Repeat("x", MaxQueryBytes-20) + `") }`,
	}
	for name, query := range accepted {
		if _, err := Choose(query, ""); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := Choose(`{ a(s: "`+strings.Repeat("x", MaxQueryBytes)+`") }`, ""); err == nil || !strings.Contains(err.Error(), "(query size)") {
		t.Errorf("a query over MaxQueryBytes: %v", err)
	}
}

// chain is n fragments, each spreading the next.
func chain(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "fragment F%d on T { ...F%d } ", i, i+1)
	}
	return b.String()
}

// fixFanOut turns "F7_" into "F8" in the fanning-out document, so that
// each fragment spreads the next twice.
func fixFanOut(query string) string {
	for i := 29; i >= 0; i-- {
		query = strings.ReplaceAll(query, fmt.Sprintf("...F%d_", i), fmt.Sprintf("...F%d", i+1))
	}
	return strings.ReplaceAll(query, "fragment F30_", "fragment F30")
}

// TestTextIsPrinted: what is sent is printed from the parsed document: no
// comment, no other operation, no unused fragment, whatever bytes the query
// held between tokens (the form-decoding smuggle hides in a comment).
func TestTextIsPrinted(t *testing.T) {
	for query, want := range map[string]string{
		"query { a } # &query=mutation{wipe}&": "query {\n\ta\n}\n",
		"{ a }":                                "query {\n\ta\n}\n",
		"\ufeff{ a , b }\t,,":                  "query {\n\ta\n\tb\n}\n",
		"query Q { a(s: \"&query=x\") } fragment U on T { b }":   "query Q {\n\ta(s: \"&query=x\")\n}\n",
		"{ a(s: \"\"\"\n  block # not a comment\n  \"\"\") }":    "query {\n\ta(s: \"block # not a comment\")\n}\n",
		"query($v: Int = 1 # c\n) { a(x: $v) @skip(if: false) }": "query ($v: Int = 1) {\n\ta(x: $v) @skip(if: false)\n}\n",
	} {
		chosen, err := Choose(query, "")
		if err != nil {
			t.Fatalf("Choose(%q): %v", query, err)
		}
		if chosen.Text != want {
			t.Errorf("Choose(%q).Text = %q, want %q", query, chosen.Text, want)
		}
	}
}

// FuzzChoose: whatever the text, Choose never panics; what it sends is
// printed from the parsed document, parses to the operation it judged (it
// prints the same again), holds no comment, and keeps every bound.
func FuzzChoose(f *testing.F) {
	for _, seed := range []string{
		"query { a } # &query=mutation{wipe}&", "query Q($v: [Int!] = [1, 2]) @d { a(s: \"\\u00e9\\\"\") { ...F ... on T { b } } } fragment F on T { c }",
		"{ a(s: \"\"\"x\n  y\"\"\") }", "mutation M { m } query Q { q }", "{ " + strings.Repeat("x ", 200) + "}",
		"{ a(o: {x: 1.5e3, y: null, z: ENUM, w: [\"#\"]}) }",
	} {
		f.Add(seed, "")
	}
	f.Fuzz(func(t *testing.T, query, operationName string) {
		chosen, err := Choose(query, operationName)
		if err != nil {
			return
		}
		again, err := Choose(chosen.Text, chosen.Op.Name)
		if err != nil {
			t.Fatalf("the text sent does not parse again: %v\n%s", err, chosen.Text)
		}
		if again.Text != chosen.Text {
			t.Fatalf("the text sent prints differently once parsed:\n%s\n%s", chosen.Text, again.Text)
		}
		if again.Op.Operation != chosen.Op.Operation {
			t.Fatalf("the text sent is a %s, the operation judged a %s", again.Op.Operation, chosen.Op.Operation)
		}
		doc, err := parser.ParseQuery(&ast.Source{Input: chosen.Text})
		if err != nil {
			t.Fatal(err)
		}
		if doc.Comment != nil || len(doc.Operations) != 1 {
			t.Fatalf("the text sent holds a comment or another operation:\n%s", chosen.Text)
		}
	})
}

// TestFragmentNamesUnique: a document that defines a fragment name twice is
// refused before anything else judges it: the bounds, the validator and the
// endpoint could each take another of the two.
func TestFragmentNamesUnique(t *testing.T) {
	_, err := Choose("{ ...A } fragment A on T { x } fragment A on T { "+repeat(2000, "f%d ")+"}", "")
	if err == nil || !strings.Contains(err.Error(), `more than one fragment named "A"`) {
		t.Errorf("Choose = %v", err)
	}
}

// TestDescriptionsNotSent: descriptions of operations, fragments and
// variable definitions (graphql-js reads them; they change nothing that
// runs) are not sent: gqlparser keeps no block string value or control
// character of theirs as graphql-js reads it, and its formatter prints
// them as block strings, which cannot hold every value, so what was sent
// was another text than the one given (a stand-in rune U+F0007 for a
// U+0007, "a\n  b" for "a\nb").
func TestDescriptionsNotSent(t *testing.T) {
	for _, query := range []string{
		"\"\"\"a\n  b\"\"\" query { f }",
		"\"\"\"\n  x\ay\"\"\" query { f }",
		"query Q { ...F } \"\"\" \\\"\"\" x\"\"\" fragment F on Q { f }",
		"query (\"\"\"d\n  e\"\"\" $a: Int) { f(a: $a) }",
		"query (\"d\\u0007\" $a: Int @k) { f(a: $a) }",
	} {
		chosen, err := Choose(query, "")
		if err != nil {
			t.Fatalf("Choose(%q): %v", query, err)
		}
		if strings.Contains(chosen.Text, `"`) || strings.ContainsFunc(chosen.Text, func(r rune) bool { return r >= standInFirst }) {
			t.Errorf("Choose(%q) sends a description:\n%s", query, chosen.Text)
		}
	}
}

// TestStringValuePositions: a string value is placed where graphql-js
// places it, at its opening quote; gqlparser put a quoted string a column
// past it, and a block string over several lines at its last line, at a
// column counted from there (column -1 below), which validation errors
// then named.
func TestStringValuePositions(t *testing.T) {
	chosen, err := Choose("{ f(a: \"x\", b: \"\"\"y\n  z\"\"\",\r\n c: \"\"\"w\"\"\") }", "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int{"a": {1, 8}, "b": {1, 16}, "c": {3, 5}}
	for _, arg := range chosen.Op.SelectionSet[0].(*ast.Field).Arguments {
		if got := [2]int{arg.Value.Position.Line, arg.Value.Position.Column}; got != want[arg.Name] {
			t.Errorf("argument %s at line %d, column %d; want line %d, column %d", arg.Name, got[0], got[1], want[arg.Name][0], want[arg.Name][1])
		}
	}
}
