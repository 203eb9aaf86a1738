package tools

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/config"
	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/app"
	"github.com/mcpforge/servers/shared/mcptest"
	"github.com/mcpforge/servers/shared/mcptool"
)

// newFiltered is a server configured by cfg under the operator's filter f,
// or the startup error New gives.
func newFiltered(cfg config.Config, f mcptool.Filter) (*mcp.Server, error) {
	return New(context.Background(), Options{
		Config:  cfg,
		HTTP:    upstream.NewHTTPClient("graphqlmcp-test"),
		Logger:  slog.New(slog.DiscardHandler),
		Version: "test",
		Tools:   f,
	})
}

func connectFiltered(t *testing.T, cfg config.Config, f mcptool.Filter) *mcp.ClientSession {
	t.Helper()
	server, err := newFiltered(cfg, f)
	if err != nil {
		t.Fatal(err)
	}
	return mcptest.Connect(t, server)
}

// TestToolFilterModes: tools/list under each mode of the filter, held to
// golden files as the default list is (TestToolSchemas): the names, each
// tool as the default list shows it unless the mode changes it (graphql_query
// under --read-only, in testdata/modes/read-only/), and the list's size in
// testdata/modes/<mode>.txt. --read-only gives the same list whatever
// --mutations says. Run with -update after a deliberate change.
func TestToolFilterModes(t *testing.T) {
	for _, c := range []struct {
		mode      string
		mutations config.Mutations
		filter    mcptool.Filter
		want      []string
		changed   []string
	}{
		{"read-only", config.MutationsPerCall, mcptool.Filter{ReadOnly: true}, []string{"graphql_introspect", "graphql_query"}, []string{"graphql_query"}},
		{"read-only", config.MutationsAlways, mcptool.Filter{ReadOnly: true}, []string{"graphql_introspect", "graphql_query"}, []string{"graphql_query"}},
		{"tools", config.MutationsPerCall, mcptool.Filter{Only: []string{"graphql_introspect"}}, []string{"graphql_introspect"}, nil},
		{"exclude-tools", config.MutationsPerCall, mcptool.Filter{Exclude: []string{"graphql_query"}}, []string{"graphql_introspect"}, nil},
	} {
		t.Run(c.mode+"/"+string(c.mutations), func(t *testing.T) {
			cfg := testConfig(t, "http://localhost:4000/graphql")
			cfg.Validate = true
			cfg.Mutations = c.mutations
			mcptest.CheckToolMode(t, connectFiltered(t, cfg, c.filter), mcptest.ToolMode{Name: c.mode, Want: c.want, Changed: c.changed}, *update, mcptest.ListSize{Whole: 4_000})
		})
	}
}

// TestReadOnly: under --read-only graphql_query is annotated read-only and
// says why (its description and allowMutations name --read-only, not
// --mutations), the instructions say mutations are disabled and the server
// read-only, and a mutation is refused naming --read-only before anything
// is sent, even with --mutations always and allowMutations: true, while a
// query runs.
func TestReadOnly(t *testing.T) {
	var sent atomic.Int32
	var lastBody atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent.Add(1)
		body, _ := io.ReadAll(r.Body)
		lastBody.Store(string(body))
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":{"hello":"world"}}`)
	}))
	defer srv.Close()
	cfg := testConfig(t, srv.URL)
	cfg.Mutations = config.MutationsAlways
	session := connectFiltered(t, cfg, mcptool.Filter{ReadOnly: true})

	list, err := session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	query := list.Tools[slices.IndexFunc(list.Tools, func(tool *mcp.Tool) bool { return tool.Name == "graphql_query" })]
	if !query.Annotations.ReadOnlyHint || query.Annotations.DestructiveHint != nil {
		t.Errorf("graphql_query annotations under --read-only: %+v", query.Annotations)
	}
	if !strings.Contains(query.Description, readOnlyQueryText) || strings.Contains(query.Description, "--mutations") {
		t.Errorf("graphql_query's description does not say --read-only: %s", query.Description)
	}
	raw, _ := json.Marshal(query.InputSchema)
	if !strings.Contains(string(raw), "has no effect: this server refuses every mutation (--read-only)") {
		t.Errorf("allowMutations does not say --read-only: %s", raw)
	}
	instructions := session.InitializeResult().Instructions
	for _, want := range []string{mutationText(config.MutationsNever).instructions, "\nThis server is read-only (its operator's choice, --read-only)"} {
		if !strings.Contains(instructions, want) {
			t.Errorf("instructions lack %q:\n%s", want, instructions)
		}
	}

	for _, args := range []map[string]any{
		{"query": "mutation Kill { deleteAll }", "allowMutations": true},
		{"query": "query Q { hello } mutation M { deleteAll }", "operationName": "M"},
	} {
		res := mcptest.Call(t, context.Background(), session, "graphql_query", args)
		want := "is a mutation, and this server is read-only (--read-only): it refuses all mutations, and only its operator can change that"
		if !res.IsError || !strings.Contains(mcptest.Text(res), want) {
			t.Errorf("%v: %s, want a refusal containing %q", args, mcptest.Text(res), want)
		}
	}
	if n := sent.Load(); n != 0 {
		t.Fatalf("%d requests reached the endpoint; a refused mutation sends nothing", n)
	}
	res := mcptest.Call(t, context.Background(), session, "graphql_query", map[string]any{"query": "query Q { hello } mutation M { deleteAll }", "operationName": "Q"})
	if res.IsError || sent.Load() != 1 || !strings.Contains(lastBody.Load().(string), "query Q") || strings.Contains(lastBody.Load().(string), "mutation") {
		t.Errorf("a query under --read-only: %s; sent %d, body %v", mcptest.Text(res), sent.Load(), lastBody.Load())
	}
	// An operation that does not parse gets graphql_query's own error.
	if res := mcptest.Call(t, context.Background(), session, "graphql_query", map[string]any{"query": "mutation {"}); !res.IsError || strings.Contains(mcptest.Text(res), "read-only") {
		t.Errorf("a syntax error: %s", mcptest.Text(res))
	}
}

