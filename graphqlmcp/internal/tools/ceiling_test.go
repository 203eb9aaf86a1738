package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpforge/servers/graphqlmcp/internal/complexity"
	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestCeilingOnTheSampleAPI runs graphql_query against the sample API (the
// Star Wars example of graph-gophers/graphql-go) with the default ceiling
// of 100: a list beside a connection's edges is priced at the connection's
// size, and each refusal says which sizes were assumed and gives only
// advice that can work.
func TestCeilingOnTheSampleAPI(t *testing.T) {
	srv, rec := testservers.Start(t, testservers.Starwars())
	cfg := testConfig(t, srv.URL)
	cfg.Validate = true // the schema says which fields are lists
	h := connect(t, cfg, nil)

	t.Run("friends of a connection carry its size", func(t *testing.T) {
		// Priced 121 and refused while friends was a list of an assumed 10.
		res := h.call(t, "graphql_query", map[string]any{"query": "{ hero { friendsConnection(first: 1) { friends { friendsConnection(first: 1) { friends { name } } } } } }"})
		if res.IsError || !strings.Contains(mcptest.Text(res), `"friendsConnection"`) {
			t.Fatalf("refused or no data: %.600s", mcptest.Text(res))
		}
		if rec.Operations() != 1 {
			t.Errorf("%d operations sent, want 1", rec.Operations())
		}
	})

	sent := rec.Operations()
	for _, tt := range []struct {
		name, query string
		want, not   []string
	}{
		{
			name:  "lists that take no size argument",
			query: "{ hero { friends { friends { friends { name } } } } }",
			want: []string{
				"query complexity 1110 is over the ceiling of 100",
				"Costliest lists: hero.friends ×10 assumed (the field takes no size argument) = 1110 items, hero.friends.friends ×10 assumed = 1100 items, hero.friends.friends.friends ×10 assumed = 1000 items.",
				"To shrink it, select fewer of the lists that take no size argument (or fewer fields and lists nested inside them), or split it into several queries.",
				"whoever runs graphqlmcp can raise --maxComplexity above 100",
			},
			not: []string{"first/last/limit", "paginated"},
		},
		{
			name:  "connections given no first",
			query: "{ hero { friendsConnection { friends { friendsConnection { friends { friendsConnection { totalCount } } } } } } }",
			want: []string{
				"query complexity 1110 is over",
				"Costliest lists: hero.friendsConnection ×10 assumed (no first given) = 1110 items, hero.friendsConnection.friends.friendsConnection ×10 assumed = 1100 items",
				"To shrink it, give a small first to the lists whose size was assumed, select fewer lists inside paginated ones, or split it into several queries.",
				"raise --maxComplexity above 100",
			},
			not: []string{"takes no size argument", "first/last/limit"},
		},
		{
			name:  "sizes the query chose",
			query: "{ hero { friendsConnection(first: 50) { edges { node { friendsConnection(first: 20) { edges { cursor } } } } } } }",
			want: []string{
				"Costliest lists: hero.friendsConnection ×50 = 1050 items, hero.friendsConnection.edges.node.friendsConnection ×20 = 1000 items. " +
					"To shrink it, give first a smaller value, select fewer lists inside paginated ones, or split it into several queries.",
			},
			not: []string{"assumed", "--maxComplexity above"},
		},
		{
			name:  "both",
			query: "{ hero { friendsConnection(first: 20) { friends { friends { name } } } } }",
			want: []string{
				"Costliest lists: hero.friendsConnection ×20 = 220 items, hero.friendsConnection.friends.friends ×10 assumed (the field takes no size argument) = 200 items.",
				"To shrink it, give first a smaller value, select fewer of the lists that take no size argument (or fewer fields and lists nested inside them), select fewer lists inside paginated ones, or split it into several queries.",
				"raise --maxComplexity above 100",
			},
		},
		{
			name:  "introspection",
			query: "{ __schema { types { fields { args { name } } } } }",
			want:  []string{"Costliest lists: __schema.types ×", " (counted in the schema) = ", "To shrink it, read the schema with graphql_introspect instead of __schema or __type, or split it into several queries."},
			not:   []string{"assumed", "first/last/limit", "paginated"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := h.call(t, "graphql_query", map[string]any{"query": tt.query})
			text := mcptest.Text(res)
			if !res.IsError {
				t.Fatalf("not refused: %.300s", text)
			}
			for _, want := range tt.want {
				if !strings.Contains(text, want) {
					t.Errorf("refusal lacks %q:\n%s", want, text)
				}
			}
			for _, not := range tt.not {
				if strings.Contains(text, not) {
					t.Errorf("refusal says %q, advice that cannot apply:\n%s", not, text)
				}
			}
		})
	}
	if rec.Operations() != sent {
		t.Errorf("%d refused operations were sent", rec.Operations()-sent)
	}
}

// TestCeilingListArgument: through graphql_query, a list looked up by the
// ids it is given is priced by how many are given, in the query text or in
// a variable.
func TestCeilingListArgument(t *testing.T) {
	srv, rec := testservers.Start(t, testservers.Introspection("type Query { nodes(ids: [ID!]!): [Item]! } type Item { id: ID! name: String }"))
	cfg := testConfig(t, srv.URL)
	cfg.Validate = true
	h := connect(t, cfg, nil)
	ids := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = fmt.Sprint(i)
		}
		return out
	}
	const query = "query($ids: [ID!]!) { nodes(ids: $ids) { id name } }"
	res := h.call(t, "graphql_query", map[string]any{"query": query, "variables": map[string]any{"ids": ids(100)}})
	if res.IsError || rec.Operations() != 1 {
		t.Fatalf("100 ids: refused or not sent (%d operations): %.300s", rec.Operations(), mcptest.Text(res))
	}
	res = h.call(t, "graphql_query", map[string]any{"query": `{ nodes(ids: ["a", "b", "c"]) { id } }`})
	if res.IsError || rec.Operations() != 2 {
		t.Fatalf("3 ids in the text: refused or not sent (%d operations): %.300s", rec.Operations(), mcptest.Text(res))
	}
	res = h.call(t, "graphql_query", map[string]any{"query": query, "variables": map[string]any{"ids": ids(101)}})
	want := "query complexity 101 is over the ceiling of 100 (--maxComplexity), so it was not sent: it can return 101 list items. " +
		"Costliest lists: nodes ×101 (the values given to ids) = 101 items. To shrink it, pass fewer values to ids, or split it into several queries."
	if !res.IsError || mcptest.Text(res) != want {
		t.Errorf("101 ids:\n got %s\nwant %s", mcptest.Text(res), want)
	}
	if rec.Operations() != 2 {
		t.Errorf("the refused operation was sent")
	}
}

