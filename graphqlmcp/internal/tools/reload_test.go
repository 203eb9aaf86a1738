package tools

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/config"
	"github.com/mcpforge/servers/graphqlmcp/internal/schema"
	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
	"github.com/mcpforge/servers/shared/mcptool"
)

// inProcess is an HTTP client that hands every request to h in the
// process: inside a synctest bubble, where a socket's wait is not one the
// bubble can tell from a blocked goroutine.
func inProcess(h http.Handler) *http.Client {
	return &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Result(), nil
	})}
}

// reloadServer serves cfg in a synctest bubble, with hup in place of
// SIGHUP; it returns the client's session, the count of
// notifications/tools/list_changed and the log.
func reloadServer(t *testing.T, cfg config.Config, client *http.Client, hup chan struct{}) (*mcp.ClientSession, chan struct{}, *mcptest.SyncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), reloadKey{}, hup))
	t.Cleanup(cancel)
	logs := &mcptest.SyncBuffer{}
	server, err := New(ctx, Options{Config: cfg, HTTP: client, Logger: slog.New(slog.NewTextHandler(logs, nil)), Version: "test"})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	changed := make(chan struct{}, 10)
	session := mcptest.ConnectWith(t, server, &mcp.ClientOptions{
		// Never blocks: a handler stuck on a full channel holds the client
		// session, whose close at the test's end then waits forever while
		// reloads still notify (TestReloadStormDuringCalls hung so). The
		// tests that count list_changed count far fewer than it holds.
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	return session, changed, logs
}

// askReload asks for a reload, as SIGHUP does, and lets the bubble's clock
// pass the SDK's delay of notifications.
func askReload(hup chan struct{}) {
	hup <- struct{}{}
	time.Sleep(100 * time.Millisecond)
	synctest.Wait()
}

// afterPoll lets the bubble's clock pass one poll of the files, and
// everything it started finish.
func afterPoll() {
	time.Sleep(pollSaved + time.Second)
	synctest.Wait()
}

// TestTouchedOperationsAskNoSchema: a saved-operations file touched (a new
// time, the same text) is not a change: the poll that sees it reloads
// nothing and does not ask the endpoint for its schema again; an edit
// does, and so does a SIGHUP, by which the operator may say the API
// changed.
func TestTouchedOperationsAskNoSchema(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := testservers.Record(testservers.Starwars())
		file := filepath.Join(t.TempDir(), "ops.graphql")
		writeFile(t, file, "query Hero { hero { name } }")
		cfg := testConfig(t, "http://api.test/graphql")
		cfg.Validate, cfg.Operations = true, []string{file}
		hup := make(chan struct{})
		session, changed, _ := reloadServer(t, cfg, inProcess(api), hup)
		// One introspection at start: the endpoint may be asked it again
		// in older forms (schema.Fetch), so each is counted from here.
		once := api.Introspections()
		if once == 0 {
			t.Fatal("no introspection at start")
		}

		later := time.Date(2031, 1, 2, 3, 4, 5, 0, time.UTC)
		if err := os.Chtimes(file, later, later); err != nil {
			t.Fatal(err)
		}
		afterPoll()
		if n := api.Introspections(); n != once || len(changed) != 0 {
			t.Fatalf("after a touch: %d introspections, %d list_changed; want %d and none", n, len(changed), once)
		}

		writeFile(t, file, "query Droid { hero { id name } }")
		afterPoll()
		if n := api.Introspections(); n != 2*once || len(changed) != 1 {
			t.Fatalf("after an edit: %d introspections, %d list_changed; want %d and 1", n, len(changed), 2*once)
		}
		if tools := toolsByName(t, session); tools["droid"] == nil || tools["hero"] != nil {
			t.Errorf("after the edit, tools are %v; want droid in place of hero", tools)
		}

		askReload(hup)
		if n := api.Introspections(); n != 3*once {
			t.Fatalf("after a SIGHUP: %d introspections, want %d", n, 3*once)
		}
	})
}

// The schemas of TestSchemaFileReload: v2 makes Item.id an Int and adds
// Item.title; broken is not SDL.
const (
	reloadSchemaV1     = "type Query { items: [Item] }\ntype Item { id: ID }"
	reloadSchemaV2     = "type Query { items: [Item] }\ntype Item { id: Int title: String }"
	reloadSchemaNoItem = "type Query { other: String }"
	reloadSchemaBroken = "type Query {"
)

