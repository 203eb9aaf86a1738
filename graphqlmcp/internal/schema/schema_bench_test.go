package schema

import (
	"testing"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
)

// githubIntrospection is GitHub's introspection result, whose size each
// operation counts.
func githubIntrospection(b *testing.B) []byte {
	data := testservers.GitHubIntrospection(b)
	b.SetBytes(int64(len(data)))
	return data
}

// BenchmarkParseResult decodes and checks GitHub's introspection result.
func BenchmarkParseResult(b *testing.B) {
	data := githubIntrospection(b)
	for b.Loop() {
		if _, err := ParseResult(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewSchema prints both views of GitHub's schema from its decoded
// introspection result.
func BenchmarkNewSchema(b *testing.B) {
	r, err := ParseResult(githubIntrospection(b))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := New(r); err != nil {
			b.Fatal(err)
		}
	}
}
