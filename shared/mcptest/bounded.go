package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ArgumentsWith is base's JSON with name set to the raw value: JSON that no
// Go value marshals to (1e400, a megabyte of digits) reaches the server as
// written. base loses name.
func ArgumentsWith(t *testing.T, base map[string]any, name string, value json.RawMessage) json.RawMessage {
	t.Helper()
	delete(base, name)
	data, err := json.Marshal(base)
	if err != nil {
		t.Fatal(err)
	}
	member := fmt.Sprintf("%q:%s", name, value)
	if len(base) == 0 {
		return json.RawMessage("{" + member + "}")
	}
	return json.RawMessage("{" + member + "," + string(data[1:]))
}

// InputSchema is tool's input schema as tools/list gave it, decoded, so a
// test can try every argument the tool has, one added later included.
func InputSchema(t *testing.T, tool *mcp.Tool) *jsonschema.Schema {
	t.Helper()
	return decodeSchema(t, tool.InputSchema)
}

// CheckProtocolErrorsBounded checks that a tool, a resource (a URI of
// scheme) or a prompt named by 1.1 MB, and a tool that does not exist, are
// each refused with an error of at most maxBytes that says what is wrong:
// the SDK's refusal, not a recovered panic, naming the unknown tool.
func CheckProtocolErrorsBounded(t *testing.T, session *mcp.ClientSession, scheme string, maxBytes int) {
	t.Helper()
	huge := strings.Repeat("x", 1_100_000)
	ctx := context.Background()
	_, toolErr := session.CallTool(ctx, &mcp.CallToolParams{Name: huge, Arguments: map[string]any{}})
	_, unknownErr := session.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}})
	_, resourceErr := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: scheme + "://" + huge})
	_, promptErr := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: huge})
	for what, err := range map[string]error{"huge tool": toolErr, "unknown tool": unknownErr, "resource": resourceErr, "prompt": promptErr} {
		if err == nil || len(err.Error()) > maxBytes {
			t.Errorf("%s: %d bytes: %.300v", what, len(fmt.Sprint(err)), err)
		}
		if err != nil && strings.Contains(err.Error(), "internal error") {
			t.Errorf("%s: %v, want the SDK's refusal, not a recovered panic", what, err)
		}
	}
	if unknownErr == nil || !strings.Contains(unknownErr.Error(), "no_such_tool") {
		t.Errorf("unknown tool: %v, want an error naming it", unknownErr)
	}
}