// schemaFileConfig is a configuration with --schema (reloadSchemaV1) and
// one saved operation, Items, in files of their own.
func schemaFileConfig(t *testing.T) (cfg config.Config, schemaFile, ops string) {
	t.Helper()
	dir := t.TempDir()
	schemaFile, ops = filepath.Join(dir, "schema.graphql"), filepath.Join(dir, "ops.graphql")
	writeFile(t, schemaFile, reloadSchemaV1)
	writeFile(t, ops, "query Items { items { id } }")
	cfg = testConfig(t, "http://api.test/graphql")
	var err error
	if cfg.Schema, err = schema.Load(schemaFile, time.Now()); err != nil {
		t.Fatal(err)
	}
	cfg.SchemaFile, cfg.Validate, cfg.Operations = schemaFile, true, []string{ops}
	return cfg, schemaFile, ops
}

// TestSchemaFileReload: the --schema file is read again on SIGHUP and when
// a poll finds it changed: the tools and the schema resource serve the new
// schema, and the saved operations are checked against it and their tools
// rebuilt (list_changed). A file that does not load, or that the saved
// operations do not meet, keeps what was served, and the log says why.
func TestSchemaFileReload(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg, schemaFile, _ := schemaFileConfig(t)
		api := testservers.Record(http.NotFoundHandler())
		hup := make(chan struct{})
		session, changed, logs := reloadServer(t, cfg, inProcess(api), hup)
		idType := func() string {
			t.Helper()
			out, _ := json.Marshal(toolsByName(t, session)["items"].OutputSchema)
			switch {
			case strings.Contains(string(out), `"id":{"anyOf":[{"type":"integer"},{"type":"null"}]}`):
				return "Int"
			case strings.Contains(string(out), `"id":{"anyOf":[{"type":"string"},{"type":"null"}]}`):
				return "ID"
			}
			return string(out)
		}
		sdl := func() string {
			t.Helper()
			res, err := session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: schemaURI})
			if err != nil {
				t.Fatal(err)
			}
			if res.TTLMs != 0 {
				t.Errorf("graphql://schema may be kept %d ms, and a reload may change it at any time", res.TTLMs)
			}
			return res.Contents[0].Text
		}
		if got := idType(); got != "ID" {
			t.Fatalf("at start, items' id is %s, want ID", got)
		}

		writeFile(t, schemaFile, reloadSchemaV2)
		askReload(hup)
		if got := idType(); got != "Int" || len(changed) != 1 || !strings.Contains(sdl(), "title: String") {
			t.Fatalf("after SIGHUP: items' id is %s, %d list_changed, schema:\n%s\nwant Int, 1, and title", got, len(changed), sdl())
		}

		// A file that does not load keeps the schema served; one that
		// loads is served, and operations it cannot serve keep their last
		// good tools, as after a bad edit of theirs.
		for _, bad := range []struct{ text, log, served string }{
			{reloadSchemaBroken, "--schema not reloaded; the last good schema stays", "title: String"},
			{reloadSchemaNoItem, `saved operations not reloaded; the last good set stays`, "other: String"},
		} {
			writeFile(t, schemaFile, bad.text)
			askReload(hup)
			if text := sdl(); !strings.Contains(text, bad.served) {
				t.Errorf("%q: the schema served is not the one with %s:\n%s", bad.text, bad.served, text)
			}
			if !strings.Contains(logs.String(), bad.log) {
				t.Errorf("%q: the log does not say %q:\n%s", bad.text, bad.log, logs.String())
			}
			if got := idType(); got != "Int" {
				t.Errorf("%q: items' id is %s; want the last good tools", bad.text, got)
			}
		}

		// No signal: the poll finds the edit.
		before := len(changed)
		writeFile(t, schemaFile, reloadSchemaV1)
		afterPoll()
		if got := idType(); got != "ID" || len(changed) != before+1 || strings.Contains(sdl(), "title") {
			t.Errorf("after a poll: items' id is %s, %d list_changed; want ID and one more, schema:\n%s", got, len(changed)-before, sdl())
		}
		if n := api.Count(); n != 0 {
			t.Errorf("the endpoint was asked %d times; the schema file serves it", n)
		}
	})
}

