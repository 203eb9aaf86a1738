package schema

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestPrintSynthetic prints testdata/synthetic.json (graphql-js's
// introspection of synthetic.graphql) in both views and compares them with
// the golden files; TestSchemaAgainstGraphQLJS proves the same texts with
// graphql-js. Each view must load in gqlparser, which validates the schema.
func TestPrintSynthetic(t *testing.T) {
	s := mustSchema(t, readFile(t, filepath.Join("testdata", "synthetic.json")))
	for _, view := range []struct {
		golden            string
		includeDeprecated bool
	}{{"synthetic.all.graphql", true}, {"synthetic.current.graphql", false}} {
		got := s.View(view.includeDeprecated).SDL
		path := filepath.Join("testdata", view.golden)
		if *update {
			writeFile(t, path, got)
		}
		if diff := cmp.Diff(string(readFile(t, path)), got); diff != "" {
			t.Errorf("%s (-golden +printed); run with -update if the change is deliberate:\n%s", view.golden, diff)
		}
		if _, err := gqlparser.LoadSchema(&ast.Source{Name: view.golden, Input: got}); err != nil {
			t.Errorf("%s does not load: %v", view.golden, err)
		}
	}
}

// TestDefaultViewKeepsWhatTheSchemaNeeds: hiding deprecated members keeps
// those an interface requires, a default value names, or without which a
// definition would be empty, and hides the rest.
func TestDefaultViewKeepsWhatTheSchemaNeeds(t *testing.T) {
	s := mustSchema(t, readFile(t, filepath.Join("testdata", "synthetic.json")))
	current := s.View(false)
	for _, kept := range []string{
		"  databaseId: Int @deprecated(reason: \"Use id.\")",                  // Node requires it of Item
		"legacyOrder: String @deprecated(reason: \"gone\")",                   // an argument Node.reactions has
		"  a: Int @deprecated\n  b: Int @deprecated(reason: \"b is gone\")",   // AllDeprecated would be empty
		"  SMALL @deprecated\n  LARGE @deprecated(reason: \"too big\")",       // Size would be empty
		"  OLDEST @deprecated(reason: \"sort by NEWEST\")",                    // Root.search's default names it
		"  legacyOrder: Order = RELEVANCE @deprecated(reason: \"use order\")", // so does it
		"  RELEVANCE @deprecated",                                             // named by the kept legacyOrder's default
		"  GREEN @deprecated",                                                 // [RED, GREEN]
	} {
		if !strings.Contains(current.SDL, kept) {
			t.Errorf("the default view lacks %q", kept)
		}
	}
	for _, hidden := range []string{"old: String", "gone: String", "emptyReason", "defaultReason", "first: Int = 3", "legacyWeight"} {
		if strings.Contains(current.SDL, hidden) {
			t.Errorf("the default view shows %q", hidden)
		}
	}
	if want := 6; current.Hidden != want {
		t.Errorf("Hidden = %d, want %d", current.Hidden, want)
	}
	if s.View(true).Hidden != 0 {
		t.Errorf("the whole view hides %d members", s.View(true).Hidden)
	}
}

// TestDescriptionsByteExact: every description survives printing and
// parsing (gqlparser) byte for byte, whichever form it is printed in.
func TestDescriptionsByteExact(t *testing.T) {
	s := mustSchema(t, readFile(t, filepath.Join("testdata", "synthetic.json")))
	back, err := FromSDL(s.View(true).SDL)
	if err != nil {
		t.Fatal(err)
	}
	described := func(s *Schema) map[string]string {
		out := map[string]string{}
		add := func(key string, d *string) {
			if d != nil && *d != "" { // SDL cannot tell an empty description from none
				out[key] = *d
			}
		}
		add("schema", s.result.Schema.Description)
		for _, typ := range s.result.Schema.Types {
			if !isShownType(typ.Name) {
				continue
			}
			add(typ.Name, typ.Description)
			for _, f := range typ.Fields {
				add(typ.Name+"."+f.Name, f.Description)
				for _, a := range f.Args {
					add(typ.Name+"."+f.Name+"("+a.Name+")", a.Description)
				}
			}
			for _, f := range typ.InputFields {
				add(typ.Name+"."+f.Name, f.Description)
			}
			for _, v := range typ.EnumValues {
				add(typ.Name+"."+v.Name, v.Description)
			}
		}
		for _, d := range s.result.Schema.Directives {
			if !isSpecifiedDirective(d.Name) {
				add("@"+d.Name, d.Description)
				for _, a := range d.Args {
					add("@"+d.Name+"("+a.Name+")", a.Description)
				}
			}
		}
		return out
	}
	want := described(s)
	if len(want) < 20 {
		t.Fatalf("only %d descriptions in the synthetic schema", len(want))
	}
	if diff := cmp.Diff(want, described(back)); diff != "" {
		t.Errorf("descriptions after printing and parsing (-introspected +parsed):\n%s", diff)
	}
}

// TestPrintedForms pins the forms a description or value takes.
func TestPrintedForms(t *testing.T) {
	for _, tt := range []struct{ description, want string }{
		{"plain", `"""plain"""`},
		{"", `""""""`},
		{"two\nlines", "\"\"\"\ntwo\nlines\n\"\"\""},
		{"  leading spaces", `"""  leading spaces"""`},
		{"trailing spaces  ", `"""trailing spaces  """`},
		{"lone \r CR", `"lone \r CR"`},
		{"bell \a", `"bell \u0007"`},
		{"unit \x1f separator", `"unit \u001F separator"`},
		{"\nleading newline", `"\nleading newline"`},
		{"trailing newline\n", `"trailing newline\n"`},
		{"  indented\n  throughout", `"  indented\n  throughout"`},
		{`ends with "`, "\"\"\"\nends with \"\n\"\"\""},
		{`has """ inside`, `"""has \""" inside"""`},
	} {
		p := &printer{show: &filter{all: true}}
		p.description(&tt.description, "", true)
		if got := strings.TrimSuffix(p.b.String(), "\n"); got != tt.want {
			t.Errorf("description %q printed %s, want %s", tt.description, got, tt.want)
		}
	}
}

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(m.Run())
}

// TestQuotedLen: quotedLen is the length writeQuoted writes, which the
// growth bound of coerced defaults counts.
func TestQuotedLen(t *testing.T) {
	for _, s := range []string{"", "plain", `a"b\c`, "\b\t\n\f\r\x00\x1f\x7f", "\u0080\u009f\u00a0é🎉", "\xff\xfe bad", strings.Repeat("\x01", 100)} {
		var b strings.Builder
		WriteQuoted(&b, s)
		if got := quotedLen(s); got != b.Len() {
			t.Errorf("quotedLen(%q) = %d, writeQuoted writes %d", s, got, b.Len())
		}
	}
}
