package operation

import (
	"strings"
	"testing"
)

// TestReadAsGraphQLJS: where gqlparser reads a query otherwise than
// graphql-js (the reference), Choose sends what graphql-js reads or refuses
// it with graphql-js's message and position (review R5-7, R5-8, R5-11,
// R5-16, F7). The messages are graphql-js 16's, checked against it by
// TestTextAgainstGraphQLJS and TestRefusedAsGraphQLJS.
func TestReadAsGraphQLJS(t *testing.T) {
	sent := map[string]struct{ query, want string }{
		"block string with text on its first line": {"{ f(s: \"\"\"a\n  b\"\"\") }", `f(s: "a\nb")`},
		"block string indented after the first":    {"{ f(s: \"\"\"\n    a\n      b\n  \"\"\") }", `f(s: "a\n  b")`},
		"block string indented first line":         {"{ f(s: \"\"\"  a\n  b\"\"\") }", `f(s: "  a\nb")`},
		"block string blank lines and CRLF":        {"{ f(s: \"\"\"  \r\n\t\r\n  x\r\n    y\r\n \"\"\") }", `f(s: "x\n  y")`},
		"block string escaped quotes":              {"{ f(s: \"\"\"x\n  \\\"\"\" y\"\"\") }", `f(s: "x\n\"\"\" y")`},
		"block string only blank":                  {"{ f(s: \"\"\"  \n  \"\"\") }", `f(s: "")`},
		"variable directive kept":                  {"query($w: Int = 2 @d(n: 1, l: [\"x\"]) @e) { f(i: $w) }", `query ($w: Int = 2 @d(n: 1, l: ["x"]) @e) {`},
		"variable directives of two definitions":   {"query Q($v: Int!, $w: [Int] @d) { f(i: $w) }", `query Q ($v: Int!, $w: [Int] @d) {`},
	}
	for name, tt := range sent {
		t.Run(name, func(t *testing.T) {
			chosen, err := Choose(tt.query, "")
			if err != nil {
				t.Fatalf("Choose(%q): %v", tt.query, err)
			}
			if !strings.Contains(chosen.Text, tt.want) {
				t.Errorf("Choose(%q) sends\n%s\nwant it to hold %s", tt.query, chosen.Text, tt.want)
			}
		})
	}
	for name, tt := range refusedAsGraphQLJS {
		t.Run(name, func(t *testing.T) {
			_, err := Choose(tt.query, "")
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasSuffix(err.Error(), "; fix the query text") {
				t.Errorf("Choose(%q) = %v, want an error holding %s", tt.query, err, tt.want)
			}
		})
	}
}

