package complexity

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/mcpforge/servers/graphqlmcp/internal/operation"
)

// The benchmarks below are what graphql_query does to a query before
// sending it, stage by stage: parse it and choose the operation (Parse),
// price it (Score), and the whole path with validation against the schema
// between them (PreSend). Each runs on generated queries of growing size:
// dense ones of 10, 40 and 120 aliased repositories (8 selections each, 960
// at most, under MaxSelections), and one as long as a query may be
// (operation.MaxQueryBytes) whose size is in long string arguments, as in
// queries that carry search text. Their MB/s is of
// the query's text; scripts/bench reads them, and B/op over the size to show
// that memory grows linearly.

func BenchmarkParse(b *testing.B) {
	forEachGeneratedQuery(b, func(b *testing.B, query string, _ *ast.Schema) {
		for b.Loop() {
			if _, err := operation.Choose(query, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkScore(b *testing.B) {
	forEachGeneratedQuery(b, func(b *testing.B, query string, schema *ast.Schema) {
		chosen, err := operation.Choose(query, "")
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for b.Loop() {
			scoreGenerated(b, chosen, query, schema)
		}
	})
}

func BenchmarkPreSend(b *testing.B) {
	forEachGeneratedQuery(b, func(b *testing.B, query string, schema *ast.Schema) {
		for b.Loop() {
			chosen, err := operation.Choose(query, "")
			if err != nil {
				b.Fatal(err)
			}
			if errs := validator.ValidateWithRules(schema, chosen.Sent, nil); len(errs) > 0 {
				b.Fatal(errs)
			}
			scoreGenerated(b, chosen, query, schema)
		}
	})
}

func forEachGeneratedQuery(b *testing.B, run func(b *testing.B, query string, schema *ast.Schema)) {
	schema := loadSchema(b, githubLike)
	queries := []string{generatedQuery(10, 0), generatedQuery(40, 0), generatedQuery(120, 0), generatedQuery(100, operation.MaxQueryBytes-1024)}
	for _, query := range queries {
		b.Run(fmt.Sprintf("bytes=%d", len(query)), func(b *testing.B) {
			b.SetBytes(int64(len(query)))
			b.ReportAllocs()
			run(b, query, schema)
		})
	}
}

func scoreGenerated(b *testing.B, chosen operation.Chosen, query string, schema *ast.Schema) {
	res, err := Score(chosen.Doc, chosen.Op, nil, schema)
	if want := strings.Count(query, "repository(") * 10; err != nil || res.Score != want {
		b.Fatalf("score %d, %v; want %d", res.Score, err, want)
	}
}

// generatedQuery is a valid query on githubLike: aliases repositories' first
// 10 issues, the whole about size bytes (at least what the selections take),
// made larger by longer string arguments.
func generatedQuery(aliases, size int) string {
	const alias = `  r%d: repository(owner: "%s", name: "n%d") { issues(first: $first) { totalCount nodes { number title author { login } } } }` + "\n"
	base := len(fmt.Sprintf(alias, 0, "", 0)) * aliases
	pad := strings.Repeat("o", max(0, size-base-50)/aliases)
	var b strings.Builder
	b.WriteString("query Generated($first: Int = 10) {\n")
	for i := range aliases {
		fmt.Fprintf(&b, alias, i, pad, i)
	}
	b.WriteString("}\n")
	return b.String()
}
