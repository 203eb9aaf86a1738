package app

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"

	"github.com/mcpforge/servers/shared/mcptool"
)

// filterTools are the tools of filterSpec's server: two of its own and
// two in the group "operations", one of each kind read-only.
var filterTools = []mcptool.Offered{
	{Name: "get_request", ReadOnly: true},
	{Name: "delete_token"},
	{Name: "list_issues", Groups: []string{"operations"}, ReadOnly: true},
	{Name: "close_issue", Groups: []string{"operations"}},
}

// filterSpec is a server whose Build checks the filter it is given as the
// real servers do, and hands it to got.
func filterSpec(got *mcptool.Filter) Spec {
	return Spec{
		Name:      "testmcp",
		EnvPrefix: "TESTMCP",
		Build: func(_ context.Context, _ *cli.Command, env Env) (*mcp.Server, error) {
			*got = env.Tools
			if err := CheckToolFilter(env.Tools, filterTools, ToolGroup{Name: "operations", Fill: "load some"}, ToolGroup{Name: "empty", Fill: "fill it with --fill"}); err != nil {
				return nil, err
			}
			return mcp.NewServer(&mcp.Implementation{Name: "testmcp", Version: "1"}, nil), nil
		},
	}
}

func runFilter(t *testing.T, args []string, env map[string]string) (mcptool.Filter, int, string) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	var got mcptool.Filter
	var stdout, stderr strings.Builder
	code := Run(context.Background(), filterSpec(&got), append([]string{"testmcp"}, args...), Streams{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr})
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want nothing", stdout.String())
	}
	return got, code, stderr.String()
}

// TestToolFilterFlags: --tools and --exclude-tools are repeatable and
// comma-separated, with spaces and empty entries dropped, and each has its
// variable, as --read-only has; the filter reaches Build as given.
func TestToolFilterFlags(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		env  map[string]string
		want mcptool.Filter
	}{
		{"none", nil, nil, mcptool.Filter{}},
		{"repeated and comma-separated", []string{"--tools", "get_request, list_issues", "--tools", "delete_token,,get_request"}, nil,
			mcptool.Filter{Only: []string{"get_request", "list_issues", "delete_token"}}},
		{"exclude a tool of a group", []string{"--tools", "operations", "--exclude-tools", "close_issue"}, nil,
			mcptool.Filter{Only: []string{"operations"}, Exclude: []string{"close_issue"}}},
		{"read-only", []string{"--read-only"}, nil, mcptool.Filter{ReadOnly: true}},
		{"variables", nil, map[string]string{"TESTMCP_TOOLS": " get_request , operations", "TESTMCP_EXCLUDE_TOOLS": "close_issue", "TESTMCP_READ_ONLY": "true"},
			mcptool.Filter{Only: []string{"get_request", "operations"}, Exclude: []string{"close_issue"}, ReadOnly: true}},
		{"an empty variable is no filter", nil, map[string]string{"TESTMCP_TOOLS": "", "TESTMCP_EXCLUDE_TOOLS": " , "}, mcptool.Filter{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, code, stderr := runFilter(t, c.args, c.env)
			if code != exitOK || stderr != "" {
				t.Errorf("exit %d, stderr %q", code, stderr)
			}
			if diff := cmp.Diff(c.want, got, cmp.Comparer(func(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") })); diff != "" {
				t.Errorf("filter (-want +got):\n%s", diff)
			}
		})
	}
}

// TestToolFilterErrors: each rule broken stops the start with exit 2 and
// one line naming the flag and its variable, the name at fault, why, and
// what to do.
func TestToolFilterErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"unknown name, close to one", []string{"--tools", "get_reqest"}, nil,
			`testmcp: --tools (TESTMCP_TOOLS) must name this server's tools or groups: "get_reqest" is not one (did you mean get_request?). It has get_request, delete_token, list_issues, close_issue; the group operations has 2 tools; the group empty has no tools`},
		{"unknown name in the variable, case", nil, map[string]string{"TESTMCP_EXCLUDE_TOOLS": "Delete_Token"}, `testmcp: --exclude-tools (TESTMCP_EXCLUDE_TOOLS) must name this server's tools or groups: "Delete_Token" is not one (did you mean delete_token?)`},
		{"unknown group", []string{"--tools", "operation"}, nil, `"operation" is not one (did you mean operations?)`},
		{"several unknown", []string{"--tools", "a,b,c,d,e"}, nil, `must name this server's tools or groups: "a" is not one; "b" is not one; "c" is not one; and 2 more. It has`},
		{"unknown, nothing close", []string{"--tools", "zzzzzzzz"}, nil, `"zzzzzzzz" is not one. It has`},
		{"in both lists", []string{"--tools", "get_request", "--exclude-tools", "get_request"}, nil,
			`testmcp: --exclude-tools (TESTMCP_EXCLUDE_TOOLS) names "get_request", which --tools names too: a tool is offered or not; remove it from one of them`},
		{"read-only with a tool that writes", []string{"--read-only", "--tools", "get_request,delete_token"}, nil,
			`testmcp: --tools (TESTMCP_TOOLS) names "delete_token", which is not read-only (it changes or sends something), and --read-only offers only the tools that read; remove it from --tools, or drop --read-only`},
		{"read-only from the variable", []string{"--tools", "close_issue"}, map[string]string{"TESTMCP_READ_ONLY": "1"}, `names "close_issue", which is not read-only`},
		{"a tool its group's exclusion leaves out", []string{"--tools", "list_issues", "--exclude-tools", "operations"}, nil,
			`testmcp: --tools (TESTMCP_TOOLS) names "list_issues", and --exclude-tools leaves it out with its group (operations); remove one of the two`},
		{"a group all excluded", []string{"--tools", "operations,get_request", "--exclude-tools", "list_issues,close_issue"}, nil,
			`testmcp: --tools (TESTMCP_TOOLS) names the group "operations", and --exclude-tools leaves out every tool in it; remove it from --tools, or exclude fewer`},
		{"a group of writes under read-only", []string{"--read-only", "--tools", "operations", "--exclude-tools", "list_issues"}, nil,
			`names the group "operations", and --exclude-tools leaves out every tool in it that --read-only keeps`},
		{"an empty group", []string{"--tools", "empty,get_request"}, nil,
			`testmcp: --tools (TESTMCP_TOOLS) names the group "empty", which has no tools on this server as started: fill it with --fill, or remove it`},
		{"nothing left", []string{"--exclude-tools", "get_request,delete_token,operations"}, nil,
			`testmcp: --exclude-tools (TESTMCP_EXCLUDE_TOOLS) leaves no tool to offer, and a server with no tools is of no use to a client: exclude fewer tools`},
		{"nothing left, read-only", []string{"--read-only", "--exclude-tools", "get_request,list_issues"}, nil, `leaves no tool to offer, and a server with no tools is of no use to a client: exclude fewer tools, or drop --read-only`},
		{"read-only not a boolean", nil, map[string]string{"TESTMCP_READ_ONLY": "maybe"}, `testmcp: TESTMCP_READ_ONLY (--read-only) must be true or false; got "maybe". For example TESTMCP_READ_ONLY=true`},
		{"a control character", []string{"--tools", "get_request\x1b[2J"}, nil, `testmcp: --tools (TESTMCP_TOOLS) must name tools, separated by commas; "get_request\x1b[2J" is not a tool's name`},
		{"a huge name", []string{"--tools", strings.Repeat("x", 1_100_000)}, nil, `is 1100000 bytes, longer than any tool's name`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, code, stderr := runFilter(t, c.args, c.env)
			if code != exitUsage || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 || len(stderr) > 2048 {
				t.Errorf("exit %d, stderr %q;\nwant exit 2 and one line containing %q", code, stderr, c.want)
			}
		})
	}
}

