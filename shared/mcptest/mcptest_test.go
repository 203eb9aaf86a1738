package mcptest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptool"
)

// recordingTB records Errorf instead of failing the test.
type recordingTB struct {
	testing.TB
	errors []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// TestConnectChecksOutputSchemas: a structured result that its tool's output
// schema forbids fails the test that received it; one that fits does not.
func TestConnectChecksOutputSchemas(t *testing.T) {
	type noArgs struct{}
	type count struct {
		N int `json:"n"`
	}
	answer := func(raw string) func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, mcptool.Document[count], error) {
		return func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, mcptool.Document[count], error) {
			return nil, mcptool.Document[count](raw), nil
		}
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	mcptool.Register(server,
		mcptool.Tool[noArgs, mcptool.Document[count]]{Name: "good", Handle: answer(`{"n":1}`)},
		mcptool.Tool[noArgs, mcptool.Document[count]]{Name: "bad", Handle: answer(`{"n":"one"}`)},
	)
	rec := &recordingTB{TB: t}
	session := Connect(rec, server)
	Call(rec, context.Background(), session, "good", nil)
	if len(rec.errors) != 0 {
		t.Fatalf("a result that fits its schema was reported: %q", rec.errors)
	}
	Call(rec, context.Background(), session, "bad", nil)
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "bad answered structured content that its output schema forbids") {
		t.Fatalf("a result its schema forbids was not reported: %q", rec.errors)
	}
}

// TestConnectChecksTextCarriesStructured: a result whose text content
// lacks a value of its structured content fails the test that received it,
// naming the value; mcptool's text (a summary, the rest as JSON, a body in
// a block of its own) carries every one.
func TestConnectChecksTextCarriesStructured(t *testing.T) {
	type noArgs struct{}
	type request struct {
		ID      string              `json:"id"`
		Headers map[string][]string `json:"headers"`
		Size    int                 `json:"size"`
		Body    string              `json:"body"`
	}
	out := request{ID: "r1", Headers: map[string][]string{"stripe-signature": {"t=1,v1=ab"}}, Size: 7, Body: "<b>&\u2028"}
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	mcptool.Register(server,
		mcptool.Tool[noArgs, request]{Name: "summary_and_body", Verbatim: []string{"body"}, Handle: func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, request, error) {
			return mcptool.Text("Request r1.", out.Body), out, nil
		}},
		// A member that is not verbatim stays in the JSON even when its
		// value is the text of a block: here the id equals the body.
		mcptool.Tool[noArgs, request]{Name: "id_as_body", Verbatim: []string{"body"}, Handle: func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, request, error) {
			same := out
			same.ID = same.Body
			return mcptool.Text("Request.", same.Body), same, nil
		}},
		mcptool.Tool[noArgs, request]{Name: "json_only", Handle: func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, request, error) {
			return nil, out, nil
		}},
	)
	rec := &recordingTB{TB: t}
	session := Connect(rec, server)
	for _, tool := range []string{"summary_and_body", "json_only"} {
		res := Call(rec, context.Background(), session, tool, nil)
		if len(rec.errors) != 0 {
			t.Fatalf("%s: %q", tool, rec.errors)
		}
		if text := Text(res); !strings.Contains(text, `"stripe-signature":["t=1,v1=ab"]`) || !strings.Contains(text, "<b>&\u2028") || strings.Contains(text, `\u`) {
			t.Errorf("%s: text content %q lacks the header or escapes the body", tool, text)
		}
	}
	if got := Call(rec, context.Background(), session, "summary_and_body", nil).Content; len(got) != 3 || got[2].(*mcp.TextContent).Text != out.Body ||
		strings.Contains(got[1].(*mcp.TextContent).Text, `"body"`) {
		t.Errorf("content is not summary, JSON without the body, body: %v", got)
	}
	if got := Call(rec, context.Background(), session, "id_as_body", nil).Content; len(got) != 3 || !strings.Contains(got[1].(*mcp.TextContent).Text, `"id":"<b>&`) {
		t.Errorf("a member that is not verbatim left the JSON: %v", got)
	}

	lacking := &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: "Request r1, 7 bytes."}, &mcp.TextContent{Text: out.Body}},
		StructuredContent: map[string]any{"id": "r1", "size": 7, "body": out.Body, "headers": map[string]any{"stripe-signature": []any{"t=1,v1=ab"}}},
	}
	missing := MissingFromText(lacking)
	if len(missing) != 2 || !strings.Contains(strings.Join(missing, "\n"), `.headers.stripe-signature[0] = "t=1,v1=ab"`) || !strings.Contains(strings.Join(missing, "\n"), ".size = 7") {
		t.Errorf("MissingFromText = %q, want the header and the size", missing)
	}

	// A body that is itself a JSON object with a member of the result's
	// name ("size") hides nothing: the result's own JSON block carries it.
	jsonBody := `{"size":212,"event":"push"}`
	shadowed := &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: "Request r1, 27 bytes."}, &mcp.TextContent{Text: `{"id":"r1","size":27}`}, &mcp.TextContent{Text: jsonBody}},
		StructuredContent: map[string]any{"id": "r1", "size": 27, "body": jsonBody},
	}
	if missing := MissingFromText(shadowed); len(missing) != 0 {
		t.Errorf("MissingFromText = %q for a JSON body sharing a member name, want none", missing)
	}
}