// TestWithheldCall: a call to a tool the filter leaves out is refused as
// unknown (invalid params), saying the operator left it out and by which
// flag.
func TestWithheldCall(t *testing.T) {
	session := connectFiltered(t, testConfig(t, "http://localhost:4000/graphql"), mcptool.Filter{Only: []string{"graphql_introspect"}})
	_, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "graphql_query", Arguments: map[string]any{"query": "{ a }"}})
	var rpcErr *jsonrpc.Error
	want := `unknown tool "graphql_query": this server has it, but its operator does not offer it here (--tools names the tools offered, and not this one)`
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || !strings.HasPrefix(rpcErr.Message, want) {
		t.Errorf("%v, want an invalid-params error starting %q", err, want)
	}
}

// TestToolFilterStartupErrors: New refuses a filter that names no tool or
// group of graphqlmcp, with close names, or that cannot be met, with a flag
// error (the process prints it naming the flag and its variable: see
// TestToolFilterUsage in package main). --read-only --tools graphql_query
// is no error: under --read-only graphql_query reads.
func TestToolFilterStartupErrors(t *testing.T) {
	cfg := testConfig(t, "http://localhost:4000/graphql")
	for _, c := range []struct {
		name   string
		filter mcptool.Filter
		flag   string
		want   string
	}{
		{"unknown", mcptool.Filter{Only: []string{"graphql_querry"}}, "tools", `"graphql_querry" is not one (did you mean graphql_query?). It has graphql_query, graphql_introspect; the group operations has no tools`},
		{"unknown excluded", mcptool.Filter{Exclude: []string{"introspect"}}, "exclude-tools", `"introspect" is not one (did you mean graphql_introspect?)`},
		{"operations without any", mcptool.Filter{Only: []string{"operations"}}, "tools", `names the group "operations", which has no tools on this server as started: load saved operations with --operations, or remove it`},
		{"nothing left", mcptool.Filter{Exclude: []string{"graphql_query", "graphql_introspect"}}, "exclude-tools", "leaves no tool to offer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := newFiltered(cfg, c.filter)
			var flagErr *app.FlagError
			if !errors.As(err, &flagErr) || flagErr.Flag != c.flag || !strings.Contains(flagErr.Problem, c.want) {
				t.Errorf("%v, want a --%s error containing %q", err, c.flag, c.want)
			}
		})
	}
	if _, err := newFiltered(cfg, mcptool.Filter{ReadOnly: true, Only: []string{"graphql_query"}}); err != nil {
		t.Errorf("--read-only --tools graphql_query: %v", err)
	}
}

