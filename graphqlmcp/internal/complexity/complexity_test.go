package complexity

import (
	"encoding/json"
	"errors"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpforge/servers/graphqlmcp/internal/operation"
)

func score(t *testing.T, query string, vars map[string]any) (Result, error) {
	t.Helper()
	chosen, err := operation.Choose(query, "")
	if err != nil {
		t.Fatalf("Choose(%q): %v", query, err)
	}
	return Score(chosen.Doc, chosen.Op, vars)
}

func flatFields(n int) string {
	fields := make([]string, n)
	for i := range fields {
		fields[i] = "f" + string(rune('a'+i/26%26)) + string(rune('a'+i%26))
	}
	return "{ " + strings.Join(fields, " ") + " }"
}

func TestScore(t *testing.T) {
	tests := []struct {
		name  string
		query string
		vars  map[string]any
		want  int
	}{
		// The calibration points of the rule.
		{"100 flat scalar fields", flatFields(100), nil, 100},
		{"first 10", "{ users(first: 10) { id name } }", nil, 21},
		{"first 50", "{ users(first: 50) { id name } }", nil, 101},
		{"first 50 through a variable", "query($n: Int) { users(first: $n) { id name } }", map[string]any{"n": 50}, 101},
		{"variable as decoded by encoding/json with UseNumber", "query($n: Int) { users(first: $n) { id name } }", map[string]any{"n": json.Number("50")}, 101},
		{"variable default", "query($n: Int = 50) { users(first: $n) { id name } }", nil, 101},
		{"variable given overrides default", "query($n: Int = 50) { users(first: $n) { id name } }", map[string]any{"n": 10}, 21},
		{"variable absent, no default", "query($n: Int) { users(first: $n) { id name } }", nil, 3},

		// Multipliers.
		{"every pagination argument name", "{ a(last: 2) { x } b(limit: 2) { x } c(take: 2) { x } d(top: 2) { x } e(pageSize: 2) { x } f(perPage: 2) { x } g(per_page: 2) { x } h(count: 2) { x } }", nil, 8 * 3},
		{"first pagination argument wins", "{ users(limit: 3, first: 100) { id } }", nil, 4},
		{"zero multiplier counts as 1", "{ users(first: 0) { id } }", nil, 2},
		{"negative multiplier counts as 1", "{ users(first: -5) { id } }", nil, 2},
		{"string multiplier counts as 1", `{ users(first: "10") { id } }`, nil, 2},
		{"other arguments do not multiply", "{ user(id: 5) { id name } }", nil, 3},
		{"nested multipliers", "{ users(first: 10) { friends(first: 5) { name } } }", nil, 1 + 10*(1+5*1)},
		{"a leaf's multiplier is harmless", "{ users(first: 10) }", nil, 1},

		// Fragments.
		{"fragment counted at every spread", "{ a { ...F } b { ...F } } fragment F on T { x y }", nil, 2 * 3},
		{"inline fragments are summed", "{ node { ... on User { name } ... on Org { login title } } }", nil, 4},
		{"fragment under a multiplier", "{ users(first: 10) { ...F } } fragment F on User { id name }", nil, 21},

		// Directives.
		{"skip true removes", "{ a b @skip(if: true) }", nil, 1},
		{"skip false keeps", "{ a b @skip(if: false) }", nil, 2},
		{"include false removes", "{ a b @include(if: false) }", nil, 1},
		{"include through a variable", "query($on: Boolean!) { a b @include(if: $on) }", map[string]any{"on": false}, 1},
		{"skip on a fragment spread", "{ a ...F @skip(if: true) } fragment F on Q { b c }", nil, 1},
		{"skip on an inline fragment", "{ a ... @skip(if: true) { b c } }", nil, 1},
		{"skip with an unknown variable keeps", "query($s: Boolean) { a b @skip(if: $s) }", nil, 2},

		// Free meta fields.
		{"__typename is free", "{ __typename users(first: 10) { __typename id } }", nil, 11},
		{"__schema is free with its subtree", "{ __schema { types { name fields { name } } } }", nil, 0},
		{"__type is free", `{ __type(name: "User") { name } a }`, nil, 1},
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

// TestScoreReusedFragmentsStayCheap scores a document whose fragments fan
// out ten ways on each of twelve levels (10^12 spreads if expanded): scoring
// must remember fragment costs, not walk every spread.
func TestScoreReusedFragmentsStayCheap(t *testing.T) {
	var b strings.Builder
	b.WriteString("{ ...F0 }\n")
	for level := range 12 {
		b.WriteString("fragment F" + itoa(level) + " on Q { ")
		for i := range 10 {
			b.WriteString("a" + itoa(i) + ": x { ...F" + itoa(level+1) + " } ")
		}
		b.WriteString("}\n")
	}
	b.WriteString("fragment F12 on Q { leaf }\n")
	got, err := score(t, b.String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Score < 1_000_000_000_000 {
		t.Errorf("score = %d, want at least 10^12", got.Score)
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
	got, err := score(t, "{ users(first: 50) { id name } viewer { login } alias: users(first: 2) { id } }", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Cost{
		{Path: "users", Multiplier: 50, Total: 101},
		{Path: "alias", Multiplier: 2, Total: 3},
		{Path: "viewer", Multiplier: 1, Total: 2},
		{Path: "alias.id", Multiplier: 1, Total: 1},
		{Path: "users.id", Multiplier: 1, Total: 1},
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
	if res, err := score(t, nested(MaxDepth, "a"), nil); err != nil || res.Score != MaxDepth {
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
	chosen, err := operation.Choose(query, "")
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := Score(chosen.Doc, chosen.Op, nil)
	runtime.ReadMemStats(&after)
	if err != nil || res.Score != MaxDepth {
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
// score is never negative.
func FuzzScore(f *testing.F) {
	for _, seed := range []string{
		"{ users(first: 10) { id name } }", "query($n: Int = 5) { a(first: $n) @skip(if: false) { ...F } } fragment F on T { b(last: 3) { c } }",
		"{ a { ...F } } fragment F on T { ...G } fragment G on T { ...F }", nested(MaxDepth+1, "x"), "mutation M { m } query Q { q }",
		"{ a(first: 9223372036854775807) { b(first: 9223372036854775807) { c } } }",
	} {
		f.Add(seed, "")
	}
	f.Fuzz(func(t *testing.T, query, operationName string) {
		chosen, err := operation.Choose(query, operationName)
		if err != nil {
			return
		}
		res, err := Score(chosen.Doc, chosen.Op, map[string]any{"n": 3})
		if err == nil && res.Score < 0 {
			t.Fatalf("score %d", res.Score)
		}
	})
}
