package mcptest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/jsonx"
)

// ListSize is what a tool list costs every session of every client: the
// bytes of tools/list's result as compact JSON, and of the part a model
// reads to call a tool (each tool's description and input schema).
type ListSize struct {
	Tools       int
	Whole       int // the compact JSON of tools/list's result
	Description int // descriptions and input schemas, compact JSON
}

func (s ListSize) String() string {
	return fmt.Sprintf("tools: %d\ntools/list, compact JSON: %d bytes\ndescriptions and input schemas: %d bytes\n", s.Tools, s.Whole, s.Description)
}

// MeasureToolList measures session's tools/list.
func MeasureToolList(t testing.TB, session *mcp.ClientSession) ListSize {
	t.Helper()
	list, err := session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := jsonx.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	size := ListSize{Tools: len(list.Tools), Whole: len(whole)}
	for _, tool := range list.Tools {
		input, err := jsonx.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		size.Description += len(tool.Description) + len(input)
	}
	return size
}

// CheckToolListSize records session's tool-list size in the golden file
// path (rewritten when update is set), so that a change to it shows in the
// diff, and fails when it passes the budget: most a whole list and its
// descriptions with input schemas may take.
func CheckToolListSize(t *testing.T, session *mcp.ClientSession, path string, update bool, budget ListSize) {
	t.Helper()
	got := MeasureToolList(t, session)
	if update {
		if err := os.WriteFile(path, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	golden, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(golden), got.String()); diff != "" {
		t.Errorf("%s differs from tools/list (-golden +got); run with -update if the change is deliberate:\n%s", path, diff)
	}
	var over []string
	if budget.Whole > 0 && got.Whole > budget.Whole {
		over = append(over, fmt.Sprintf("tools/list is %d bytes, over its budget of %d", got.Whole, budget.Whole))
	}
	if budget.Description > 0 && got.Description > budget.Description {
		over = append(over, fmt.Sprintf("descriptions and input schemas are %d bytes, over their budget of %d", got.Description, budget.Description))
	}
	if len(over) > 0 {
		t.Errorf("%s: every session pays for the tool list in the model's context; say each thing once", strings.Join(over, "; "))
	}
}
