package complexity

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// reviewSDL holds the shapes by which an operation was once priced below
// what it can return: lists beside a connection's nodes that are not its
// page, lists filtered by the values given, and sizes set by defaults
// inside input objects.
const reviewSDL = `
type Query {
  conn(first: Int): UserConnection!
  odd(first: Int): OddConnection!
  nodes(ids: [ID!]!): [User]!
  labelled(labels: [String!]): [User!]!
  byNumbers(numbers: [Int!]): [User!]!
  idsByDefault(ids: [ID!] = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"]): [User]!
  paged(pagination: Page): [User!]!
  pagedByDefault(pagination: Page = {pageSize: 500}): [User!]!
  pagedDefaultTaken(pagination: Page = {offset: 5}): [User!]!
  unsizedPage(pagination: Cursor): [User!]!
  sized(size: Int, page: Int): [User!]!
  avatar(size: Int): String
  lookup(where: Where): [User]!
}
input Page { pageSize: Int = 200, offset: Int }
input Cursor { after: String }
input Where { ids: [ID!] names: [String!] kind: String }
type User { login: String friends(first: Int): UserConnection! }
type UserConnection {
  nodes: [User]
  edges: [UserEdge]
  page: [User]
  admins(first: Int): [User]
  blocked(status: String): [User]
}
type UserEdge { node: User }
type OddConnection { nodes(first: Int): [User] edges(first: Int): [UserEdge] }
`

// TestNodeListsCarriedOnlyWhenThePage: beside a connection's edges and
// nodes, only a list of its node type that takes no argument is its page;
// one with its own size (admins(first: 1000)) or a filter of its own
// (blocked(status:)) is a list of its own, counted once per connection.
// Each was once priced at the connection's size, first: 1 making 1,000
// admins cost 1.
func TestNodeListsCarriedOnlyWhenThePage(t *testing.T) {
	schema := loadSchema(t, reviewSDL)
	for _, tt := range []struct {
		name, query string
		want        int
	}{
		{"the page beside nodes", "{ conn(first: 3) { page { login } nodes { login } } }", 3},
		{"a list of the node type with its own first", "{ conn(first: 1) { admins(first: 1000) { login } } }", 1 + 1000},
		{"aliased nodes", "{ conn(first: 1) { nodes: admins(first: 50) { login } } }", 1 + 50},
		{"nodes with a first of their own", "{ odd(first: 1) { nodes(first: 50) { login } } }", 1 + 50},
		{"edges with a first of their own", "{ odd(first: 2) { edges(first: 50) { node { login } } } }", 2 + 50},
		{"a list of the node type with a filter of its own", `{ conn(first: 2) { blocked(status: "x") { login } } }`, 2 + AssumedListSize},
		{"own lists under each friend", "{ conn(first: 2) { nodes { friends(first: 1) { admins(first: 30) { login } } } } }", 2 + 2*(1+30)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scoreWith(t, schema, tt.query, nil)
			if err != nil || got.Score != tt.want {
				t.Errorf("score = %d, %v; want %d (costliest %v)", got.Score, err, tt.want, got.Costliest)
			}
		})
	}
}

// TestNodesSizedWithoutSchema: without a schema, nodes or edges given a
// slicing argument of their own are a list of their own, not the
// enclosing one's items.
func TestNodesSizedWithoutSchema(t *testing.T) {
	got, err := score(t, "{ repos(first: 10) { nodes(first: 1000) { id } edges { node { id } } } }", nil)
	if want := 10 + 10*1000; err != nil || got.Score != want {
		t.Errorf("score = %d, %v; want %d (costliest %v)", got.Score, err, want, got.Costliest)
	}
}

