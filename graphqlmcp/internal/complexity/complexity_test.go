package complexity

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/graph-gophers/graphql-go/example/starwars"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/mcpforge/servers/graphqlmcp/internal/operation"
)

func score(t *testing.T, query string, vars map[string]any) (Result, error) {
	t.Helper()
	return scoreWith(t, nil, query, vars)
}

func scoreWith(t *testing.T, schema *ast.Schema, query string, vars map[string]any) (Result, error) {
	t.Helper()
	doc, op := parse(t, query)
	return Score(doc, op, vars, schema)
}

// parse parses query and picks its first operation, without the bounds
// operation.Choose puts on a document before validation, so that the
// scorer's own caps, its second line, are tested too.
func parse(t *testing.T, query string) (*ast.QueryDocument, *ast.OperationDefinition) {
	t.Helper()
	doc, err := parser.ParseQuery(&ast.Source{Input: query})
	if err != nil || len(doc.Operations) == 0 {
		t.Fatalf("ParseQuery(%.200q): %v", query, err)
	}
	return doc, doc.Operations[0]
}

func flatFields(n int) string {
	fields := make([]string, n)
	for i := range fields {
		fields[i] = "f" + string(rune('a'+i/26%26)) + string(rune('a'+i%26))
	}
	return "{ " + strings.Join(fields, " ") + " }"
}

// githubLike is the part of GitHub's schema the calibrations use, with its
// connections, slicing arguments and a list without one.
const githubLike = `
type Query {
  viewer: User!
  repository(owner: String!, name: String!): Repository
  search(query: String!, type: SearchType!, first: Int, after: String): SearchResultItemConnection!
  users(count: Int, first: Int): [User!]!
  topics: [String!]!
  paged(pagination: Page): [User!]!
  defaulted(first: Int = 30): UserConnection!
  nodes(ids: [ID!]!): [User]!
  options(names: [String!]): [Language!]!
  byKind(kinds: [SearchType!]): [User!]!
  filtered(ids: [ID!], first: Int, last: Int): [User!]!
}
input Page { pageSize: Int, offset: Int }
enum SearchType { REPOSITORY ISSUE }
type User { login: String! name: String repositories(first: Int, last: Int): RepositoryConnection! }
type Repository { name: String! issues(first: Int, last: Int): IssueConnection! languages(first: Int): LanguageConnection }
type RepositoryConnection { nodes: [Repository] edges: [RepositoryEdge] totalCount: Int! pageInfo: PageInfo! }
type RepositoryEdge { node: Repository cursor: String! }
type IssueConnection { nodes: [Issue] edges: [IssueEdge] totalCount: Int! pageInfo: PageInfo! countsByState: [StateCount!]! }
type StateCount { state: String! count: Int! }
type IssueEdge { node: Issue cursor: String! }
type Issue { number: Int! title: String! createdAt: String! author: User comments(first: Int): IssueCommentConnection! labels: [String!]! }
type IssueCommentConnection { nodes: [IssueComment] totalCount: Int! }
type IssueComment { body: String! }
type LanguageConnection { nodes: [Language] }
type Language { name: String! }
type UserConnection { nodes: [User] }
type PageInfo { hasNextPage: Boolean! endCursor: String }
union SearchResultItem = Repository | Issue
type SearchResultItemConnection { nodes: [SearchResultItem] }
`

