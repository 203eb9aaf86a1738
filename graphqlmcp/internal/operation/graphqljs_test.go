package operation

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sameAsGraphQLJS are documents of one operation and the fragments it uses,
// with what printing again could change: escapes, block strings, unicode,
// numbers, comments, commas, directives, variables and their defaults.
var sameAsGraphQLJS = []string{
	"query { a } # &query=mutation{wipe}&",
	`query Q($v: [Int!]! = [1, 2], $o: In = {x: 1.5e3, y: null}) @d(a: 1) { a(s: "\u00e9\"\\/\b\f\n\r\t", v: $v) @include(if: true) { ...F ... on T @skip(if: false) { b } } } fragment F on T { c(e: ENUM, l: [[1], []], f: -0.0) }`,
	"{ a(s: \"\"\"\n    indented\n      more # not a comment\n    \\\"\"\" quote\n  \"\"\") }",
	"{ a(s: \"\U0001F680 é € \\u00e9 \\uD83D\\uDE80\") , b , }",
	"mutation M($id: ID!) { m(id: $id) { id } }",
	"subscription { s }",
	"{ a: b(x: 1) c: d { e: f } }",
	"query Q { ...A } fragment A on Q { ...B x } fragment B on Q { y }",
	"{ a(s: \"\\u0000\\u001f\\u007f\\u0080\\u009f\\u00a0\") }",
	// Control characters as they are, in a string, a block string and a
	// comment (operation/control.go).
	"{ a(s: \"x\ay\x01\", b: \"\"\"\n  \a\n\"\"\") # \x02\n}",
	// Private-use characters, written and escaped, beside a control
	// character (stand-ins are runes the query neither writes nor escapes).
	"{ a(s: \"\\u{F0007}\\uDB80\\uDC01\U000F0002\a\", b: \"\"\"\U000F0003\x01\"\"\") }",
	// Block strings: the common indent is taken from the lines after the
	// first; blank lines around go; \""" is a quote run (operation/lex.go).
	"{ a(s: \"\"\"a\n  b\"\"\", t: \"\"\"  x\r\n    y\r\n  z\n\n \"\"\", u: \"\"\"\n\t\n  p \\\"\"\"\n   q\"\"\") }",
	"{ a(l: [\"\"\"x\"\"\" \"y\"]) }",
	// Directives of variable definitions are sent.
	"query Q($a: Int = 1 @d(n: 2, s: \"\"\"x\n y\"\"\") @e, $b: [In!] @f(o: {k: [1]})) { a(a: $a, b: $b) }",
	// Descriptions of operations, fragments and variable definitions
	// (block strings, control characters, a quote run) are not sent.
	"\"\"\"a\n  b\"\"\" query Q(\"\"\"\n  x\ay\n   z\"\"\" $a: Int, \"q\\u0007\" $b: Int @d) { ...F a(a: $a, b: $b) } \"\"\" \\\"\"\" x\"\"\" fragment F on Q { f }",
}

