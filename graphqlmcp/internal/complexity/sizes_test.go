package complexity

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/graph-gophers/graphql-go/example/starwars"
)

// TestConnectionListsCarried: in a connection, a list of its node type
// beside edges and pageInfo (FriendsConnection.friends on the sample API)
// carries the connection's size as edges and nodes do, and the
// connection's other lists are its own, counted once per connection.
func TestConnectionListsCarried(t *testing.T) {
	sw := loadSchema(t, starwars.Schema)
	gh := loadSchema(t, githubLike)
	repo := `repository(owner: "o", name: "n")`
	for _, tt := range []struct {
		name  string
		query string
		want  int
	}{
		// Scored 1 + 10 + 10×(1 + 10) = 121 when friends was a list of 10.
		{"friends of friends, one each", "{ hero { friendsConnection(first: 1) { friends { friendsConnection(first: 1) { friends { name } } } } } }", 2},
		{"friends beside edges count once", "{ hero { friendsConnection(first: 3) { totalCount friends { name } edges { node { name } } pageInfo { hasNextPage } } } }", 3},
		{"nested connections multiply", "{ hero { friendsConnection(first: 5) { friends { friendsConnection(first: 2) { friends { name } } } } } }", 5 + 5*2},
		{"an unsized connection is assumed once", "{ hero { friendsConnection { friends { name } } } }", AssumedListSize},
		{"through a fragment on the connection", "{ hero { friendsConnection(first: 2) { ...F } } } fragment F on FriendsConnection { friends { friendsConnection(first: 2) { totalCount } } }", 2 + 2*2},
		{"a plain list is still a list", "{ hero { friends { friends { name } } } }", AssumedListSize + AssumedListSize*AssumedListSize},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scoreWith(t, sw, tt.query, nil)
			if err != nil || got.Score != tt.want {
				t.Errorf("score = %d, %v; want %d (costliest %v)", got.Score, err, tt.want, got.Costliest)
			}
		})
	}
	// countsByState is one list per connection, not one per issue: 50
	// issues and 10 counts, not 50 + 50×10.
	got, err := scoreWith(t, gh, "{ "+repo+" { issues(first: 50) { countsByState { count } nodes { title } } } }", nil)
	if err != nil || got.Score != 50+AssumedListSize {
		t.Errorf("a connection's own list: score = %d, %v; want %d", got.Score, err, 50+AssumedListSize)
	}
	want := []Cost{
		{Path: "repository.issues", Size: 50, Items: 60, Argument: "first"},
		{Path: "repository.issues.countsByState", Size: AssumedListSize, Items: AssumedListSize, Sizing: SizeAssumed},
	}
	if diff := cmp.Diff(want, got.Costliest); diff != "" {
		t.Errorf("costliest (-want +got):\n%s", diff)
	}
	// Within a connection's own list, each item still multiplies what it
	// holds, and a connection's own fields under each of its items do too.
	got, err = scoreWith(t, gh, "{ viewer { repositories(first: 4) { nodes { issues(first: 3) { countsByState { count } } } } } }", nil)
	if want := 4 + 4*(3+AssumedListSize); err != nil || got.Score != want {
		t.Errorf("own lists of nested connections: score = %d, %v; want %d", got.Score, err, want)
	}
}

// TestListArgumentSizes: a list that takes no slicing argument and is
// given ids (nodes(ids: [...])) is sized by how many, from a literal, a
// variable or its default, and given other scalars, by how many when more
// than assumed; lists of enum values and fields that take a slicing
// argument are not read so.
func TestListArgumentSizes(t *testing.T) {
	schema := loadSchema(t, githubLike)
	for _, tt := range []struct {
		name     string
		query    string
		vars     map[string]any
		want     int
		sizing   Sizing
		argument string
	}{
		{"a literal list", `{ nodes(ids: ["a", "b", "c"]) { login } }`, nil, 3, SizeListLength, "ids"},
		{"an empty list sizes nothing", `{ nodes(ids: []) { login } }`, nil, AssumedListSize, SizeAssumed, ""},
		{"one value is a list of one", `{ nodes(ids: "a") { login } }`, nil, 1, SizeListLength, "ids"},
		{"a list of variables", `query($a: ID!, $b: ID!) { nodes(ids: [$a, $b]) { login } }`, map[string]any{"a": "1", "b": "2"}, 2, SizeListLength, "ids"},
		{"a variable holding a list", `query($ids: [ID!]!) { nodes(ids: $ids) { login } }`, map[string]any{"ids": []any{"a", "b", "c", "d", "e"}}, 5, SizeListLength, "ids"},
		{"a variable's default", `query($ids: [ID!]! = ["a", "b"]) { nodes(ids: $ids) { login } }`, nil, 2, SizeListLength, "ids"},
		{"a variable holding one value", `query($ids: [ID!]!) { nodes(ids: $ids) { login } }`, map[string]any{"ids": "a"}, 1, SizeListLength, "ids"},
		{"the looked-up items' lists multiply", `{ nodes(ids: ["a", "b"]) { repositories(first: 5) { nodes { name } } } }`, nil, 2 + 2*5, SizeListLength, "ids"},
		{"a few names may filter", `{ options(names: ["Go", "C"]) { name } }`, nil, AssumedListSize, SizeAssumed, ""},
		{"more names than assumed", `{ options(names: ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"]) { name } }`, nil, 11, SizeListLength, "names"},
		{"a null list is not read", `query($n: [String!]) { options(names: $n) { name } }`, map[string]any{"n": nil}, AssumedListSize, SizeAssumed, ""},
		{"a list not given", `{ options { name } }`, nil, AssumedListSize, SizeAssumed, ""},
		{"a list of enum values filters by kind", `{ byKind(kinds: [ISSUE]) { login } }`, nil, AssumedListSize, SizeAssumed, ""},
		{"a field with slicing arguments is not sized by its ids", `{ filtered(ids: ["a"]) { login } }`, nil, AssumedListSize, SizeAssumed, "first/last"},
		{"its slicing argument is", `{ filtered(ids: ["a"], last: 7) { login } }`, nil, 7, SizeGiven, "last"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scoreWith(t, schema, tt.query, tt.vars)
			if err != nil || got.Score != tt.want {
				t.Fatalf("score = %d, %v; want %d (costliest %v)", got.Score, err, tt.want, got.Costliest)
			}
			if c := got.Costliest[0]; c.Sizing != tt.sizing || c.Argument != tt.argument {
				t.Errorf("the list's sizing = %v %q, want %v %q", c.Sizing, c.Argument, tt.sizing, tt.argument)
			}
		})
	}
}

