package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/app"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestToolFilterUsage: each bad --tools, --exclude-tools or --read-only,
// on the command line or in its variable, stops hookmcp with exit code 2
// and this one line, naming the flag and its variable, the name at fault,
// why, and what to do.
func TestToolFilterUsage(t *testing.T) {
	mcptest.CheckStartupErrors(t, func() app.Spec { return spec(os.Getenv) }, []mcptest.UsageCase{
		{Name: "unknown tool", Args: []string{"--tools", "get_reqest"},
			Want: `--tools (HOOKSVC_TOOLS) must name this server's tools or groups: "get_reqest" is not one (did you mean get_request?). It has create_token, get_token, update_token, delete_token, list_requests, get_latest_request, get_request, wait_for_request, send_test_request, delete_request, delete_requests, verify_signature, set_response, replay_request`},
		{Name: "unknown tool in the variable", Env: []string{"HOOKSVC_EXCLUDE_TOOLS=delete_tokens"},
			Want: `--exclude-tools (HOOKSVC_EXCLUDE_TOOLS) must name this server's tools or groups: "delete_tokens" is not one (did you mean delete_token?). It has create_token, get_token, update_token, delete_token, list_requests, get_latest_request, get_request, wait_for_request, send_test_request, delete_request, delete_requests, verify_signature, set_response, replay_request`},
		{Name: "no groups", Args: []string{"--tools", "operations"},
			Want: `--tools (HOOKSVC_TOOLS) must name this server's tools or groups: "operations" is not one. It has create_token, get_token, update_token, delete_token, list_requests, get_latest_request, get_request, wait_for_request, send_test_request, delete_request, delete_requests, verify_signature, set_response, replay_request`},
		{Name: "in both lists", Env: []string{"HOOKSVC_TOOLS=get_request,list_requests", "HOOKSVC_EXCLUDE_TOOLS=list_requests"},
			Want: `--exclude-tools (HOOKSVC_EXCLUDE_TOOLS) names "list_requests", which --tools names too: a tool is offered or not; remove it from one of them`},
		{Name: "read-only with a tool that writes", Args: []string{"--read-only", "--tools", "get_request,delete_token"},
			Want: `--tools (HOOKSVC_TOOLS) names "delete_token", which is not read-only (it changes or sends something), and --read-only offers only the tools that read; remove it from --tools, or drop --read-only`},
		{Name: "read-only from the variable with a tool that writes", Args: []string{"--tools", "send_test_request"}, Env: []string{"HOOKSVC_READ_ONLY=true"},
			Want: `--tools (HOOKSVC_TOOLS) names "send_test_request", which is not read-only (it changes or sends something), and --read-only offers only the tools that read; remove it from --tools, or drop --read-only`},
		{Name: "nothing left", Args: []string{"--read-only", "--exclude-tools", "get_latest_request,get_request,get_token", "--exclude-tools", "list_requests,verify_signature,wait_for_request"},
			Want: `--exclude-tools (HOOKSVC_EXCLUDE_TOOLS) leaves no tool to offer, and a server with no tools is of no use to a client: exclude fewer tools, or drop --read-only`},
	})
}

// TestToolFilterHelp: --help lists the three flags and their variables,
// within 80 columns, and says nothing of graphqlmcp's group operations,
// which hookmcp does not have.
func TestToolFilterHelp(t *testing.T) {
	mcptest.CheckHelp(t, spec(os.Getenv), []string{"--tools", "HOOKSVC_TOOLS", "--exclude-tools", "HOOKSVC_EXCLUDE_TOOLS", "--read-only", "HOOKSVC_READ_ONLY"})
	var stdout, stderr strings.Builder
	if code := app.Run(context.Background(), spec(os.Getenv), []string{"hookmcp", "--help"}, app.Streams{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr}); code != 0 {
		t.Fatalf("--help: exit %d: %s", code, stderr.String())
	}
	for _, unwanted := range []string{"operations", "group"} {
		if strings.Contains(stdout.String(), unwanted) {
			t.Errorf("--help says %q, of graphqlmcp's groups:\n%s", unwanted, stdout.String())
		}
	}
}

// TestToolFilterBinary: the built binary refuses an unknown name at
// startup, with the close name, and serves the tools the operator chose,
// from flags and from the variables; a call to one left out is refused
// saying why.
func TestToolFilterBinary(t *testing.T) {
	mcptest.CheckUsageErrors(t, binary, "hookmcp", []mcptest.UsageCase{
		{Name: "unknown tool", Args: []string{"--tools", "get_request,list_request"}, Want: `--tools (HOOKSVC_TOOLS) must name this server's tools or groups: "list_request" is not one (did you mean list_requests?)`},
		{Name: "unknown tool in the variable", Env: []string{"HOOKSVC_EXCLUDE_TOOLS=delete"}, Want: `"delete" is not one (did you mean delete_token or delete_request or delete_requests?)`},
	})
	for _, c := range []struct {
		name     string
		args     []string
		env      []string
		want     []string
		withheld string
	}{
		{"read-only flag", []string{"--read-only"}, nil, []string{"get_latest_request", "get_request", "get_token", "list_requests", "verify_signature", "wait_for_request"}, "delete_token"},
		{"variables", nil, []string{"HOOKSVC_TOOLS=get_request, wait_for_request,delete_token", "HOOKSVC_EXCLUDE_TOOLS="}, []string{"delete_token", "get_request", "wait_for_request"}, "create_token"},
		{"read-only and exclude variables", nil, []string{"HOOKSVC_READ_ONLY=1", "HOOKSVC_EXCLUDE_TOOLS=verify_signature,wait_for_request"}, []string{"get_latest_request", "get_request", "get_token", "list_requests"}, "wait_for_request"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(binary, c.args...)
			cmd.Env = append(os.Environ(), append([]string{"HOOKSVC_API_URL=http://127.0.0.1:1", "HOOKSVC_SOCKET_URL=off"}, c.env...)...)
			session := mcptest.ConnectClient(t, &mcp.CommandTransport{Command: cmd})
			mcptest.CheckToolNames(t, session, c.want)
			_, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: c.withheld, Arguments: map[string]any{}})
			var rpcErr *jsonrpc.Error
			if !errors.As(err, &rpcErr) || !strings.Contains(rpcErr.Message, "its operator does not offer it here") {
				t.Errorf("calling %s: %v, want it refused as left out by the operator", c.withheld, err)
			}
		})
	}
}
