package tools

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/shared/app"
	"github.com/mcpforge/servers/shared/mcptest"
	"github.com/mcpforge/servers/shared/mcptool"
)

// readOnlyTools are the tools annotated read-only: what --read-only lists.
var readOnlyTools = []string{"get_latest_request", "get_request", "get_token", "list_requests", "verify_signature", "wait_for_request"}

// newFiltered is a server under the operator's filter f, on h's fake, or
// the startup error New gives.
func newFiltered(t *testing.T, h *harness, cfg config.Config, f mcptool.Filter) (*mcp.Server, error) {
	t.Helper()
	if cfg.APIURL == nil {
		cfg.APIURL, _ = url.Parse(h.url)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	return New(context.Background(), Options{
		Config:  cfg,
		HTTP:    NewHTTPClient("hookmcp-test"),
		Logger:  slog.New(slog.NewTextHandler(h.logs, nil)),
		Version: "test",
		Tools:   f,
	})
}

// connectFiltered connects a client to a server under f, on h's fake.
func connectFiltered(t *testing.T, h *harness, cfg config.Config, f mcptool.Filter) *mcp.ClientSession {
	t.Helper()
	server, err := newFiltered(t, h, cfg, f)
	if err != nil {
		t.Fatal(err)
	}
	return mcptest.Connect(t, server)
}

// TestToolFilterModes: tools/list under each mode of the filter, held to
// golden files as the default list is (TestToolSchemas): the names, each
// tool as the default list shows it (a filter never changes a tool), and
// the list's size in testdata/modes/<mode>.txt. Run with -update after a
// deliberate change.
func TestToolFilterModes(t *testing.T) {
	h := connect(t, config.Config{})
	for _, c := range []struct {
		mode   string
		filter mcptool.Filter
		want   []string
	}{
		{"read-only", mcptool.Filter{ReadOnly: true}, readOnlyTools},
		{"tools", mcptool.Filter{Only: []string{"wait_for_request", "get_request", "list_requests"}}, []string{"get_request", "list_requests", "wait_for_request"}},
		{"exclude-tools", mcptool.Filter{Exclude: []string{"delete_token", "delete_request", "delete_requests"}},
			[]string{"create_token", "get_latest_request", "get_request", "get_token", "list_requests", "replay_request", "send_test_request", "set_response", "update_token", "verify_signature", "wait_for_request"}},
		{"read-only-exclude-tools", mcptool.Filter{ReadOnly: true, Exclude: []string{"verify_signature"}}, slices.DeleteFunc(slices.Clone(readOnlyTools), func(s string) bool { return s == "verify_signature" })},
	} {
		t.Run(c.mode, func(t *testing.T) {
			session := connectFiltered(t, h, config.Config{}, c.filter)
			mcptest.CheckToolMode(t, session, mcptest.ToolMode{Name: c.mode, Want: c.want}, *update, mcptest.ListSize{Whole: 19_471, Description: 9_850})
		})
	}
}

// TestReadOnlyCalls: under --read-only a tool that changes data is
// refused as unknown, saying the operator left it out, and nothing reaches
// the API; the read-only tools and the requests resource (a read) work;
// the instructions say the server is read-only.
func TestReadOnlyCalls(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, map[string]any{})
	h.capture(t, id, "POST", "application/json", `{"event":"ping"}`)
	session := connectFiltered(t, h, config.Config{}, mcptool.Filter{ReadOnly: true})
	before := len(h.apiCalls())
	ctx := context.Background()
	for _, tool := range []string{"delete_token", "create_token", "send_test_request", "replay_request", "set_response"} {
		_, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"token_id": id}})
		var rpcErr *jsonrpc.Error
		want := `unknown tool "` + tool + `": this server has it, but its operator does not offer it here (--read-only offers only the tools that read`
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || !strings.HasPrefix(rpcErr.Message, want) {
			t.Errorf("%s: %v, want an invalid-params error starting %q", tool, err, want)
		}
	}
	if calls := h.apiCalls()[before:]; len(calls) != 0 {
		t.Errorf("refused calls reached the API: %v", calls)
	}
	res := mcptest.Call(t, ctx, session, "get_latest_request", map[string]any{"token_id": id})
	if res.IsError || mcptest.Structured(t, res)["body"] != `{"event":"ping"}` {
		t.Errorf("get_latest_request: %s", mcptest.Text(res))
	}
	read, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "hooksvc://token/" + id + "/requests"})
	if err != nil || len(read.Contents) == 0 || !strings.Contains(read.Contents[0].Text, "ping") {
		t.Errorf("the requests resource under --read-only: %v %+v", err, read)
	}
	instructions := session.InitializeResult().Instructions
	if !strings.Contains(instructions, "\nThis server is read-only (its operator's choice, --read-only)") {
		t.Errorf("instructions do not say the server is read-only:\n%s", instructions)
	}
	if plain := h.session.InitializeResult().Instructions; strings.Contains(plain, "read-only") || strings.Contains(plain, "--tools") {
		t.Errorf("unfiltered instructions speak of a filter:\n%s", plain)
	}
}

// TestToolFilterStartupErrors: New refuses a filter that names no tool of
// hookmcp, with close names, or that cannot be met, with a flag error (the
// process prints it naming the flag and its variable: see
// TestToolFilterUsage in package main).
func TestToolFilterStartupErrors(t *testing.T) {
	h := connect(t, config.Config{})
	for _, c := range []struct {
		name   string
		filter mcptool.Filter
		flag   string
		want   string
	}{
		{"unknown", mcptool.Filter{Only: []string{"get_reqest"}}, "tools", `"get_reqest" is not one (did you mean get_request?). It has create_token, get_token, update_token, delete_token, list_requests,`},
		{"unknown excluded", mcptool.Filter{Exclude: []string{"delete_tokens"}}, "exclude-tools", `"delete_tokens" is not one (did you mean delete_token?)`},
		{"no groups here", mcptool.Filter{Only: []string{"operations"}}, "tools", `"operations" is not one. It has`},
		{"read-only with a tool that writes", mcptool.Filter{ReadOnly: true, Only: []string{"get_request", "delete_requests"}}, "tools", `names "delete_requests", which is not read-only`},
		{"nothing left", mcptool.Filter{ReadOnly: true, Exclude: readOnlyTools}, "exclude-tools", "leaves no tool to offer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := newFiltered(t, h, config.Config{}, c.filter)
			var flagErr *app.FlagError
			if !errors.As(err, &flagErr) || flagErr.Flag != c.flag || !strings.Contains(flagErr.Problem, c.want) {
				t.Errorf("%v, want a --%s error containing %q", err, c.flag, c.want)
			}
		})
	}
}
