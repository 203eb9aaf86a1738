package mcptool_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptest"
	"github.com/mcpforge/servers/shared/mcptool"
)

// TestFilterAllows: each rule of the filter on its own and together:
// --read-only keeps the tools annotated read-only, --exclude-tools wins
// over a group --tools names, and a group stands for its tools.
func TestFilterAllows(t *testing.T) {
	type tool struct {
		name     string
		groups   []string
		readOnly bool
	}
	read := tool{"get_request", nil, true}
	write := tool{"delete_token", nil, false}
	opRead := tool{"list_issues", []string{"operations"}, true}
	opWrite := tool{"close_issue", []string{"operations"}, false}
	all := []tool{read, write, opRead, opWrite}
	for _, c := range []struct {
		name   string
		filter mcptool.Filter
		want   []string
	}{
		{"zero", mcptool.Filter{}, []string{"get_request", "delete_token", "list_issues", "close_issue"}},
		{"read-only", mcptool.Filter{ReadOnly: true}, []string{"get_request", "list_issues"}},
		{"only names", mcptool.Filter{Only: []string{"delete_token", "list_issues"}}, []string{"delete_token", "list_issues"}},
		{"only a group", mcptool.Filter{Only: []string{"operations"}}, []string{"list_issues", "close_issue"}},
		{"exclude", mcptool.Filter{Exclude: []string{"delete_token"}}, []string{"get_request", "list_issues", "close_issue"}},
		{"exclude a group", mcptool.Filter{Exclude: []string{"operations"}}, []string{"get_request", "delete_token"}},
		{"exclude wins over a group in only", mcptool.Filter{Only: []string{"operations"}, Exclude: []string{"close_issue"}}, []string{"list_issues"}},
		{"read-only and only", mcptool.Filter{Only: []string{"operations", "get_request"}, ReadOnly: true}, []string{"get_request", "list_issues"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, tl := range all {
				if c.filter.Allows(tl.name, tl.groups, tl.readOnly) {
					got = append(got, tl.name)
				}
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("allowed (-want +got):\n%s", diff)
			}
		})
	}
	if !(mcptool.Filter{}).IsZero() || (mcptool.Filter{ReadOnly: true}).IsZero() || (mcptool.Filter{Exclude: []string{"x"}}).IsZero() {
		t.Error("IsZero is wrong")
	}
}

type noArgs struct{}
type noResult struct{}

func testTool(name string, readOnly bool) mcptool.Tool[noArgs, noResult] {
	return mcptool.Tool[noArgs, noResult]{
		Name:        name,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: readOnly},
		Handle: func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, noResult, error) {
			return mcptool.Text(name + " ran"), noResult{}, nil
		},
	}
}

// TestFilterRegister: over a real session, only the tools the filter
// allows are listed and run, every tool given is reported (listed or
// not), and a call to one left out is refused with why, naming the flag,
// while a name no tool has keeps the go-sdk's answer.
func TestFilterRegister(t *testing.T) {
	for _, c := range []struct {
		name     string
		filter   mcptool.Filter
		listed   []string
		withheld string // a tool left out, and the reason its refusal gives
		reason   string
	}{
		{"read-only", mcptool.Filter{ReadOnly: true}, []string{"get_request"}, "delete_token", "--read-only offers only the tools that read"},
		{"exclude", mcptool.Filter{Exclude: []string{"get_request"}}, []string{"delete_token", "no_annotations"}, "get_request", "--exclude-tools leaves it out"},
		{"only", mcptool.Filter{Only: []string{"get_request"}}, []string{"get_request"}, "no_annotations", "--tools names the tools offered, and not this one"},
	} {
		t.Run(c.name, func(t *testing.T) {
			server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
			server.AddReceivingMiddleware(mcptool.BoundErrors)
			noAnnotations := testTool("no_annotations", false)
			noAnnotations.Annotations = nil
			offered := c.filter.Register(server, testTool("get_request", true), testTool("delete_token", false), noAnnotations)
			want := []mcptool.Offered{{Name: "get_request", ReadOnly: true}, {Name: "delete_token"}, {Name: "no_annotations"}}
			if diff := cmp.Diff(want, offered); diff != "" {
				t.Errorf("offered (-want +got):\n%s", diff)
			}
			server.AddReceivingMiddleware(c.filter.Withheld(offered))
			session := mcptest.Connect(t, server)
			ctx := context.Background()
			mcptest.CheckToolNames(t, session, c.listed)
			for _, name := range c.listed {
				if res := mcptest.Call(t, ctx, session, name, map[string]any{}); res.IsError || mcptest.Text(res) != name+" ran" {
					t.Errorf("%s: %q", name, mcptest.Text(res))
				}
			}
			_, err := session.CallTool(ctx, &mcp.CallToolParams{Name: c.withheld, Arguments: map[string]any{}})
			wantErr := `unknown tool "` + c.withheld + `": this server has it, but its operator does not offer it here (` + c.reason
			var rpcErr *jsonrpc.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpcErr.Message, wantErr) {
				t.Errorf("calling %s: %v, want an invalid-params error containing %q", c.withheld, err, wantErr)
			}
			_, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}})
			if err == nil || !strings.Contains(err.Error(), `unknown tool "no_such_tool"`) || strings.Contains(err.Error(), "operator") {
				t.Errorf("calling no_such_tool: %v, want the go-sdk's unknown tool", err)
			}
		})
	}
}

// TestFilterInstructions: the instructions say when the operator has
// narrowed the tools, and say nothing for the zero filter.
func TestFilterInstructions(t *testing.T) {
	if got := (mcptool.Filter{}).Instructions(); got != "" {
		t.Errorf("zero filter: %q", got)
	}
	got := mcptool.Filter{ReadOnly: true, Exclude: []string{"x"}}.Instructions()
	for _, want := range []string{"\nThis server is read-only", "--read-only", "\nThe operator chose the tools", "--exclude-tools"} {
		if !strings.Contains(got, want) {
			t.Errorf("instructions %q lack %q", got, want)
		}
	}
	if got := (mcptool.Filter{Only: []string{"x"}}).Instructions(); strings.Contains(got, "read-only") || !strings.Contains(got, "--tools") {
		t.Errorf("--tools alone: %q", got)
	}
}
