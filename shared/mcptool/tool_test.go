package mcptool

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOutputSchemaNulls: a member left out when empty is never null; one
// that may be null is an anyOf, never a type array.
func TestOutputSchemaNulls(t *testing.T) {
	type inner struct {
		Tags []string `json:"tags,omitempty"`
	}
	type result struct {
		inner
		Count *int     `json:"count,omitempty"`
		Items []string `json:"items"`
	}
	tool := Tool[struct{}, result]{Handle: func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, result, error) {
		return nil, result{}, nil
	}}
	raw, err := json.Marshal(tool.OutputSchema().Properties)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"count":{"type":"integer"},"items":{"anyOf":[{"type":"array","items":{"type":"string"}},{"type":"null"}]},"tags":{"type":"array","items":{"type":"string"}}}`
	if diff := cmp.Diff(want, string(raw)); diff != "" {
		t.Errorf("properties (-want +got):\n%s", diff)
	}
}
