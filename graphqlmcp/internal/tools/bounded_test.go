package tools

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/graph-gophers/graphql-go/example/starwars"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/mcpforge/servers/graphqlmcp/internal/operation"
	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

func repeat(n int, format string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, format, i)
	}
	return b.String()
}

// worstDocuments are the documents that made gqlparser's rules run long or
// grow large (the two), and the costliest shapes the bounds still
// let through, each as large as they allow.
func worstDocuments() map[string]string {
	args := repeat(operation.MaxArguments, "a%d: 1 ")
	sameNameSets := func(field string, perSet int) string {
		// Selection sets of one response name (hero), which the overlap
		// rule compares pairwise, each with the most fields of one
		// response name that fields, aliases and tokens allow: every
		// pair of those is compared too.
		sets := min(operation.MaxFields/(perSet+1), operation.MaxAliases/perSet, operation.MaxAllArguments/(perSet*(strings.Count(field, ":")+1)))
		return "{ " + strings.Repeat("hero { "+strings.Repeat(field, perSet)+"} ", sets) + "}"
	}
	chain := func(n int, leaf string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "fragment F%d on Character { ...F%d } ", i, i+1)
		}
		return b.String() + fmt.Sprintf("fragment F%d on Character { %s }", n, leaf)
	}
	return map[string]string{
		"a chain of 1,000 fragments":                            "{ hero { ...F0 } } " + chain(operation.MaxSpreads-1, "name"),
		"a chain of 5,000 fragments, spread 250 times (190 KB)": "{ " + repeat(250, "a%d: hero { ...F0 } ") + "} " + chain(5000, "name"),
		"many fragments in one selection": "{ hero { " + repeat(operation.MaxSelectionSpreads, "...F%d ") + "} } " +
			repeat(operation.MaxSelectionSpreads, "fragment F%[1]d on Character { a%[1]d: name b%[1]d: id c%[1]d: appearsIn d%[1]d: friends { name } } "),
		"3,000 x: aliases (35 KB)":           "{ " + repeat(3000, `x: echo(s:"%d") x: a `)[:35_500] + " }",
		"25,000 copies of one field (50 KB)": "{ " + strings.Repeat("a ", 25_000) + "}",
		"conflicting pairs":                  sameNameSets(`x: name x: id `, operation.MaxSameName/2),
		"conflicting pairs, most arguments":  sameNameSets(`friends(`+args+`) { name } `, operation.MaxAllArguments/operation.MaxArguments/2),
		"same field, most arguments":         "{ " + strings.Repeat(`hero(`+args+`) { name } `, operation.MaxAllArguments/operation.MaxArguments) + "}",
		"conflicts through fragments":        "{ hero { " + repeat(operation.MaxSameName, "...F%d ") + "} } " + repeat(operation.MaxSameName, "fragment F%[1]d on Character { x: friends(a: %[1]d) { x: name(b: %[1]d) } }"),
		"deepest":                            strings.Repeat("{ hero ", operation.MaxDepth) + strings.Repeat("}", operation.MaxDepth),
		"largest string values":              `{ hero(episode: "` + strings.Repeat("x", operation.MaxQueryBytes-40) + `") { name } }`,
		"most tokens":                        "{ hero(episode: [" + strings.Repeat("1 ", operation.MaxTokens-20) + "]) { name } }",
		"many unknown fields, errors capped": "{ " + repeat(operation.MaxFields, "f%d ") + "}",
		"deep list values":                   "{ hero(episode: " + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + ") { name } }",
	}
}

// TestHugeDocumentsBounded: every call, whatever its document, is answered,
// allocates less than 256 MB, and leaves the server serving; the two
// documents (named with their size) are refused, and every refusal is short.
// The two documents took 1.5 GiB and 30 s of one core before
// validation was bounded. The memory is the bound here: a time would change
// with the machine's load (BenchmarkWorstDocuments gives the times), so the
// call's deadline is only a safety net against a runaway.
func TestHugeDocumentsBounded(t *testing.T) {
	srv, _ := testservers.Start(t, testservers.Starwars())
	h := connect(t, validating(t, srv.URL), nil)
	if res := h.call(t, "graphql_query", map[string]any{"query": "{ hero { name } }"}); res.IsError {
		t.Fatal(mcptest.Text(res))
	}
	for name, query := range worstDocuments() {
		t.Run(name, func(t *testing.T) {
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			bound := 2 * time.Minute
			ctx, cancel := context.WithTimeout(context.Background(), bound)
			defer cancel()
			start := time.Now()
			res, err := h.session.CallTool(ctx, &mcp.CallToolParams{Name: "graphql_query", Arguments: map[string]any{"query": query}})
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatalf("no answer within %v: %v", bound, err)
			}
			if grown := after.TotalAlloc - before.TotalAlloc; grown > 256<<20 {
				t.Errorf("the call allocated %d MB, over 256 MB", grown>>20)
			}
			text := mcptest.Text(res)
			if strings.Contains(name, "(") && !res.IsError {
				t.Errorf("a %d-byte document was sent: %.300s", len(query), text)
			}
			if res.IsError && len(text) > 4000 {
				t.Errorf("the refusal is %d bytes long", len(text))
			}
			t.Logf("%d bytes: %v, %d MB allocated: %.200s", len(query), elapsed, (after.TotalAlloc-before.TotalAlloc)>>20, text)
		})
	}
	if res := h.call(t, "graphql_query", map[string]any{"query": "{ hero { name } }"}); res.IsError {
		t.Fatalf("the server no longer answers: %s", mcptest.Text(res))
	}
}