// TestTextAgainstGraphQLJS: what is sent means what was judged, by
// graphql-js, the reference implementation: its print of the sent text
// equals its print of the query as given (block strings printed as quoted
// ones: the formatter sends their value quoted). scripts/github-schema sets
// GRAPHQL_JS_DIR (graphql-js, pinned) and puts Node on PATH.
func TestTextAgainstGraphQLJS(t *testing.T) {
	dir := os.Getenv("GRAPHQL_JS_DIR")
	if dir == "" {
		t.Skip("GRAPHQL_JS_DIR is not set; scripts/github-schema runs this test")
	}
	type pair struct {
		Given string `json:"given"`
		Sent  string `json:"sent"`
	}
	var pairs []pair
	for _, query := range sameAsGraphQLJS {
		chosen, err := Choose(query, "")
		if err != nil {
			t.Fatalf("Choose(%q): %v", query, err)
		}
		pairs = append(pairs, pair{query, chosen.Text})
	}
	input, err := json.Marshal(pairs)
	if err != nil {
		t.Fatal(err)
	}
	const script = `
const { parse, print, visit } = await import(process.env.GRAPHQL_JS);
// A block string and a quoted one of the same value are the same value;
// descriptions of executable definitions are not sent (they do not change
// what runs).
const undescribed = (node) => ({ ...node, description: undefined });
const canonical = (text) => print(visit(parse(text), {
  StringValue: (node) => ({ ...node, block: false }),
  OperationDefinition: undescribed, FragmentDefinition: undescribed, VariableDefinition: undescribed,
}));
let input = "";
for await (const chunk of process.stdin) input += chunk;
const out = JSON.parse(input).map(({ given, sent }) => {
  try { return { given: canonical(given), sent: canonical(sent) }; }
  catch (e) { return { error: String(e) }; }
});
process.stdout.write(JSON.stringify(out));
`
	cmd := exec.Command("node", "--input-type=module", "-e", script)
	cmd.Env = append(os.Environ(), "GRAPHQL_JS="+filepath.Join(dir, "node_modules", "graphql", "index.mjs"))
	cmd.Stdin = bytes.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var printed []struct{ Given, Sent, Error string }
	if err := json.Unmarshal(out, &printed); err != nil {
		t.Fatal(err)
	}
	for i, p := range printed {
		switch {
		case p.Error != "":
			t.Errorf("graphql-js cannot parse what is sent for %q: %s\n%s", pairs[i].Given, p.Error, pairs[i].Sent)
		case p.Given != p.Sent:
			t.Errorf("graphql-js reads the sent text otherwise than the query given:\ngiven %q\nsent  %q", p.Given, p.Sent)
		}
	}
	t.Logf("%d documents: graphql-js reads each sent text as the query given", len(printed))
}

// TestRefusedAsGraphQLJS: a query graphql-js refuses at parse, and gqlparser
// reads otherwise, is refused with graphql-js's message at its line and
// column (refusedAsGraphQLJS).
func TestRefusedAsGraphQLJS(t *testing.T) {
	dir := os.Getenv("GRAPHQL_JS_DIR")
	if dir == "" {
		t.Skip("GRAPHQL_JS_DIR is not set; scripts/github-schema runs this test")
	}
	var names, queries []string
	for name, tt := range refusedAsGraphQLJS {
		names = append(names, name)
		queries = append(queries, tt.query)
	}
	input, err := json.Marshal(queries)
	if err != nil {
		t.Fatal(err)
	}
	const script = `
const { parse } = await import(process.env.GRAPHQL_JS);
let input = "";
for await (const chunk of process.stdin) input += chunk;
const out = JSON.parse(input).map((query) => {
  try { parse(query); return ""; }
  catch (e) { const [loc] = e.locations; return "line " + loc.line + ", column " + loc.column + ": " + e.message; }
});
process.stdout.write(JSON.stringify(out));
`
	cmd := exec.Command("node", "--input-type=module", "-e", script)
	cmd.Env = append(os.Environ(), "GRAPHQL_JS="+filepath.Join(dir, "node_modules", "graphql", "index.mjs"))
	cmd.Stdin = bytes.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var refusals []string
	if err := json.Unmarshal(out, &refusals); err != nil {
		t.Fatal(err)
	}
	for i, refusal := range refusals {
		tt := refusedAsGraphQLJS[names[i]]
		_, err := Choose(tt.query, "")
		switch {
		case refusal == "":
			t.Errorf("%s: graphql-js accepts %q", names[i], tt.query)
		case err == nil:
			t.Errorf("%s: Choose(%q) accepts it; graphql-js says %s", names[i], tt.query, refusal)
		case !tt.ours && !strings.Contains(err.Error(), refusal):
			t.Errorf("%s: Choose(%q) = %v\ngraphql-js says %s", names[i], tt.query, err, refusal)
		case tt.ours && !strings.Contains(err.Error(), refusal[:strings.Index(refusal, ": ")]):
			t.Errorf("%s: Choose(%q) = %v, not at graphql-js's place: %s", names[i], tt.query, err, refusal)
		}
	}
	t.Logf("%d documents: each refused as graphql-js refuses it", len(refusals))
}