// TestOverCeilingSizings: each way a size is found is said as such, with
// the advice that fits it.
func TestOverCeilingSizings(t *testing.T) {
	for _, tt := range []struct {
		cost complexity.Cost
		want []string
	}{
		{complexity.Cost{Path: "defaulted", Size: 30, Items: 300, Sizing: complexity.SizeDefault, Argument: "first"},
			[]string{"defaulted ×30 (the default of first) = 300 items", "To shrink it, give first a value below its default, select fewer lists inside paginated ones, or split"}},
		{complexity.Cost{Path: "nodes", Size: 300, Items: 300, Sizing: complexity.SizeListLength, Argument: "ids"},
			[]string{"nodes ×300 (the values given to ids) = 300 items", "To shrink it, pass fewer values to ids, or split it into several queries."}},
	} {
		err := overCeiling(complexity.Result{Score: tt.cost.Items, Costliest: []complexity.Cost{tt.cost}}, 100)
		for _, want := range tt.want {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("refusal lacks %q:\n%s", want, err)
			}
		}
		if strings.Contains(err.Error(), "assumed") {
			t.Errorf("a size that was not assumed is said to be:\n%s", err)
		}
	}
}

// TestOverCeilingBounded: five lists of the longest paths, with argument
// names of 10,000 bytes from a hostile schema, make a refusal of a few
// kilobytes.
func TestOverCeilingBounded(t *testing.T) {
	path := "…" + strings.Repeat("p", 200)
	huge := strings.Repeat("é", 5000)
	var costs []complexity.Cost
	for _, sizing := range []complexity.Sizing{complexity.SizeGiven, complexity.SizeDefault, complexity.SizeListLength, complexity.SizeSchemaCount, complexity.SizeAssumed} {
		costs = append(costs, complexity.Cost{Path: path, Size: 1 << 40, Items: 1 << 62, Sizing: sizing, Argument: huge})
	}
	text := overCeiling(complexity.Result{Score: 1 << 62, Costliest: costs}, 100).Error()
	if len(text) > 3000 {
		t.Errorf("refusal of %d bytes, want at most 3000:\n%s", len(text), text)
	}
	if !strings.Contains(text, strings.Repeat("é", 30)+"…") || !strings.Contains(text, " ×1099511627776 assumed (no "+strings.Repeat("é", 30)+"… given) = ") {
		t.Errorf("long names not cut at %d bytes:\n%s", maxNameBytes, text)
	}
}