// BenchmarkWorstDocuments: the rules check of each worst document, after
// operation.Choose; B/op shows the memory, ns/op the time.
func BenchmarkWorstDocuments(b *testing.B) {
	checker := starwarsChecker(b)
	rules := defaultRules()
	for name, query := range worstDocuments() {
		b.Run(strings.ReplaceAll(name, " ", "_"), func(b *testing.B) {
			b.SetBytes(int64(len(query)))
			b.ReportAllocs()
			for b.Loop() {
				if chosen, err := operation.Choose(query, ""); err == nil {
					checkRules(rules, checker, chosen.Sent)
				}
			}
		})
	}
}

// FuzzRulesBounded: a document of up to operation.MaxQueryBytes made of
// many copies of a fuzzed part, followed by many copies of another (each
// copy formatted with its index as %[1]d and the next as %[2]d, so that
// fragments can be named apart and chained), is, once operation.Choose
// accepts it, checked by the rules within a bounded time and with at most
// maxValidationErrors errors kept.
func FuzzRulesBounded(f *testing.F) {
	for _, seed := range []struct {
		part       string
		copies     uint16
		rest       string
		restCopies uint16
	}{
		{`x: hero { name } x: droid(id: "1") { id } `, 3000, "", 0},
		{"a%[1]d: hero { ...F0 } ", 250, "fragment F%[1]d on Character { ...F%[2]d } ", 5000},
		{"...F%[1]d ", 100, "fragment F%[1]d on Character { a%[1]d: name friends { ...F%[2]d } } ", 100},
		{"hero(episode: JEDI) { friends { name } } ", 1000, "", 0},
		{`x: echo(s:"%[1]d") x: a `, 3000, "", 0},
	} {
		f.Add(seed.part, seed.copies, seed.rest, seed.restCopies)
	}
	checker := starwarsChecker(f)
	rules := defaultRules()
	f.Fuzz(func(t *testing.T, part string, copies uint16, rest string, restCopies uint16) {
		var b strings.Builder
		b.WriteString("{ ")
		for i := range int(copies) {
			if b.Len()+len(part)+8 > operation.MaxQueryBytes {
				break
			}
			b.WriteString(numbered(part, i))
		}
		b.WriteString(" } ")
		for i := range int(restCopies) {
			if b.Len()+len(rest)+8 > operation.MaxQueryBytes {
				break
			}
			b.WriteString(numbered(rest, i))
		}
		chosen, err := operation.Choose(b.String(), "")
		if err != nil {
			return
		}
		start := time.Now()
		errs, total := checkRules(rules, checker, chosen.Sent)
		// A safety net against a runaway, loose enough for any load; the
		// times are BenchmarkWorstDocuments'.
		if elapsed := time.Since(start); elapsed > time.Minute {
			t.Fatalf("the rules took %v on %d copies of %q and %d of %q", elapsed, copies, part, restCopies, rest)
		}
		if len(errs) > maxValidationErrors || total < len(errs) {
			t.Fatalf("%d errors kept of %d", len(errs), total)
		}
	})
}

// numbered is part with %[1]d as i and %[2]d as i+1.
func numbered(part string, i int) string {
	return strings.ReplaceAll(strings.ReplaceAll(part, "%[1]d", strconv.Itoa(i)), "%[2]d", strconv.Itoa(i+1))
}

func starwarsChecker(tb testing.TB) *ast.Schema {
	tb.Helper()
	checker, err := gqlparser.LoadSchema(&ast.Source{Input: starwars.Schema})
	if err != nil {
		tb.Fatal(err)
	}
	return checker
}

// TestRulesCheckKeepsTheTimeout: the rules cannot be cancelled, so a check
// that runs past the call's time limit is left to finish on its own and
// the call answers at its limit, naming it; while it runs it holds its
// place, so checks left behind cannot pile up past one per core. (The
// slow rule stands for work that ignores cancellation; time is synctest's.)
func TestRulesCheckKeepsTheTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := &handlers{checks: make(chan struct{}, 1), rules: append(defaultRules(), validator.Rule{
			Name: "slow", RuleFunc: func(*validator.Events, validator.AddErrFunc) { <-release },
		})}
		checker := starwarsChecker(t)
		chosen, err := operation.Choose("{ hero { name } }", "")
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, _, err = h.rulesCheck(context.Background(), 3*time.Second, checker, chosen.Sent)
		if err == nil || !strings.Contains(err.Error(), "longer than the time limit of 3000 ms") || time.Since(start) != 3*time.Second {
			t.Fatalf("after %v: %v, want the time limit named at 3 s", time.Since(start), err)
		}
		// The first check still runs: the next call waits for its place,
		// within its own limit.
		_, _, err = h.rulesCheck(context.Background(), time.Second, checker, chosen.Sent)
		if err == nil || !strings.Contains(err.Error(), "time limit of 1000 ms") {
			t.Fatalf("a second check while the first runs: %v", err)
		}
		close(release)
		synctest.Wait()
		h.rules = defaultRules()
		if errs, _, err := h.rulesCheck(context.Background(), time.Second, checker, chosen.Sent); err != nil || len(errs) > 0 {
			t.Fatalf("once the first finished: %v %v", errs, err)
		}
	})
}