func loadSchema(t testing.TB, sdl string) *ast.Schema {
	t.Helper()
	s, err := gqlparser.LoadSchema(&ast.Source{Name: "schema", Input: sdl})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestScoreWithSchema: the calibrations of the rule on a schema shaped like
// GitHub's, with the default ceiling of 100 in mind.
func TestScoreWithSchema(t *testing.T) {
	schema := loadSchema(t, githubLike)
	repo := `repository(owner: "o", name: "n")`
	tests := []struct {
		name  string
		query string
		vars  map[string]any
		want  int
	}{
		{"singular objects and scalars", "{ viewer { login name } }", nil, 1},
		{"one page of repository names", "{ viewer { repositories(first: 100) { nodes { name } } } }", nil, 100},
		{"a page of issues with edges, totalCount and pageInfo", "{ " + repo + " { issues(first: 25) { totalCount pageInfo { hasNextPage endCursor } edges { node { number title createdAt author { login } } } } } }", nil, 25},
		{"a count alone", "{ " + repo + " { issues(first: 100) { totalCount } } }", nil, 100},
		{"nested connections", "{ " + repo + " { issues(first: 50) { nodes { comments(first: 20) { nodes { body } } } } } }", nil, 50 + 50*20},
		{"a union's nested connection", `{ search(query: "x", type: REPOSITORY, first: 20) { nodes { ... on Repository { languages(first: 10) { nodes { name } } } } } }`, nil, 20 + 200},
		{"a variable's default", "query($n: Int = 50) { viewer { repositories(first: $n) { nodes { name } } } }", nil, 50},
		{"the variable given", "query($n: Int = 50) { viewer { repositories(first: $n) { nodes { name } } } }", map[string]any{"n": 101}, 101},
		{"edges and nodes count once", "{ viewer { repositories(first: 10) { nodes { name } edges { node { name } } } } }", nil, 10},
		{"the largest slicing argument", "{ users(count: 1, first: 1000) { login } }", nil, 1000},
		{"a list without a slicing argument", "{ topics }", nil, AssumedListSize},
		{"a list inside listed items", "{ " + repo + " { issues(first: 10) { nodes { labels } } } }", nil, 10 + 10*AssumedListSize},
		{"a slicing argument inside an input object", "{ paged(pagination: {pageSize: 40}) { login } }", nil, 40},
		{"inside an input object from a variable", "query($p: Page) { paged(pagination: $p) { login } }", map[string]any{"p": map[string]any{"pageSize": 60}}, 60},
		{"a schema default", "{ defaulted { nodes { login } } }", nil, 30},
		{"a connection without a slicing argument", "{ viewer { repositories { nodes { name } } } }", nil, AssumedListSize},
		{"first: 0", "{ viewer { repositories(first: 0) { nodes { name } } } }", nil, 1},
		{"a fragment counts at every spread", "{ a: viewer { ...R } b: viewer { ...R } } fragment R on User { repositories(first: 30) { nodes { name } } }", nil, 60},
		{"a fragment on a connection", "{ viewer { repositories(first: 30) { ...C } } } fragment C on RepositoryConnection { nodes { issues(first: 2) { totalCount } } }", nil, 30 + 60},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scoreWith(t, schema, tt.query, tt.vars)
			if err != nil {
				t.Fatal(err)
			}
			if got.Score != tt.want {
				t.Errorf("score = %d, want %d (costliest %v)", got.Score, tt.want, got.Costliest)
			}
		})
	}
}

// TestIntrospectionPriced: __schema and __type are priced from the schema
// by what they return, and refused without one.
func TestIntrospectionPriced(t *testing.T) {
	schema := loadSchema(t, githubLike)
	types := len(schema.Types)
	for _, tt := range []struct {
		query string
		want  int
	}{
		{"{ __schema { queryType { name } } }", 1},
		{"{ __schema { types { name } } }", types},
		{`{ __type(name: "User") { fields { name } } }`, 3},
		{`{ __type(name: "SearchType") { enumValues { name } } }`, 2},
		{`query($t: String!) { __type(name: $t) { fields { name args { name } } } }`, 3 + 3*2},
	} {
		got, err := scoreWith(t, schema, tt.query, map[string]any{"t": "User"})
		if err != nil || got.Score != tt.want {
			t.Errorf("%s: score %d, %v; want %d", tt.query, got.Score, err, tt.want)
		}
	}
	got, err := scoreWith(t, schema, "{ __schema { types { fields { name } } } }", nil)
	if err != nil || got.Score < types*2 {
		t.Errorf("every type's fields: score %d, %v; want at least %d", got.Score, err, types*2)
	}
	if _, err := score(t, "{ __schema { types { name } } }", nil); err == nil || !strings.Contains(err.Error(), "cannot be priced without the endpoint's schema") {
		t.Errorf("without a schema: %v", err)
	}
}