// refusedAsGraphQLJS are queries graphql-js refuses at parse and gqlparser
// reads otherwise, each with what Choose says: graphql-js's message at its
// line and column (TestRefusedAsGraphQLJS holds them to graphql-js), but
// for the one marked ours.
var refusedAsGraphQLJS = map[string]struct {
	query, want string
	ours        bool
}{
	"block string then a quote": {`{ f(s: """trail"""") }`, `line 1, column 23: Syntax Error: Unterminated string.`, false},
	"block string then quotes":  {`{ f(s: """a"""""") }`, `line 1, column 21: Syntax Error: Unterminated string.`, false},
	"block string then empty string": {`{ f(s: """""""") }`, `line 1, column 14: Syntax Error: a block string ends at its first closing """`,
		// graphql-js: Expected Name, found String "". (its parser, at the
		// same place); in a list it would read two strings.
		true},
	"invalid escape":                   {`{ f(s: "\x") }`, `line 1, column 9: Syntax Error: Invalid character escape sequence: "\x".`, false},
	"short unicode escape":             {`{ f(s: "\u12") }`, `line 1, column 9: Syntax Error: Invalid Unicode escape sequence: "\u12")".`, false},
	"lone leading surrogate":           {`{ f(s: "\uD800") }`, `line 1, column 9: Syntax Error: Invalid Unicode escape sequence: "\uD800".`, false},
	"lone trailing surrogate":          {`{ f(s: "a\uDE00") }`, `line 1, column 10: Syntax Error: Invalid Unicode escape sequence: "\uDE00".`, false},
	"surrogate in braces":              {`{ f(s: "\u{D800}") }`, `line 1, column 9: Syntax Error: Invalid Unicode escape sequence: "\u{D800}".`, false},
	"leading zero":                     {`{ f(i: 00) }`, `line 1, column 9: Syntax Error: Invalid number, unexpected digit after 0: "0".`, false},
	"no digit before the point":        {`{ f(fl: .5) }`, `line 1, column 9: Syntax Error: Unexpected character: ".".`, false},
	"hex":                              {`{ f(fl: 0x10) }`, `line 1, column 10: Syntax Error: Invalid number, expected digit but got: "x".`, false},
	"underscore":                       {`{ f(i: 1_000) }`, `line 1, column 9: Syntax Error: Invalid number, expected digit but got: "_".`, false},
	"letter after a number":            {`{ f(i: 1a) }`, `line 1, column 9: Syntax Error: Invalid number, expected digit but got: "a".`, false},
	"control character outside":        {"{ f\a }", `line 1, column 4: Syntax Error: Unexpected character: U+0007.`, false},
	"unterminated on the second line":  {"{\n f(s: \"abc\n) }", `line 2, column 11: Syntax Error: Unterminated string.`, false},
	"single quote":                     {`{ f(s: 'a') }`, `line 1, column 8: Syntax Error: Unexpected single quote character ('), did you mean to use a double quote (")?`, false},
	"variable in a variable directive": {"query($v: Int, $w: Int @d(n: $v)) { f(i: $w) }", `line 1, column 30: Syntax Error: Unexpected variable "$v" in constant value.`, false},
	"variable in a list there":         {"query($v: Int, $w: Int @d(l: [$v])) { f(i: $w) }", `line 1, column 31: Syntax Error: Unexpected variable "$v" in constant value.`, false},
	"a parse error before a lexer's": {`{ f(a: } "\x") }`, `line 1, column 8: Unexpected }`,
		// graphql-js lexes as it parses, so it reports the parse error
		// first (in its words: Unexpected "}".).
		true},
	// gqlparser reads the start of the token graphql-js's lexer refuses
	// as a token its parser does not expect; graphql-js's lexer refuses
	// it first.
	"a bad number where a name is due": {"query Q\n-1_x { f }", `line 2, column 3: Syntax Error: Invalid number, expected digit but got: "_".`, false},
	"a bad escape where a name is due": {`{ f(s: """a""""e\u+") }`, `line 1, column 17: Syntax Error: Invalid Unicode escape sequence: "\u+") ".`, false},
	// gqlparser counts a column too many on a line after a CRLF, and lines
	// end at a CR alone too.
	"variable in a default value after a CR":   {"query($v: Int,\r$w: Int = $v) { f(i: $w) }", `line 2, column 11: Syntax Error: Unexpected variable "$v" in constant value.`, false},
	"variable in a default value after a CRLF": {"query($v: Int,\r\n$w: Int = $v) { f(i: $w) }", `line 2, column 11: Syntax Error: Unexpected variable "$v" in constant value.`, false},
	"a parse error after CRLFs": {"{\r\n f\r\n  # c\r\n  ( }", `line 4, column 5: Expected Name, found }`,
		// graphql-js: Expected Name, found "}". (at the same place).
		true},
	// gqlparser places a string token a column past its quote, and a block
	// string at its end line, a column past its """ counted from there.
	"a string where a name is due": {`{ f(s: "a" "b") }`, `line 1, column 12: Expected Name, found String`,
		// graphql-js: Expected Name, found String "b". (at the same place).
		true},
	"a block string where a name is due": {"{ f(s: \"a\"\n  \"\"\"x\n  y\"\"\") }", `line 2, column 3: Expected Name, found BlockString`,
		// graphql-js: Expected Name, found BlockString "x\ny". (at the same place).
		true},
	// A quote after a block string comes before graphql-js's later faults:
	// from there gqlparser reads other tokens than graphql-js.
	"a quote after a block string, then a bad character": {`{ f(s: """"""""+ x) }`, `line 1, column 14: Syntax Error: a block string ends at its first closing """`,
		// graphql-js: Expected Name, found String "". (at the same place).
		true},
	"no definition":               {"# only a comment\n,", `line 2, column 2: Syntax Error: Unexpected <EOF>.`, false},
	"variable in a default value": {"query($v: Int, $w: Int = $v) { f(i: $w) }", `line 1, column 26: Syntax Error: Unexpected variable "$v" in constant value.`, false},
}

// TestBlockStringsOfTheOperationSent: block string values are kept by
// their place in the whole document, so the operation sent out of several,
// and the fragment it spreads, get theirs, not another's.
func TestBlockStringsOfTheOperationSent(t *testing.T) {
	query := "query A { a(s: \"\"\"\n  one\n two\"\"\") ...U }\n" +
		"fragment U on Q { u(s: \"\"\"\n  u\n   v\"\"\") }\n" +
		"fragment W on Q { w(s: \"\"\"w\n  x\"\"\") }\n" +
		"query B($d: String = \"\"\"d\n   e\"\"\") { b(s: \"\"\"  three\n    four\"\"\", t: $d) ...U }"
	chosen, err := Choose(query, "B")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`$d: String = "d\ne"`, `b(s: "  three\nfour", t: $d)`, `u(s: "u\n v")`} {
		if !strings.Contains(chosen.Text, want) {
			t.Errorf("Choose(query, B) sends\n%s\nwant it to hold %s", chosen.Text, want)
		}
	}
	if strings.Contains(chosen.Text, "one") || strings.Contains(chosen.Text, "fragment W") {
		t.Errorf("Choose(query, B) sends more than B and U:\n%s", chosen.Text)
	}
}
