package operations

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad: no file's content crashes the loader or hangs it; what it
// returns is operations or problems, never both, each problem placed in
// the file.
func FuzzLoad(f *testing.F) {
	for _, seed := range []struct{ name, text string }{
		{"a.graphql", "# A comment.\nquery A($x: Int = 1) { items(first: $x) { id ...F } }\nfragment F on Item { id }"},
		{"a.graphql", "query A { " + strings.Repeat("a { ", 300)},
		{"a.graphql", "{ a }"},
		{"m.json", `{"format":"apollo-persisted-query-manifest","version":1,"operations":[{"id":"1","name":"A","type":"query","body":"query A { a }"}]}`},
		{"r.json", `{"1": "query A { a }", "2": 5}`},
		{"r.json", `[1, 2]`},
		{"r.json", `{"1": "\ud800"}`},
	} {
		f.Add(seed.name, seed.text)
	}
	f.Fuzz(func(t *testing.T, name, text string) {
		if !strings.HasSuffix(name, ".json") {
			name = "a.graphql"
		} else {
			name = "m.json"
		}
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		ops, err := Load([]string{path})
		if (err == nil) == (len(ops) == 0) {
			t.Fatalf("Load returned %d operations and problems %v; want operations or problems", len(ops), err)
		}
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, path) && !strings.HasPrefix(line, "and ") {
					t.Errorf("problem %q is not placed in %s", line, path)
				}
			}
		}
		for _, op := range ops {
			if op.Tool == "" || op.Chosen.Op == nil {
				t.Errorf("operation %+v has no tool name or no parsed operation", op)
			}
		}
	})
}