// TestEditedOperationsReadNoSchemaFile: an edit of the saved operations
// reloads them, and reads the --schema file again only if it changed too
// (by its own name, size and time, as the poll tells): parsing a big
// schema at every edit of an operation would be wasted work. A SIGHUP
// reads it whatever the poll says.
func TestEditedOperationsReadNoSchemaFile(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg, schemaFile, ops := schemaFileConfig(t)
		hup := make(chan struct{})
		session, changed, logs := reloadServer(t, cfg, inProcess(http.NotFoundHandler()), hup)

		// The schema file's text changes, its size and time do not: a
		// read of it would log that it does not load.
		info, err := os.Stat(schemaFile)
		if err != nil {
			t.Fatal(err)
		}
		broken := reloadSchemaBroken + strings.Repeat(" ", len(reloadSchemaV1)-len(reloadSchemaBroken))
		writeFile(t, schemaFile, broken)
		if err := os.Chtimes(schemaFile, info.ModTime(), info.ModTime()); err != nil {
			t.Fatal(err)
		}
		writeFile(t, ops, "query Ids { items { id } }")
		afterPoll()
		if tools := toolsByName(t, session); tools["ids"] == nil || len(changed) != 1 {
			t.Fatalf("after an edit of the operations: tools %v, %d list_changed; want ids and 1", tools, len(changed))
		}
		if strings.Contains(logs.String(), "--schema not reloaded") {
			t.Errorf("an edit of the operations read the schema file, unchanged by its size and time:\n%s", logs.String())
		}

		askReload(hup)
		if !strings.Contains(logs.String(), "--schema not reloaded; the last good schema stays") {
			t.Errorf("a SIGHUP did not read the schema file:\n%s", logs.String())
		}
	})
}

// TestReloadAskedAtStart: a SIGHUP that comes while the server starts (its
// reload runs as soon as the watch does) leaves graphql://schema listed
// with the size of the schema it serves: the resource is listed before
// any reload can describe it again.
func TestReloadAskedAtStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg, schemaFile, _ := schemaFileConfig(t)
		cfg.Operations = nil
		writeFile(t, schemaFile, reloadSchemaV2)
		hup := make(chan struct{}, 1)
		hup <- struct{}{}
		session, _, _ := reloadServer(t, cfg, nil, hup)
		synctest.Wait()
		served, err := schema.Load(schemaFile, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		list, err := session.ListResources(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		want := int64(mcptool.FramedLen(schemaFrameLabel, len(served.View(true).SDL)))
		for _, r := range list.Resources {
			if r.URI == schemaURI && r.Size != want {
				t.Errorf("graphql://schema is listed with %d bytes, the schema served has %d", r.Size, want)
			}
		}
	})
}

// TestReloadStormDuringCalls: SIGHUPs one after another, each with the
// --schema file changed, while calls of graphql_query, of a saved
// operation and reads of graphql://schema run: every call is checked
// against one schema from start to end and succeeds (the operation is
// valid under both schemas), and the race detector finds nothing.
func TestReloadStormDuringCalls(t *testing.T) {
	cfg, schemaFile, _ := schemaFileConfig(t)
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"data":{"items":[]}}`))
	})
	hup := make(chan struct{})
	session, changed, _ := reloadServer(t, cfg, inProcess(api), hup)
	ctx := context.Background()
	storm := make(chan struct{})
	go func() { // a list_changed for each reload: more than changed holds
		for {
			select {
			case <-changed:
			case <-t.Context().Done():
				return
			}
		}
	}()
	go func() {
		defer close(storm)
		for i := range 60 {
			writeFile(t, schemaFile, []string{reloadSchemaV1, reloadSchemaV2}[i%2])
			hup <- struct{}{}
		}
	}()
	var calls sync.WaitGroup
	failures := make(chan string, 1000)
	fail := func(s string) {
		select {
		case failures <- s:
		default: // enough to tell
		}
	}
	for range 3 {
		calls.Go(func() {
			for {
				select {
				case <-storm:
					return
				default:
				}
				for _, p := range []*mcp.CallToolParams{
					{Name: "graphql_query", Arguments: map[string]any{"query": "{ items { id } }"}},
					{Name: "items"},
				} {
					res, err := session.CallTool(ctx, p)
					switch {
					case err != nil:
						fail(p.Name + ": " + err.Error())
					case res.IsError:
						fail(p.Name + ": " + res.Content[0].(*mcp.TextContent).Text)
					}
				}
				if _, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: schemaURI}); err != nil {
					fail("graphql://schema: " + err.Error())
				}
			}
		})
	}
	calls.Wait()
	close(failures)
	for f := range failures {
		t.Error(f)
	}
}
