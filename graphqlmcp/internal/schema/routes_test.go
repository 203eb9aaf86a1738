package schema

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestSDLRouteEqualsIntrospectionRoute: a schema read from an SDL file
// (--schema) prints the same SDL, in both views, as the same schema
// introspected: testdata/synthetic.json is graphql-js's introspection of
// synthetic.graphql (TestSchemaAgainstGraphQLJS proves it). The file wrote
// Filter.range's default as {from: 1, old: 2}, the introspection states it
// coerced, {from: 1, old: 2, step: 3}: both print the coerced one, and both
// default views keep Range.step, which it names. An empty description ("")
// is kept too.
func TestSDLRouteEqualsIntrospectionRoute(t *testing.T) {
	introspected := mustSchema(t, readFile(t, filepath.Join("testdata", "synthetic.json")))
	file, err := Load(filepath.Join("testdata", "synthetic.graphql"), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	for _, includeDeprecated := range []bool{true, false} {
		want, got := introspected.View(includeDeprecated).SDL, file.View(includeDeprecated).SDL
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("includeDeprecated %v (-introspected +from the SDL file):\n%s", includeDeprecated, diff)
		}
		for _, line := range []string{"  range: Range = {from: 1, old: 2, step: 3}\n", "  step: Int = 3 @deprecated\n", "  \"\"\"\"\"\"\n  emptyDescription: String\n"} {
			if !strings.Contains(got, line) {
				t.Errorf("includeDeprecated %v: the SDL file's view lacks %q", includeDeprecated, line)
			}
		}
	}
	if a, b := introspected.View(false).Hidden, file.View(false).Hidden; a != b {
		t.Errorf("hidden: %d introspected, %d from the SDL file", a, b)
	}
}

// TestDefaultsCoercedAsGraphQLJS: each default value prints as graphql-js
// 16.15's printSchema(buildSchema(sdl)) prints it (recorded from it): the
// object's fields in the type's order with the defaults of those left out,
// one item as a list, numbers as JavaScript prints them, an ID's digits
// bare, a custom scalar's enum as a string; a value that does not fit its
// type is dropped (graphql-js drops it), and one graphql-js cannot print (an
// object for a custom scalar; graphql-js throws) is kept as written.
func TestDefaultsCoercedAsGraphQLJS(t *testing.T) {
	s := fromSDL(t, `type Query {
  items(filter: Filter = {range: {old: 2, from: 1}}, ids: [ID] = "7", f: Float = 2.50, big: Float = 1e25, small: Float = 0.0000001,
    one: [Int] = 5, bad: Int = "x", j: JSON = FOO, ji: JSON = 12345678901234567890, jo: JSON = {a: 1}, e: Color = RED,
    huge: Int = 2147483648, wrongEnum: Color = BLUE, pick: Pick = {a: 1, b: 2}, must: Int! = null): Int
}
scalar JSON
enum Color { RED GREEN }
input Filter { range: Range = {from: 1, old: 2} extra: Int }
input Range { from: Int, old: Int @deprecated, step: Int = 3 @deprecated }
input Pick @oneOf { a: Int b: Int }
`)
	want := "items(filter: Filter = {range: {from: 1, old: 2, step: 3}}, ids: [ID] = [7], f: Float = 2.5, big: Float = 1e+25, small: Float = 1e-7, " +
		"one: [Int] = [5], bad: Int, j: JSON = \"FOO\", ji: JSON = 12345678901234567000, jo: JSON = {a: 1}, e: Color = RED, " +
		"huge: Int, wrongEnum: Color, pick: Pick, must: Int!): Int"
	for _, includeDeprecated := range []bool{true, false} {
		sdl := s.View(includeDeprecated).SDL
		if !strings.Contains(sdl, want) {
			t.Errorf("includeDeprecated %v: want %s in\n%s", includeDeprecated, want, sdl)
		}
		if !strings.Contains(sdl, "  range: Range = {from: 1, old: 2, step: 3}\n") || !strings.Contains(sdl, "  step: Int = 3 @deprecated\n") {
			t.Errorf("includeDeprecated %v: Filter.range's default is not coerced, or Range.step is hidden:\n%s", includeDeprecated, sdl)
		}
	}
}

// TestDefaultsCoercionCycle: defaults that fill in each other for ever
// (graphql-js overflows its stack on them) are kept as written.
func TestDefaultsCoercionCycle(t *testing.T) {
	s := fromSDL(t, `type Query { f(a: A = {}): Int }
input A { b: B = {} }
input B { a: A = {} }
`)
	if sdl := s.View(true).SDL; !strings.Contains(sdl, "f(a: A = {}): Int") {
		t.Errorf("got\n%s", sdl)
	}
}

func TestJSNumber(t *testing.T) {
	for f, want := range map[float64]string{0: "0", 1: "1", -1.5: "-1.5", 1e21: "1e+21", 1e20: "100000000000000000000", 1e-6: "0.000001", 1.5e-7: "1.5e-7", 123456789012345678: "123456789012345680"} {
		if got := jsNumber(f); got != want {
			t.Errorf("jsNumber(%v) = %s, want %s", f, got, want)
		}
	}
}

