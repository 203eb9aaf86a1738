package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// defaultsSchema is the schema every generated default is declared in: an
// enum with a deprecated value, a custom scalar, input objects with
// defaults of their own to fill in, a list of them and a @oneOf.
const defaultsSchema = `enum E { A B C @deprecated }
scalar JSON
input I { i: Int = 7 f: Float s: String = "s" e: E = B l: [Int] = 1 n: J = {} nn: Int! = 3 old: Int = 4 @deprecated }
input J { x: Int = 1 y: [E!] = A z: O req: String }
input O @oneOf { a: Int b: String }
input R { need: Int! opt: I }
`

// defaultsTypes are the types a generated default is given for.
var defaultsTypes = []string{"Int", "Int!", "Float", "String", "Boolean", "ID", "E", "JSON", "[Int]", "[Int!]", "[[Int]]", "[E]", "I", "[I]", "J", "O", "R", "[R!]"}

// genLiteral writes a random GraphQL literal, most often of a shape the
// type takes, sometimes not.
func genLiteral(r *rand.Rand, depth int) string {
	kinds := 12
	if depth >= 3 {
		kinds = 9
	}
	switch r.IntN(kinds) {
	case 0:
		return []string{"0", "-0", "1", "-5", "2147483647", "2147483648", "-2147483649", "007", "12345678901234567890"}[r.IntN(9)]
	case 1:
		return []string{"1.5", "2.50", "1e25", "0.0000001", "-0.0", "1.0", "1E2", "5e-324", "1e400"}[r.IntN(9)]
	case 2:
		return []string{`""`, `"x"`, `"7"`, `"-5"`, `"1e3"`, `"A"`, `"é\u0007\"\\"`, `"""block"""`}[r.IntN(8)]
	case 3:
		return []string{"true", "false"}[r.IntN(2)]
	case 4:
		return "null"
	case 5, 6:
		return []string{"A", "B", "C", "D", "a"}[r.IntN(5)]
	case 7, 8:
		return "{}"
	case 9:
		n := r.IntN(4)
		items := make([]string, n)
		for i := range items {
			items[i] = genLiteral(r, depth+1)
		}
		return "[" + strings.Join(items, ", ") + "]"
	default:
		names := []string{"i", "f", "s", "e", "l", "n", "nn", "old", "x", "y", "z", "req", "a", "b", "need", "opt", "nope"}
		n := r.IntN(4)
		fields := make([]string, n)
		for i := range fields {
			fields[i] = names[r.IntN(len(names))] + ": " + genLiteral(r, depth+1)
		}
		return "{" + strings.Join(fields, ", ") + "}"
	}
}

// genDefaultsCases are SDL schemas of one argument each, of a random type
// with a random default, drawn from a fixed seed.
func genDefaultsCases(n int) []string {
	r := rand.New(rand.NewPCG(26, 5))
	cases := make([]string, n)
	for i := range cases {
		cases[i] = fmt.Sprintf("type Query { f(a: %s = %s): Int }\n%s", defaultsTypes[r.IntN(len(defaultsTypes))], genLiteral(r, 0), defaultsSchema)
	}
	return cases
}

// testDefaultsAgainstGraphQLJS: each generated default prints, in the
// whole view, as graphql-js's printSchema(buildSchema(sdl)) prints it, read
// from the SDL (--schema) and from graphql-js's introspection of it, for
// every case graphql-js can print (it throws on an object or a list given
// to a custom scalar, and on a Float beyond float64; graphqlmcp keeps those
// as written). Duplicate fields in an object are refused by both.
func testDefaultsAgainstGraphQLJS(t *testing.T, graphqlJS string) {
	const script = `const { createRequire } = require('node:module');
const g = createRequire(require('node:path').join(process.env.GRAPHQL_JS_DIR, 'package.json'))('graphql');
const cases = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(cases.map((sdl) => {
  try {
    const schema = g.buildSchema(sdl);
    return { sdl: g.printSchema(schema) + '\n', introspection: g.introspectionFromSchema(schema) };
  } catch (e) { return null; }
})));`
	cases := genDefaultsCases(1500)
	input, _ := json.Marshal(cases)
	cmd := exec.Command("node", "-e", script)
	cmd.Env = append(os.Environ(), "GRAPHQL_JS_DIR="+graphqlJS)
	cmd.Stdin = bytes.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var want []*struct {
		SDL           string          `json:"sdl"`
		Introspection json.RawMessage `json:"introspection"`
	}
	if err := json.Unmarshal(out, &want); err != nil || len(want) != len(cases) {
		t.Fatalf("node's answer: %v (%d for %d cases)", err, len(want), len(cases))
	}
	compared, failures := 0, 0
	for i, sdl := range cases {
		if want[i] == nil {
			continue
		}
		s, err := FromSDL(sdl)
		var introspected *Schema
		if r, ierr := ParseResult(want[i].Introspection); ierr == nil {
			introspected, ierr = New(r)
		}
		switch {
		case err != nil:
			t.Errorf("graphql-js prints it, graphqlmcp refuses it (%v):\n%s", err, sdl)
		case s.View(true).SDL != want[i].SDL:
			t.Errorf("%s\ngraphql-js: %s\ngraphqlmcp: %s", sdl[:strings.IndexByte(sdl, '\n')], firstLine(want[i].SDL), firstLine(s.View(true).SDL))
		case introspected == nil || introspected.View(true).SDL != want[i].SDL:
			t.Errorf("%s: graphql-js's introspection of it does not print as graphql-js prints it", sdl[:strings.IndexByte(sdl, '\n')])
		default:
			compared++
			continue
		}
		if failures++; failures == 20 {
			t.Fatal("and more")
		}
	}
	t.Logf("%d generated defaults print as graphql-js prints them (%d graphql-js cannot print)", compared, len(cases)-compared-failures)
}

func firstLine(sdl string) string {
	_, rest, _ := strings.Cut(sdl, "\n")
	line, _, _ := strings.Cut(rest, "\n")
	return line
}
