package main

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptest"
)

// TestToolFilterUsage: each bad --tools, --exclude-tools or --read-only,
// on the command line or in its variable, stops graphqlmcp with exit code
// 2 and this one line, naming the flag and its variable, the name at
// fault, why, and what to do.
func TestToolFilterUsage(t *testing.T) {
	mcptest.CheckStartupErrors(t, spec, []mcptest.UsageCase{
		{Name: "unknown tool", Args: []string{"--tools", "graphql_querry"},
			Want: `--tools (GRAPHQL_TOOLS) must name this server's tools or groups: "graphql_querry" is not one (did you mean graphql_query?). It has graphql_query, graphql_introspect; the group operations has no tools`},
		{Name: "unknown tool in the variable", Env: []string{"GRAPHQL_EXCLUDE_TOOLS=graphql_introspect,Graphql_Query"},
			Want: `--exclude-tools (GRAPHQL_EXCLUDE_TOOLS) must name this server's tools or groups: "Graphql_Query" is not one (did you mean graphql_query?). It has graphql_query, graphql_introspect; the group operations has no tools`},
		{Name: "in both lists", Args: []string{"--tools", "graphql_query", "--exclude-tools", "graphql_query,graphql_introspect"},
			Want: `--exclude-tools (GRAPHQL_EXCLUDE_TOOLS) names "graphql_query", which --tools names too: a tool is offered or not; remove it from one of them`},
		{Name: "operations without any", Args: []string{"--read-only", "--tools", "operations"},
			Want: `--tools (GRAPHQL_TOOLS) names the group "operations", which has no tools on this server as started: load saved operations with --operations, or remove it`},
		{Name: "nothing left", Env: []string{"GRAPHQL_EXCLUDE_TOOLS=graphql_query, graphql_introspect"},
			Want: `--exclude-tools (GRAPHQL_EXCLUDE_TOOLS) leaves no tool to offer, and a server with no tools is of no use to a client: exclude fewer tools`},
		{Name: "read-only not a boolean", Env: []string{"GRAPHQL_READ_ONLY=yes please"},
			Want: `GRAPHQL_READ_ONLY (--read-only) must be true or false; got "yes please". For example GRAPHQL_READ_ONLY=true`},
	})
}

// TestToolFilterHelp: --help lists the three flags and their variables,
// within 80 columns.
func TestToolFilterHelp(t *testing.T) {
	mcptest.CheckHelp(t, spec(), []string{"--tools", "GRAPHQL_TOOLS", "--exclude-tools", "GRAPHQL_EXCLUDE_TOOLS", "--read-only", "GRAPHQL_READ_ONLY", "operations"})
}

// TestToolFilterBinary: the built binary refuses an unknown name at
// startup, with the close name, and serves the tools the operator chose,
// from flags and from the variables: under GRAPHQL_READ_ONLY graphql_query
// is listed read-only, whatever --mutations says.
func TestToolFilterBinary(t *testing.T) {
	mcptest.CheckUsageErrors(t, binary, "graphqlmcp", []mcptest.UsageCase{
		{Name: "unknown tool", Args: []string{"--tools", "graphql_introspect,graphql_qeury"}, Want: `--tools (GRAPHQL_TOOLS) must name this server's tools or groups: "graphql_qeury" is not one (did you mean graphql_query?)`},
		{Name: "unknown tool in the variable", Env: []string{"GRAPHQL_TOOLS=introspect"}, Want: `"introspect" is not one (did you mean graphql_introspect?)`},
	})
	for _, c := range []struct {
		name     string
		args     []string
		env      []string
		want     string
		readOnly bool
	}{
		{"flags", []string{"--tools", "graphql_introspect"}, nil, "graphql_introspect", true},
		{"variables", []string{"--mutations", "always"}, []string{"GRAPHQL_READ_ONLY=true", "GRAPHQL_EXCLUDE_TOOLS=graphql_introspect"}, "graphql_query", true},
		{"no filter", nil, nil, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(binary, append([]string{"--endpoint", "http://127.0.0.1:1/graphql"}, c.args...)...)
			cmd.Env = append(os.Environ(), c.env...)
			session := mcptest.ConnectClient(t, &mcp.CommandTransport{Command: cmd})
			list, err := session.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				if len(list.Tools) != 2 {
					t.Errorf("no filter lists %d tools, want 2", len(list.Tools))
				}
				return
			}
			if len(list.Tools) != 1 || list.Tools[0].Name != c.want || list.Tools[0].Annotations.ReadOnlyHint != c.readOnly {
				t.Errorf("tools/list: %+v, want %s alone, read-only %v", list.Tools, c.want, c.readOnly)
			}
		})
	}
}