// TestDefaultsGrowthBounded: defaults that fill in defaults that fill in
// defaults (each of T0's two fields defaults to {} of T1, each of T1's to
// {} of T2, ...) would print twice as long at each level coerced, 2^40
// times here: past a bound, they are kept as written.
func TestDefaultsGrowthBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("type Query { f(a: T0 = {}): Int }\n")
	const levels = 40
	for i := range levels {
		fmt.Fprintf(&b, "input T%d { x: T%d = {} y: T%d = {} }\n", i, i+1, i+1)
	}
	fmt.Fprintf(&b, "input T%d { z: Int = 1 }\n", levels)
	s := fromSDL(t, b.String())
	if n := len(s.View(true).SDL); n > 2*maxDefaultsGrowth {
		t.Errorf("the SDL is %d bytes", n)
	}
	if !strings.Contains(s.View(true).SDL, "f(a: T0 = {}): Int") {
		t.Errorf("T0's default grew: %.300s", s.View(true).SDL)
	}
	if !strings.Contains(s.View(true).SDL, "  x: T40 = {z: 1}\n") {
		t.Errorf("a small default was not coerced: %.300s", s.View(true).SDL)
	}
}

// TestEmptyDescriptionsFromSDL: an empty description in an SDL file is
// kept wherever one can stand (schema, directive, type, field, argument,
// enum value, input field), and a "" that is a value (a default, a list
// item, an object field, a directive's argument) is not taken for one. The
// expected text is graphql-js 16.15.0's printSchema(buildSchema(sdl)).
func TestEmptyDescriptionsFromSDL(t *testing.T) {
	s := fromSDL(t, `""
schema @dir { query: Q }
""
directive @dir("" a: String = "" b: String = "" "" c: Int) on SCHEMA
""""""
type Q {
  "" f(x: [String] = ["", ""] "" y: In = {s: ""}): E @deprecated(reason: "")
  g: Int
}
"" enum E { "" A B }
input In { s: String = "" "" t: Int }
`)
	want := `""""""
schema {
  query: Q
}

""""""
directive @dir(a: String = "", b: String = "", c: Int) on SCHEMA

""""""
type Q {
  """"""
  f(x: [String] = ["", ""], y: In = {s: ""}): E @deprecated(reason: "")
  g: Int
}

""""""
enum E {
  """"""
  A
  B
}

input In {
  s: String = ""

  """"""
  t: Int
}
`
	if diff := cmp.Diff(want, s.View(true).SDL); diff != "" {
		t.Errorf("(-graphql-js +graphqlmcp):\n%s", diff)
	}
}

// TestSDLFileDeclaresOnlyItsDirectives: a --schema SDL file's schema has the
// directives the file declares, not the @defer that gqlparser's prelude
// declares for every schema (it printed one, which graphql-js does not, and
// the validator then took @defer for the endpoint's own).
func TestSDLFileDeclaresOnlyItsDirectives(t *testing.T) {
	if sdl := fromSDL(t, "type Query { a: Int }").View(true).SDL; sdl != "type Query {\n  a: Int\n}\n" {
		t.Errorf("got\n%s", sdl)
	}
}

// FuzzSDL reads arbitrary text as a --schema SDL file: reading it (empty
// descriptions, coerced defaults) and every view of it never panic, and an
// answer stays within its budget. (scripts/fuzz should list it.)
func FuzzSDL(f *testing.F) {
	f.Add(`type Query { f(a: Filter = {range: {old: 2}}, ids: [ID] = "7", j: JSON = FOO, jo: JSON = {a: [1]}): Int }
scalar JSON
input Filter { range: Range = {from: 1} }
input Range { from: Int, old: Int @deprecated, step: Int = 3 @deprecated }`)
	f.Add(`"" schema { query: Q } "" directive @d("" a: String = "" "" b: Int) on FIELD """""" type Q { "" f(x: [String] = ["", ""]): E } "" enum E { "" A }`)
	f.Add("type Query { f(a: A = {}): Int }\ninput A { b: B = {} }\ninput B { a: A = {} }")
	f.Add("type Query { f(p: P = {a: 1, b: null}): Int }\ninput P @oneOf { a: Int b: Int }")
	f.Fuzz(func(t *testing.T, sdl string) {
		s, err := FromSDL(sdl)
		if err != nil {
			return
		}
		for _, v := range []*View{s.View(false), s.View(true)} {
			v.Overview()
			if found := v.Lookup([]string{"Query", "Q", "A", "Query"}, "a"); len(found.Text) > MaxViewBytes {
				t.Errorf("%d bytes", len(found.Text))
			}
		}
	})
}