// TestScoreWithoutSchema: with no schema, a field with a slicing argument
// is a list of that size, and edges and nodes under it do not multiply.
func TestScoreWithoutSchema(t *testing.T) {
	tests := []struct {
		name  string
		query string
		vars  map[string]any
		want  int
	}{
		{"scalars alone", flatFields(100), nil, 1},
		{"a list", "{ users(first: 10) { id name } }", nil, 10},
		{"through a variable", "query($n: Int) { users(first: $n) { id name } }", map[string]any{"n": 50}, 50},
		{"variable as decoded by encoding/json with UseNumber", "query($n: Int) { users(first: $n) { id } }", map[string]any{"n": json.Number("50")}, 50},
		{"variable default", "query($n: Int = 50) { users(first: $n) { id } }", nil, 50},
		{"variable given overrides default", "query($n: Int = 50) { users(first: $n) { id } }", map[string]any{"n": 10}, 10},
		{"variable absent, no default: not a list", "query($n: Int) { users(first: $n) { id } }", nil, 1},
		{"every slicing argument name", "{ a(last: 2) { x } b(limit: 2) { x } c(take: 2) { x } d(top: 2) { x } e(pageSize: 2) { x } f(perPage: 2) { x } g(per_page: 2) { x } h(count: 2) { x } }", nil, 16},
		{"the largest slicing argument", "{ users(limit: 3, first: 100) { id } }", nil, 100},
		{"other arguments do not make a list", "{ user(id: 5) { id name } }", nil, 1},
		{"nested lists", "{ users(first: 10) { friends(first: 5) { name } } }", nil, 10 + 50},
		{"relay edges and nodes do not multiply", "{ repos(first: 20) { edges { node { issues(first: 3) { nodes { id } } } } nodes { id } } }", nil, 20 + 60},
		{"skipped", "{ users(first: 50) @skip(if: true) { id } a: users(first: 2) @include(if: true) { id } }", nil, 2},
		{"skipped through a variable", "query($s: Boolean!) { users(first: 50) @skip(if: $s) { id } }", map[string]any{"s": true}, 1},
		{"an inline fragment", "{ ... on Query { users(first: 7) { id } } }", nil, 7},
		{"__typename is free", "{ __typename users(first: 10) { __typename id } }", nil, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := score(t, tt.query, tt.vars)
			if err != nil {
				t.Fatal(err)
			}
			if got.Score != tt.want {
				t.Errorf("score = %d, want %d", got.Score, tt.want)
			}
		})
	}
}

// TestSelectionCap: 1,000 field selections are allowed and 1,001 refused,
// aliases and fragment spreads counted as expanded.
func TestSelectionCap(t *testing.T) {
	aliases := func(n int) string {
		var b strings.Builder
		b.WriteString("{ ")
		for i := range n {
			fmt.Fprintf(&b, "a%d: login ", i)
		}
		return b.String() + "}"
	}
	if _, err := score(t, aliases(MaxSelections), nil); err != nil {
		t.Errorf("%d selections: %v", MaxSelections, err)
	}
	var tooMany *TooManySelectionsError
	if _, err := score(t, aliases(MaxSelections+1), nil); !errors.As(err, &tooMany) || !strings.Contains(err.Error(), "more than 1000 fields") {
		t.Errorf("%d selections: %v", MaxSelections+1, err)
	}
	// 2 spreads of a fragment of 500 fields, and one more field.
	fragment := "fragment F on Query " + aliases(500)
	if _, err := score(t, "{ x: viewer { ...F } y: viewer { ...F } } "+fragment, nil); !errors.As(err, &tooMany) {
		t.Errorf("two spreads of 500 fields under two fields: %v", err)
	}
}