// TestToolFilterHelp: --help lists the three flags with their variables,
// within 80 columns, and speaks of groups only for a server that has some
// (Spec.ToolGroupsHelp): hookmcp's help says nothing of graphqlmcp's.
func TestToolFilterHelp(t *testing.T) {
	for _, c := range []struct {
		name, groups   string
		want, unwanted []string
	}{
		{"no groups", "", nil, []string{"operations", "group"}},
		{"a group", "or the group operations, every saved operation", []string{"(or the group operations, every saved operation)", "by name or group"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got mcptool.Filter
			spec := filterSpec(&got)
			spec.ToolGroupsHelp = c.groups
			var stdout, stderr strings.Builder
			if code := Run(context.Background(), spec, []string{"testmcp", "--help"}, Streams{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr}); code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			help := stdout.String()
			// The help wraps at 80 columns: compare its words, not its lines.
			flat := strings.Join(strings.Fields(help), " ")
			for _, want := range append([]string{"--tools string", "TESTMCP_TOOLS", "--exclude-tools string", "TESTMCP_EXCLUDE_TOOLS", "TESTMCP_READ_ONLY", "repeatable"}, c.want...) {
				if !strings.Contains(flat, want) {
					t.Errorf("--help lacks %q:\n%s", want, help)
				}
			}
			if !strings.Contains(help, "--read-only\n") {
				t.Errorf("--help lacks --read-only:\n%s", help)
			}
			for _, unwanted := range c.unwanted {
				if strings.Contains(flat, unwanted) {
					t.Errorf("--help says %q, of groups this server does not have:\n%s", unwanted, help)
				}
			}
			for _, line := range strings.Split(help, "\n") {
				if n := utf8.RuneCountInString(line); n > helpWidth {
					t.Errorf("a line of %d columns: %q", n, line)
				}
			}
		})
	}
}

// TestSuggest: close names are the same but for case, a few edits apart
// (a swap of neighbours counts one), or containing the name; a far or huge
// name gets none, and costs nothing.
func TestSuggest(t *testing.T) {
	known := []string{"get_request", "get_requests", "get_token", "list_requests", "delete_request", "operations"}
	for _, c := range []struct {
		name string
		want []string
	}{
		{"GET_REQUEST", []string{"get_request"}},
		{"get_reqeust", []string{"get_request", "get_requests"}},
		{"requests", []string{"get_requests", "list_requests"}},
		{"get_requset", []string{"get_request", "get_requests"}},
		{"gte_token", []string{"get_token"}},
		{"operation", []string{"operations"}},
		{"zzz", []string{}},
		{strings.Repeat("get_request", 100_000), []string{}},
	} {
		if got := suggest(c.name, known); !cmp.Equal(c.want, got) {
			t.Errorf("suggest(%.40q) = %q, want %q", c.name, got, c.want)
		}
	}
}