// TestListArgumentsBoundBelow: only ids, one item each, size a list
// exactly. Other lists of scalars may filter (labels: ["bug"] can match
// every issue), so they size it at no less than AssumedListSize; an empty
// list sizes nothing (a filter of none is often no filter); and a list
// argument's default counts when it is not given. Each was once priced
// lower: a label at 1 and an empty list at 0, with every list under it.
func TestListArgumentsBoundBelow(t *testing.T) {
	schema := loadSchema(t, reviewSDL)
	labels := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%q ", fmt.Sprint("l", i))
		}
		return b.String()
	}
	for _, tt := range []struct {
		name, query string
		vars        map[string]any
		want        int
		sizing      Sizing
		argument    string
	}{
		{"one label", `{ labelled(labels: ["bug"]) { friends(first: 100) { nodes { login } } } }`, nil, AssumedListSize + AssumedListSize*100, SizeAssumed, ""},
		{"more labels than assumed", "{ labelled(labels: [" + labels(12) + "]) { login } }", nil, 12, SizeListLength, "labels"},
		{"numbers from a variable", "query($n: [Int!]) { byNumbers(numbers: $n) { login } }", map[string]any{"n": []any{1, 2}}, AssumedListSize, SizeAssumed, ""},
		{"no ids", `{ nodes(ids: []) { friends(first: 100) { nodes { login } } } }`, nil, AssumedListSize + AssumedListSize*100, SizeAssumed, ""},
		{"no ids in a variable", `query($ids: [ID!]!) { nodes(ids: $ids) { login } }`, map[string]any{"ids": []any{}}, AssumedListSize, SizeAssumed, ""},
		{"no labels", `{ labelled(labels: []) { login } }`, nil, AssumedListSize, SizeAssumed, ""},
		{"two ids", `{ nodes(ids: ["a", "b"]) { friends(first: 100) { nodes { login } } } }`, nil, 2 + 2*100, SizeListLength, "ids"},
		{"ids by default", `{ idsByDefault { login } }`, nil, 12, SizeListLength, "ids"},
		{"ids given over their default", `{ idsByDefault(ids: ["a"]) { login } }`, nil, 1, SizeListLength, "ids"},
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

// TestInputObjectSizeDefaults: a slicing field of an input object
// argument sizes a list by its default when the object given leaves it
// out, and an argument's default object sizes it when the argument is not
// given; a list that takes its size inside an input object says so. Each
// was once assumed to hold 10, pageSize's default of 200 or 500 unread.
func TestInputObjectSizeDefaults(t *testing.T) {
	schema := loadSchema(t, reviewSDL)
	for _, tt := range []struct {
		name, query string
		vars        map[string]any
		want        Cost
	}{
		{"the input field's default", "{ paged(pagination: {offset: 1}) { login } }", nil,
			Cost{Path: "paged", Size: 200, Items: 200, Sizing: SizeDefault, Argument: "pagination.pageSize"}},
		{"the input field's default, the object from a variable", "query($p: Page) { paged(pagination: $p) { login } }", map[string]any{"p": map[string]any{"offset": 1}},
			Cost{Path: "paged", Size: 200, Items: 200, Sizing: SizeDefault, Argument: "pagination.pageSize"}},
		{"a size field whose variable is absent", "query($n: Int) { paged(pagination: {pageSize: $n}) { login } }", nil,
			Cost{Path: "paged", Size: 200, Items: 200, Sizing: SizeDefault, Argument: "pagination.pageSize"}},
		{"the size given", "{ paged(pagination: {pageSize: 3}) { login } }", nil,
			Cost{Path: "paged", Size: 3, Items: 3, Sizing: SizeGiven, Argument: "pagination.pageSize"}},
		{"no object, no default", "{ paged { login } }", nil,
			Cost{Path: "paged", Size: AssumedListSize, Items: AssumedListSize, Sizing: SizeAssumed, Argument: "pagination.pageSize"}},
		{"a null object", "{ paged(pagination: null) { login } }", nil,
			Cost{Path: "paged", Size: AssumedListSize, Items: AssumedListSize, Sizing: SizeAssumed, Argument: "pagination.pageSize"}},
		{"the argument's default object", "{ pagedByDefault { login } }", nil,
			Cost{Path: "pagedByDefault", Size: 500, Items: 500, Sizing: SizeDefault, Argument: "pagination.pageSize"}},
		{"the input field's default inside the argument's default", "{ pagedDefaultTaken { login } }", nil,
			Cost{Path: "pagedDefaultTaken", Size: 200, Items: 200, Sizing: SizeDefault, Argument: "pagination.pageSize"}},
		{"an input object with no slicing field", `{ unsizedPage(pagination: {after: "x"}) { login } }`, nil,
			Cost{Path: "unsizedPage", Size: AssumedListSize, Items: AssumedListSize, Sizing: SizeAssumed}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scoreWith(t, schema, tt.query, tt.vars)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]Cost{tt.want}, got.Costliest); diff != "" {
				t.Errorf("costliest (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDirectiveLocationsCounted: a directive's locations are counted in
// the schema (the most any directive has), not assumed to be 10: a
// directive may stand in all 19.
func TestDirectiveLocationsCounted(t *testing.T) {
	schema := loadSchema(t, `type Query { a: Int }
directive @everywhere on QUERY | MUTATION | SUBSCRIPTION | FIELD | FRAGMENT_DEFINITION | FRAGMENT_SPREAD | INLINE_FRAGMENT | VARIABLE_DEFINITION |
  SCHEMA | SCALAR | OBJECT | FIELD_DEFINITION | ARGUMENT_DEFINITION | INTERFACE | UNION | ENUM | ENUM_VALUE | INPUT_OBJECT | INPUT_FIELD_DEFINITION`)
	got, err := scoreWith(t, schema, "{ __schema { directives { locations } } }", nil)
	directives := len(schema.Directives)
	if want := directives + directives*19; err != nil || got.Score != want {
		t.Errorf("score = %d, %v; want %d (costliest %v)", got.Score, err, want, got.Costliest)
	}
	if c := got.Costliest[len(got.Costliest)-1]; c.Path != "__schema.directives.locations" || c.Sizing != SizeSchemaCount {
		t.Errorf("locations priced as %+v, want counted in the schema", c)
	}
}

// TestSizeArgument: with the schema, a list's size argument may be named
// size (Artsy's artworks(size: 100)); without it, size is not taken for
// one, as it sizes images (avatarUrl(size: 400)) more often than lists.
// A list given size: 500 was once assumed to hold 10.
func TestSizeArgument(t *testing.T) {
	schema := loadSchema(t, reviewSDL)
	for _, tt := range []struct {
		query string
		want  []Cost
	}{
		{"{ sized(size: 500, page: 2) { login } }", []Cost{{Path: "sized", Size: 500, Items: 500, Sizing: SizeGiven, Argument: "size"}}},
		{"{ sized { login } }", []Cost{{Path: "sized", Size: AssumedListSize, Items: AssumedListSize, Sizing: SizeAssumed, Argument: "size"}}},
		{"{ avatar(size: 400) }", []Cost{}},
	} {
		got, err := scoreWith(t, schema, tt.query, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got.Costliest); diff != "" {
			t.Errorf("%s: costliest (-want +got):\n%s", tt.query, diff)
		}
	}
	if got, err := score(t, "{ viewer { avatarUrl(size: 400) } }", nil); err != nil || got.Score != 1 {
		t.Errorf("without a schema, avatarUrl(size: 400) scored %d, %v; want 1", got.Score, err)
	}
}

// TestNegativeSizes: a negative size counts as its magnitude: Prisma's
// take: -1000 takes the last 1,000, and a server that refuses it loses
// nothing by the count. Each once counted 0, and so did every list under
// it.
func TestNegativeSizes(t *testing.T) {
	for _, tt := range []struct {
		query string
		vars  map[string]any
		want  int
	}{
		{"{ users(take: -1000) { id } }", nil, 1000},
		{"{ users(take: -2) { friends(first: 50) { id } } }", nil, 2 + 2*50},
		{"query($n: Int) { users(take: $n) { id } }", map[string]any{"n": -300}, 300},
		{"query($n: Int) { users(take: $n) { id } }", map[string]any{"n": json.Number("-300")}, 300},
		{"{ users(take: -99999999999999999999) { id } }", nil, math.MaxInt},
		{"query($n: Int) { users(take: $n) { id } }", map[string]any{"n": -1e300}, math.MaxInt},
	} {
		got, err := score(t, tt.query, tt.vars)
		if err != nil || got.Score != tt.want {
			t.Errorf("%s %v: score = %d, %v; want %d", tt.query, tt.vars, got.Score, err, tt.want)
		}
	}
	schema := loadSchema(t, "type Query { users(take: Int = -40): [User!]! } type User { id: ID }")
	if got, err := scoreWith(t, schema, "{ users { id } }", nil); err != nil || got.Score != 40 {
		t.Errorf("a default of -40: score = %d, %v; want 40", got.Score, err)
	}
}

// TestListsInsideInputObjects: lists of scalars one level inside an input
// object (where: {ids: [...]}) filter, so they size a list that takes no
// slicing argument when longer than AssumedListSize. 500 ids there were
// once priced at the assumed 10.
func TestListsInsideInputObjects(t *testing.T) {
	schema := loadSchema(t, reviewSDL)
	ids := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = fmt.Sprint(i)
		}
		return out
	}
	for _, tt := range []struct {
		name, query string
		vars        map[string]any
		want        Cost
	}{
		{"a literal", `{ lookup(where: {ids: ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"]}) { login } }`, nil,
			Cost{Path: "lookup", Size: 12, Items: 12, Sizing: SizeListLength, Argument: "where.ids"}},
		{"a variable object", `query($w: Where) { lookup(where: $w) { login } }`, map[string]any{"w": map[string]any{"ids": ids(500), "names": []any{"x"}}},
			Cost{Path: "lookup", Size: 501, Items: 501, Sizing: SizeListLength, Argument: "where.ids+where.names"}},
		{"a variable inside", `query($ids: [ID!]) { lookup(where: {ids: $ids}) { login } }`, map[string]any{"ids": ids(30)},
			Cost{Path: "lookup", Size: 30, Items: 30, Sizing: SizeListLength, Argument: "where.ids"}},
		{"a few ids filter", `{ lookup(where: {ids: ["a"]}) { login } }`, nil,
			Cost{Path: "lookup", Size: AssumedListSize, Items: AssumedListSize, Sizing: SizeAssumed}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scoreWith(t, schema, tt.query, tt.vars)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]Cost{tt.want}, got.Costliest); diff != "" {
				t.Errorf("costliest (-want +got):\n%s", diff)
			}
		})
	}
}