func TestScoreSaturates(t *testing.T) {
	query := "{ a(first: 99999999999999999999) { b(first: 9223372036854775807) { c(first: 9223372036854775807) { d e } } } }"
	got, err := score(t, query, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Score != math.MaxInt {
		t.Errorf("score = %d, want saturation at %d", got.Score, math.MaxInt)
	}
}

// TestScoreReusedFragmentsStayCheap: a document whose fragments fan out two
// ways on each of twelve levels (4,096 spreads if expanded) is refused by
// the selection cap, and one within the cap is priced without walking every
// spread.
func TestScoreReusedFragmentsStayCheap(t *testing.T) {
	var b strings.Builder
	b.WriteString("{ ...F0 }\n")
	for level := range 12 {
		b.WriteString("fragment F" + itoa(level) + " on Q { ")
		for i := range 2 {
			b.WriteString("a" + itoa(i) + ": x(first: 10) { ...F" + itoa(level+1) + " } ")
		}
		b.WriteString("}\n")
	}
	b.WriteString("fragment F12 on Q { leaf }\n")
	_, err := score(t, b.String(), nil)
	var tooMany *TooManySelectionsError
	if !errors.As(err, &tooMany) {
		t.Errorf("an expansion of 4,096 spreads: %v, want the selection cap", err)
	}
	// Within the cap (2 + 4 + ... + 256 = 510 selections), the lists of
	// 10 nested eight deep price at more than 20^8.
	b.Reset()
	b.WriteString("{ ...F0 }\n")
	for level := range 8 {
		b.WriteString("fragment F" + itoa(level) + " on Q { a: x(first: 10) { ...F" + itoa(level+1) + " } b: x(first: 10) { ...F" + itoa(level+1) + " } }\n")
	}
	b.WriteString("fragment F8 on Q { leaf }\n")
	got, err := score(t, b.String(), nil)
	if err != nil || got.Score < 20*20*20*20*20*20*20*20 {
		t.Errorf("score = %d, %v; want at least 20^8", got.Score, err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestScoreErrors(t *testing.T) {
	for _, tt := range []struct{ query, want string }{
		{"{ ...A } fragment A on Q { ...A }", `fragment "A" spreads itself`},
		{"{ ...A } fragment A on Q { ...B } fragment B on Q { x ...A }", "spreads itself"},
		{"{ ...Nope }", `fragment "Nope"`},
	} {
		_, err := score(t, tt.query, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Score(%q) error = %v, want one containing %q", tt.query, err, tt.want)
		}
	}
}

func TestCostliest(t *testing.T) {
	got, err := score(t, "{ users(first: 50) { id friends(first: 3) { name } } viewer { login } alias: users(first: 2) { id } }", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Cost{
		{Path: "users", Size: 50, Items: 200, Argument: "first"},
		{Path: "users.friends", Size: 3, Items: 150, Argument: "first"},
		{Path: "alias", Size: 2, Items: 2, Argument: "first"},
	}
	if diff := cmp.Diff(want, got.Costliest); diff != "" {
		t.Errorf("costliest (-want +got):\n%s", diff)
	}
}

// nested returns a query whose selections nest depth levels, each field
// named name.
func nested(depth int, name string) string {
	return strings.Repeat("{ "+name+" ", depth) + strings.Repeat("}", depth)
}

// TestDepthLimit: MaxDepth levels are scored; one more is refused with its
// own message before any scoring, through fields, inline fragments and
// fragment spreads alike.
func TestDepthLimit(t *testing.T) {
	if res, err := score(t, nested(MaxDepth, "a"), nil); err != nil || res.Score != 1 {
		t.Errorf("%d levels: %v %v", MaxDepth, res.Score, err)
	}
	// wrap nests inner n fields deep, each level written by level(inner).
	wrap := func(n int, inner string, level func(string) string) string {
		for range n {
			inner = level(inner)
		}
		return inner
	}
	for name, query := range map[string]string{
		"fields":          nested(MaxDepth+1, "a"),
		"inline fragment": "{ " + wrap(MaxDepth, "x", func(in string) string { return "a { ... on T { " + in + " } }" }) + " }",
		"a fragment reused deeper": "{ x { ...F } " + wrap(MaxDepth-2, "...F", func(in string) string { return "b { " + in + " }" }) +
			" } fragment F on T { c { d { e } } }",
	} {
		_, err := score(t, query, nil)
		var tooDeep *TooDeepError
		if !errors.As(err, &tooDeep) || !strings.Contains(err.Error(), "more than 100 levels deep") {
			t.Errorf("%s: %v, want a *TooDeepError", name, err)
		}
	}
}

// TestScoreMemoryIsLinear: scoring a large deep document allocates in
// proportion to its size. The old scorer built every field's dotted path, so
// a 4 MB document 998 levels deep took 1.95 GiB.
func TestScoreMemoryIsLinear(t *testing.T) {
	name := strings.Repeat("n", 40_000)
	query := nested(MaxDepth, name) // 4 MB, the deepest allowed
	doc, op := parse(t, query)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := Score(doc, op, nil, nil)
	runtime.ReadMemStats(&after)
	if err != nil || res.Score != 1 {
		t.Fatalf("Score = %v, %v", res.Score, err)
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > uint64(len(query)) {
		t.Errorf("scoring a %d-byte document allocated %d bytes, more than its size", len(query), allocated)
	}
	for _, c := range res.Costliest {
		if len(c.Path) > maxPathBytes+len("…") {
			t.Errorf("a path of %d bytes", len(c.Path))
		}
	}
}

// FuzzScore: parsing, choosing and scoring any text never panics, and a
// score is never negative, with no schema and with two (connections, node
// lists beside edges, list arguments, introspection).
func FuzzScore(f *testing.F) {
	schemas := []*ast.Schema{nil, loadSchema(f, githubLike), loadSchema(f, starwars.Schema), loadSchema(f, reviewSDL)}
	for _, seed := range []string{
		"{ hero { friendsConnection(first: 1) { friends { friendsConnection(first: $n) { friends { name } } } } } }",
		`query($ids: [ID!]!) { nodes(ids: $ids) { login } a: nodes(ids: ["a", $n]) { login } options(names: "x") { name } }`,
		`{ s: __type(name: "User") { ...T } b: __type(name: "Query") { ...T } } fragment T on __Type { fields { args { name } } }`,
		"{ viewer { repositories { ...C } } } fragment C on RepositoryConnection { nodes { issues(first: 3) { countsByState { count } } } }",
		"{ users(first: 10) { id name } }", "query($n: Int = 5) { a(first: $n) @skip(if: false) { ...F } } fragment F on T { b(last: 3) { c } }",
		"{ a { ...F } } fragment F on T { ...G } fragment G on T { ...F }", nested(MaxDepth+1, "x"), "mutation M { m } query Q { q }",
		"{ a(first: 9223372036854775807) { b(first: 9223372036854775807) { c } } }",
		"{ conn(first: 1) { admins(first: 1000) { login } page { login } blocked(status: \"x\") { login } } odd(first: -2) { nodes(first: $n) { login } } }",
		"query($p: Page) { paged(pagination: $p) { login } a: paged(pagination: {offset: 1, pageSize: $n}) { login } pagedByDefault { login } sized(size: -5) { login } }",
		`{ labelled(labels: []) { login } nodes(ids: []) { friends(first: 3) { nodes { login } } } idsByDefault { login } byNumbers(numbers: [1, 2]) { login } }`,
		"{ users(take: -99999999999999999999) { id } __schema { directives { locations } } }",
	} {
		f.Add(seed, "")
	}
	f.Fuzz(func(t *testing.T, query, operationName string) {
		chosen, err := operation.Choose(query, operationName)
		if err != nil {
			return
		}
		vars := map[string]any{"n": 3, "ids": []any{"a", "b"}}
		for _, schema := range schemas {
			res, err := Score(chosen.Doc, chosen.Op, vars, schema)
			if err == nil && res.Score < 0 {
				t.Fatalf("score %d", res.Score)
			}
		}
	})
}