// TestToolFilterSavedOperations: the startup check knows the saved
// operations: a misspelt one gets the close name, one that changes data
// named under --read-only is refused rather than dropped, and --tools
// operations with --exclude-tools lists every saved operation but those;
// a call to a saved mutation --read-only leaves out says why.
func TestToolFilterSavedOperations(t *testing.T) {
	cfg := kindsConfig(t, "http://127.0.0.1:9/graphql", filepath.Join(kindsDir, "ops"))
	for _, c := range []struct {
		name   string
		filter mcptool.Filter
		flag   string
		want   string
	}{
		{"misspelt", mcptool.Filter{Only: []string{"find_itmes"}}, "tools", `"find_itmes" is not one (did you mean find_items?). It has graphql_query, graphql_introspect, find_items, user_by_key, search, tag_item; the group operations has 4 tools`},
		{"a mutation under read-only", mcptool.Filter{ReadOnly: true, Only: []string{"search", "tag_item"}}, "tools", `names "tag_item", which is not read-only (it changes or sends something), and --read-only offers only the tools that read`},
		{"a tool its group's exclusion leaves out", mcptool.Filter{Only: []string{"search"}, Exclude: []string{"operations"}}, "tools", `names "search", and --exclude-tools leaves it out with its group (operations)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			_, err := New(ctx, Options{Config: cfg, HTTP: upstream.NewHTTPClient("test"), Logger: slog.New(slog.DiscardHandler), Tools: c.filter})
			var flagErr *app.FlagError
			if !errors.As(err, &flagErr) || flagErr.Flag != c.flag || !strings.Contains(flagErr.Problem, c.want) {
				t.Errorf("%v, want a --%s error containing %q", err, c.flag, c.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	server, err := New(ctx, Options{Config: cfg, HTTP: upstream.NewHTTPClient("test"), Logger: slog.New(slog.DiscardHandler),
		Tools: mcptool.Filter{ReadOnly: true, Only: []string{"operations"}, Exclude: []string{"search"}}})
	if err != nil {
		t.Fatal(err)
	}
	session := mcptest.Connect(t, server)
	mcptest.CheckToolNames(t, session, []string{"find_items", "user_by_key"})
	_, err = session.CallTool(context.Background(), &mcp.CallToolParams{Name: "tag_item", Arguments: map[string]any{"id": "1", "tag": "x"}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || !strings.Contains(rpcErr.Message, `unknown tool "tag_item": this server has it, but its operator does not offer it here (--read-only`) {
		t.Errorf("calling tag_item: %v", err)
	}
}

// TestWithheldAfterReload: a reload of the saved operations keeps the
// filter's answers current: a saved mutation a reload adds is refused under
// --read-only saying so, not with the SDK's bare "unknown tool"; an
// operation --exclude-tools named that the reload removed is no longer
// said to be on the server; and an operation named in --tools that the
// reload removed is logged as a warning naming it, not dropped in silence.
func TestWithheldAfterReload(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ops.graphql")
	writeFile(t, file, "query First { items { id } }\nquery Gone { items { id } }\n")
	reload := make(chan struct{})
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), reloadKey{}, reload))
	t.Cleanup(cancel)
	logs := &mcptest.SyncBuffer{}
	server, err := New(ctx, Options{Config: kindsConfig(t, "http://127.0.0.1:9/graphql", dir), HTTP: upstream.NewHTTPClient("graphqlmcp-test"),
		Logger: slog.New(slog.NewTextHandler(logs, nil)), Version: "test",
		Tools: mcptool.Filter{ReadOnly: true, Only: []string{"first", "operations"}, Exclude: []string{"gone"}}})
	if err != nil {
		t.Fatal(err)
	}
	changed := make(chan struct{}, 10)
	session := mcptest.ConnectWith(t, server, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	writeFile(t, file, "query Keep { items { id } }\nmutation TagItem($id: ID!, $tag: String!) { tag(id: $id, tag: $tag) { id } }\n")
	reload <- struct{}{}
	waitFor(t, changed)
	if tools := toolsByName(t, session); tools["keep"] == nil || tools["first"] != nil || tools["tag_item"] != nil {
		t.Fatalf("after the reload, tools are %v; want keep, without first and tag_item", tools)
	}
	for _, c := range []struct{ tool, want string }{
		{"tag_item", `unknown tool "tag_item": this server has it, but its operator does not offer it here (--read-only offers only the tools that read, and this one changes or sends something)`},
		{"gone", `unknown tool "gone"`},
	} {
		_, err := session.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: map[string]any{}})
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || !strings.HasPrefix(rpcErr.Message, c.want) {
			t.Errorf("%s: %v, want an invalid-params error starting %q", c.tool, err, c.want)
		}
		if c.tool == "gone" && rpcErr != nil && strings.Contains(rpcErr.Message, "this server has it") {
			t.Errorf("gone: %q, but the reload removed it", rpcErr.Message)
		}
	}
	wait, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	if err := logs.Await(wait, "level=WARN"); err != nil {
		t.Fatalf("%v: no warning:\n%s", err, logs.String())
	}
	if warn := logs.String(); !strings.Contains(warn, "--tools") || !strings.Contains(warn, "first") {
		t.Errorf("the warning does not name first and --tools:\n%s", warn)
	}
}