// TestDefaultsCoercionWorkBounded: what coercing defaults does is bounded
// all told, not only what it adds to the print. A list default of 2,000
// empty objects of an input with 2,000 defaulted fields, or 2,000 arguments
// each defaulting to {} of it, filled in 4 million fields (282 MB allocated
// for 33 KB of SDL, quadratic: a 64 MiB file would end the process) before
// the growth bound refused the result. Past the bound, defaults are kept
// as written.
func TestDefaultsCoercionWorkBounded(t *testing.T) {
	wide := func(site string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "type Query { %s }\ninput I {", site)
		for i := range 2000 {
			fmt.Fprintf(&b, " f%d: Int = 1", i)
		}
		b.WriteString(" }\n")
		return b.String()
	}
	var items, args strings.Builder
	items.WriteString("f(a: [I] = [")
	args.WriteString("f(")
	for i := range 2000 {
		items.WriteString("{}")
		fmt.Fprintf(&args, " a%d: I = {}", i)
	}
	items.WriteString("]): Int")
	args.WriteString("): Int")
	for name, site := range map[string]string{"items": items.String(), "arguments": args.String()} {
		sdl := wide(site)
		var s *Schema
		allocs := testing.AllocsPerRun(1, func() { s = fromSDL(t, sdl) })
		// About 340,000: reading the file, and coercing up to the bound.
		if allocs > 3*maxCoercionSteps {
			t.Errorf("%s: %.0f allocations", name, allocs)
		}
		if !strings.Contains(s.View(true).SDL, "f(a: [I] = [{}") && !strings.Contains(s.View(true).SDL, "a1999: I = {}") {
			t.Errorf("%s: the last default is not kept as written: %.300s", name, s.View(true).SDL)
		}
	}
}

// TestDefaultsCoercionDepthBounded: defaults that fill in each other down a
// chain of input types (T0's x defaults to {} of T1, whose x defaults to {}
// of T2, ...) coerce to values nested as deep as the chain is long. Past
// maxValueDepth levels they are kept as written: gqlparser refuses values
// nested deeper than 1,000 (the validator could not load a 2,000-link
// chain's schema, and operations went unchecked), the walk that keeps
// deprecated members a default names stops at maxValueDepth, and the
// coercion's recursion must not follow a chain of a million links. A
// default near the chain's end, shallow enough, is still coerced.
func TestDefaultsCoercionDepthBounded(t *testing.T) {
	const links = 2000
	var b strings.Builder
	b.WriteString("type Query { f(a: T0 = {}, near: T1990 = {}): Int }\n")
	for i := range links {
		fmt.Fprintf(&b, "input T%d { x: T%d = {} }\n", i, i+1)
	}
	fmt.Fprintf(&b, "input T%d { z: Int = 1 @deprecated }\n", links)
	s := fromSDL(t, b.String())
	sdl := s.View(false).SDL
	if !strings.Contains(sdl, "f(a: T0 = {}, ") {
		t.Errorf("T0's default, %d levels deep coerced, is not kept as written: %.300s", links, sdl)
	}
	near := "near: T1990 = " + strings.Repeat("{x: ", 10) + "{z: 1}" + strings.Repeat("}", 10) + "): Int"
	if !strings.Contains(sdl, near) {
		t.Errorf("want %s in %.300s", near, sdl)
	}
	if !strings.Contains(sdl, "  z: Int = 1 @deprecated\n") {
		t.Errorf("T%d.z, which a shown default names, is hidden", links)
	}
	if _, err := s.Validator(); err != nil {
		t.Errorf("the validator cannot load the schema: %v", err)
	}
}

// TestLargeWrittenDefaultCoerced: the bound on coercion's work is beyond
// the defaults as written: a default list longer than maxCoercionSteps is
// coerced whole, as graphql-js prints it (2.50 as 2.5).
func TestLargeWrittenDefaultCoerced(t *testing.T) {
	items := strings.Repeat("2.50,", maxCoercionSteps+10)
	sdl := fromSDL(t, "type Query { f(a: [Float] = ["+items+"]): Int }").View(true).SDL
	if strings.Contains(sdl, "2.50") || !strings.HasSuffix(sdl, "2.5, 2.5]): Int\n}\n") {
		t.Errorf("the list is not coerced: …%s", sdl[max(0, len(sdl)-100):])
	}
}

// TestDefaultsGrowthCountsEscapes: the growth bound counts a string as it
// prints, escapes and all: a default of 20,000 control characters (each
// printed as \u0001, six bytes) filled in by 200 arguments counted as a
// sixth of what it printed, and the schema grew 6 MiB past a 1 MiB bound.
func TestDefaultsGrowthCountsEscapes(t *testing.T) {
	var b strings.Builder
	b.WriteString("type Query { f(")
	for i := range 200 {
		fmt.Fprintf(&b, " a%d: I = {}", i)
	}
	b.WriteString("): Int }\ninput I { s: String = \"" + strings.Repeat(`\u0001`, 20000) + "\" }\n")
	s := fromSDL(t, b.String())
	if grew := len(s.View(true).SDL) - b.Len(); grew > maxDefaultsGrowth+maxDefaultsGrowth/8 {
		t.Errorf("the schema grew %d bytes coerced, past the %d bound", grew, maxDefaultsGrowth)
	}
}
