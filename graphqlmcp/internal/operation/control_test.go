package operation

import (
	"strings"
	"testing"
)

// TestControlCharacters: a control character written as it is inside a
// string, a block string or a comment is read, as graphql-js and the spec
// read it, and sent escaped; outside them it is refused, as graphql-js
// refuses it. TestDifferential's control-character classes hold the same
// against graphql-js itself.
func TestControlCharacters(t *testing.T) {
	for _, tc := range []struct {
		name, query, sent, refused string
	}{
		{name: "string", query: "{ a(s: \"x\ay\") }", sent: `a(s: "x\u0007y")`},
		{name: "string with escapes", query: "{ a(s: \"\\\"\a\\\\\x01\") }", sent: `a(s: "\"\u0007\\\u0001")`},
		{name: "block string", query: "{ a(s: \"\"\"\n  x\a\n  \\\"\"\" \x1f\n\"\"\") }", sent: `a(s: "x\u0007\n\"\"\" \u001F")`},
		{name: "comment", query: "{ a # bell \a here\n b }", sent: "a\n\tb"},
		{name: "variable default", query: "query ($v: String = \"\a\") { a(s: $v) }", sent: `$v: String = "\u0007"`},
		{name: "outside strings", query: "{ a \a }", refused: "line 1, column 5"},
		{name: "bad escape of one", query: "{ a(s: \"\\\a\") }", refused: "syntax error"},
		// The stand-ins are runes the query neither holds nor escapes: a
		// private-use character the query writes or escapes is sent as it.
		{name: "private-use character written", query: "{ a(s: \"\U000F0007\a\", t: \"\"\"\U000F0001\"\"\") }", sent: "a(s: \"\U000F0007\\u0007\", t: \"\U000F0001\")"},
		{name: "private-use character escaped", query: "{ a(s: \"\\u{F0007}\", t: \"\\uDB80\\uDC01\a\") }", sent: "a(s: \"\U000F0007\", t: \"\U000F0001\\u0007\")"},
		{name: "every private-use block written", query: "{ a(s: \"" + everyBlock() + "\a\") }", refused: "syntax error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chosen, err := Choose(tc.query, "")
			if tc.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refused) {
					t.Fatalf("Choose(%q) = %v, want an error containing %q", tc.query, err, tc.refused)
				}
				return
			}
			if err != nil {
				t.Fatalf("Choose(%q): %v", tc.query, err)
			}
			if !strings.Contains(chosen.Text, tc.sent) {
				t.Errorf("Choose(%q) sends %q, want it to hold %q", tc.query, chosen.Text, tc.sent)
			}
			if strings.ContainsFunc(chosen.Text, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' }) {
				t.Errorf("Choose(%q) sends %q: a control character as it is", tc.query, chosen.Text)
			}
		})
	}
}

// everyBlock holds a rune of every block of 32 stand-ins could be taken
// from: then there is none, and gqlparser refuses the control characters.
func everyBlock() string {
	var b strings.Builder
	for r := rune(standInFirst); r <= standInLast; r += 32 {
		b.WriteRune(r)
	}
	return b.String()
}
