package tools

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestToolSchemas compares each tool as tools/list shows it (description,
// annotations, input and output schemas) with testdata/<tool>.json. Run
// go test ./internal/tools -run TestToolSchemas -update after a deliberate
// change, and review the diff.
func TestToolSchemas(t *testing.T) {
	h := connect(t, testConfig(t, "http://localhost:4000/graphql"), nil)
	list, err := h.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 2 {
		t.Fatalf("tools/list has %d tools, want 2", len(list.Tools))
	}
	for _, tool := range list.Tools {
		t.Run(tool.Name, func(t *testing.T) {
			got, err := json.MarshalIndent(tool, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", tool.Name+".json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s differs from tools/list (-golden +got); run with -update if the change is deliberate:\n%s", path, diff)
			}
			checkSchemaIsValid(t, tool)
		})
	}
}

// checkSchemaIsValid resolves both schemas, as a strict client would.
func checkSchemaIsValid(t *testing.T, tool *mcp.Tool) {
	t.Helper()
	for name, raw := range map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
		data, err := json.Marshal(raw)
		if err != nil {
			t.Fatal(err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatalf("%s schema does not decode: %v", name, err)
		}
		if s.Type != "object" {
			t.Errorf("%s schema type = %q, want object", name, s.Type)
		}
		if _, err := s.Resolve(nil); err != nil {
			t.Errorf("%s schema does not resolve: %v", name, err)
		}
	}
}