// TestSizingReported: each costly list says where its size comes from,
// so that a refusal can tell a chosen size from an assumed one.
func TestSizingReported(t *testing.T) {
	schema := loadSchema(t, githubLike)
	locations := 0 // the most any directive has
	for _, d := range schema.Directives {
		locations = max(locations, len(d.Locations))
	}
	for _, tt := range []struct {
		query string
		vars  map[string]any
		want  Cost
	}{
		{"{ users(count: 5, first: 9) { login } }", nil, Cost{Path: "users", Size: 9, Items: 9, Sizing: SizeGiven, Argument: "first"}},
		{"{ users(count: 9, first: 9) { login } }", nil, Cost{Path: "users", Size: 9, Items: 9, Sizing: SizeGiven, Argument: "count"}},
		{"{ paged(pagination: {pageSize: 40}) { login } }", nil, Cost{Path: "paged", Size: 40, Items: 40, Sizing: SizeGiven, Argument: "pagination.pageSize"}},
		{"query($p: Page) { paged(pagination: $p) { login } }", map[string]any{"p": map[string]any{"pageSize": 6, "offset": 6}}, Cost{Path: "paged", Size: 6, Items: 6, Sizing: SizeGiven, Argument: "pagination.pageSize"}},
		{"{ defaulted { nodes { login } } }", nil, Cost{Path: "defaulted", Size: 30, Items: 30, Sizing: SizeDefault, Argument: "first"}},
		{"{ topics }", nil, Cost{Path: "topics", Size: AssumedListSize, Items: AssumedListSize, Sizing: SizeAssumed}},
		{"{ viewer { repositories { nodes { name } } } }", nil, Cost{Path: "viewer.repositories", Size: AssumedListSize, Items: AssumedListSize, Sizing: SizeAssumed, Argument: "first/last"}},
		{"{ __schema { directives { name } } }", nil, Cost{Path: "__schema.directives", Size: len(schema.Directives), Items: len(schema.Directives), Sizing: SizeSchemaCount}},
		{"{ __schema { directives { locations } } }", nil, Cost{Path: "__schema.directives.locations", Size: locations, Items: len(schema.Directives) * locations, Sizing: SizeSchemaCount}},
	} {
		got, err := scoreWith(t, schema, tt.query, tt.vars)
		if err != nil {
			t.Fatalf("%s: %v", tt.query, err)
		}
		if diff := cmp.Diff(tt.want, got.Costliest[len(got.Costliest)-1]); diff != "" {
			t.Errorf("%s: its list (-want +got):\n%s", tt.query, diff)
		}
	}
}

// TestFragmentPerIntrospectedType: a fragment on __Type spread under two
// __type fields is priced by each named type's own counts; the memo of
// fragments once keyed it without the type, so the small type's price
// stood for the big one's.
func TestFragmentPerIntrospectedType(t *testing.T) {
	var big strings.Builder
	for i := range 300 {
		fmt.Fprintf(&big, " f%d: Int", i)
	}
	schema := loadSchema(t, "type Query { small: Small big: Big } type Small { a: Int } type Big {"+big.String()+" }")
	const fragment = " fragment F on __Type { fields { name } }"
	for _, tt := range []struct {
		query string
		want  int
	}{
		{`{ b: __type(name: "Big") { ...F } }` + fragment, 300},
		{`{ s: __type(name: "Small") { ...F } b: __type(name: "Big") { ...F } }` + fragment, 1 + 300},
		{`{ b: __type(name: "Big") { ...F } s: __type(name: "Small") { ...F } }` + fragment, 300 + 1},
		{`{ s: __type(name: "Small") { ...F } b: __type(name: "Big") { ... on __Type { ...F } } }` + fragment, 1 + 300},
	} {
		got, err := scoreWith(t, schema, tt.query, nil)
		if err != nil || got.Score != tt.want {
			t.Errorf("%s: score = %d, %v; want %d", tt.query, got.Score, err, tt.want)
		}
	}
}