// TestOverCeilingNamesArguments: the advice names the arguments that size
// the lists shown, each as it applies (lower what was given, give less
// than a default, give what was not given), not first/last/limit for a
// list sized by count or pagination.pageSize.
func TestOverCeilingNamesArguments(t *testing.T) {
	for _, tt := range []struct {
		costs []complexity.Cost
		want  string
	}{
		{[]complexity.Cost{
			{Path: "users", Size: 200, Items: 400, Sizing: complexity.SizeGiven, Argument: "count"},
			{Path: "users.repos", Size: 2, Items: 400, Sizing: complexity.SizeGiven, Argument: "first"},
			{Path: "a", Size: 2, Items: 4, Sizing: complexity.SizeGiven, Argument: "count"},
		}, "To shrink it, give count or first a smaller value, select fewer lists inside paginated ones, or split it into several queries."},
		{[]complexity.Cost{
			{Path: "paged", Size: 200, Items: 200, Sizing: complexity.SizeDefault, Argument: "pagination.pageSize"},
		}, "To shrink it, give pagination.pageSize a value below its default, select fewer lists inside paginated ones, or split it into several queries."},
		{[]complexity.Cost{
			{Path: "paged", Size: 10, Items: 200, Sizing: complexity.SizeAssumed, Argument: "pagination.pageSize"},
			{Path: "x", Size: 10, Items: 100, Sizing: complexity.SizeAssumed, Argument: "first/last"},
		}, "To shrink it, give a small pagination.pageSize or first/last to the lists whose size was assumed, select fewer lists inside paginated ones, or split it into several queries."},
	} {
		text := overCeiling(complexity.Result{Score: tt.costs[0].Items, Costliest: tt.costs}, 100).Error()
		if !strings.Contains(text, tt.want) {
			t.Errorf("refusal lacks %q:\n%s", tt.want, text)
		}
		if strings.Contains(text, "first/last/limit") {
			t.Errorf("refusal names arguments no list shown has:\n%s", text)
		}
	}
}

// TestOverCeilingManySmallLists: an operation over the ceiling by many
// lists of one item (150 aliases of users(first: 1)) is not told to give
// first a smaller value, which cannot help, but to select fewer lists;
// and a list of one item is "1 item".
func TestOverCeilingManySmallLists(t *testing.T) {
	var costs []complexity.Cost
	for _, path := range []string{"a1", "a2", "a3", "a4", "a5"} {
		costs = append(costs, complexity.Cost{Path: path, Size: 1, Items: 1, Sizing: complexity.SizeGiven, Argument: "first"})
	}
	text := overCeiling(complexity.Result{Score: 150, Costliest: costs}, 100).Error()
	want := "Costliest lists: a1 ×1 = 1 item, a2 ×1 = 1 item, a3 ×1 = 1 item, a4 ×1 = 1 item, a5 ×1 = 1 item. " +
		"To shrink it, select fewer lists, or split it into several queries."
	if !strings.Contains(text, want) {
		t.Errorf("refusal lacks %q:\n%s", want, text)
	}
}
