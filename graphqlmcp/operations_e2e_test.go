package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// kinds is the schema and operations that hold every GraphQL input type
// kind (internal/tools/testdata/operations/kinds).
const (
	kindsSchema = "internal/tools/testdata/operations/kinds/schema.graphql"
	kindsOps    = "internal/tools/testdata/operations/kinds/ops"
)

// kindsEndpoint answers the kinds operations with canned data.
func kindsEndpoint(t *testing.T) string {
	t.Helper()
	srv, _ := testservers.Start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			OperationName string `json:"operationName"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "application/json")
		switch body.OperationName {
		case "FindItems":
			io.WriteString(w, `{"data":{"items":[{"id":"1","title":null,"at":"2024-01-01T00:00:00Z","score":1.5,"tags":["a"],"order":"ASC","sameOrder":"ASC"}]}}`)
		case "UserByKey":
			io.WriteString(w, `{"data":{"user":{"id":"1","login":"octocat","items":[{"id":"2"}]}}}`)
		case "Search":
			io.WriteString(w, `{"data":{"search":[{"__typename":"User","login":"octocat"},{"__typename":"Item","title":"t"}]}}`)
		default:
			io.WriteString(w, `{"data":null,"errors":[{"message":"unknown operation"}]}`)
		}
	}))
	return srv.URL
}

// TestSavedOperationsTypeScriptSDK: the official TypeScript SDK lists the
// saved operations' tools over Streamable HTTP and its own JSON Schema
// validator (AJV, as its Client uses) holds arguments to their input
// schemas as GraphQL coerces them: every input type kind accepted when
// right and refused when wrong; a call's structured result passes the
// SDK's check against the output schema.
func TestSavedOperationsTypeScriptSDK(t *testing.T) {
	if os.Getenv("MCP_TS_CLIENT") == "" {
		t.Skip("MCP_TS_CLIENT is not set; scripts/e2e installs the TypeScript SDK and sets it")
	}
	cmd := exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "-e", kindsEndpoint(t), "--schema", kindsSchema, "--operations", kindsOps)
	endpoint := mcptest.StartHTTP(t, cmd)
	defer mcptest.Stop(t, cmd)
	type tsCase struct {
		Tool  string         `json:"tool"`
		Args  map[string]any `json:"args"`
		Call  bool           `json:"call,omitempty"`
		valid bool
	}
	obj := func(s string) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	cases := []tsCase{
		{Tool: "find_items", Args: obj(`{"exact": true, "first": 3, "ratio": 0.5, "ids": ["1"], "when": "2024-01-01T00:00:00Z", "order": "DESC", "filter": {"and": [{"not": {"tags": ["x"]}}]}}`), Call: true, valid: true},
		{Tool: "find_items", Args: obj(`{}`), valid: false},
		{Tool: "find_items", Args: obj(`{"exact": true, "first": 2.5}`), valid: false},
		{Tool: "find_items", Args: obj(`{"exact": true, "ratio": "x"}`), valid: false},
		{Tool: "find_items", Args: obj(`{"exact": true, "ids": [null]}`), valid: false},
		{Tool: "find_items", Args: obj(`{"exact": true, "when": 5}`), Call: true, valid: true}, // a custom scalar takes what its endpoint parses
		{Tool: "find_items", Args: obj(`{"exact": true, "ids": 7}`), Call: true, valid: true},  // a list takes one item; ID an integer
		{Tool: "find_items", Args: obj(`{"exact": true, "ids": [true]}`), valid: false},
		{Tool: "find_items", Args: obj(`{"exact": true, "order": "SIDEWAYS"}`), valid: false},
		{Tool: "find_items", Args: obj(`{"exact": true, "filter": {"and": [{"not": {"tags": [1]}}]}}`), valid: false},
		{Tool: "find_items", Args: obj(`{"exact": true, "filter": {"order": null}}`), valid: false},
		{Tool: "find_items", Args: obj(`{"exact": true, "extra": 1}`), valid: false},
		{Tool: "user_by_key", Args: obj(`{"key": {"login": "octocat"}}`), Call: true, valid: true},
		{Tool: "user_by_key", Args: obj(`{"key": {"id": "1", "login": "x"}}`), valid: false},
		{Tool: "user_by_key", Args: obj(`{"key": {}}`), valid: false},
		{Tool: "search", Args: obj(`{"text": "oct"}`), Call: true, valid: true},
	}
	casesJSON, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	node := exec.CommandContext(ctx, "node", "testdata/operations/validate-args.mjs", endpoint, string(casesJSON))
	node.Stderr = &stderr
	out, err := node.Output()
	if err != nil {
		t.Fatalf("node validate-args.mjs: %v\n%s", err, stderr.String())
	}
	var results []struct {
		Tool      string  `json:"tool"`
		Valid     bool    `json:"valid"`
		Message   *string `json:"message"`
		IsError   bool    `json:"isError"`
		Text      string  `json:"text"`
		CallError string  `json:"callError"`
	}
	if err := json.Unmarshal(out, &results); err != nil || len(results) != len(cases) {
		t.Fatalf("validate-args.mjs printed %s (%v)", out, err)
	}
	for i, r := range results {
		c := cases[i]
		if r.Valid != c.valid {
			t.Errorf("%s %v: the TypeScript SDK's validator says valid %v (%v), want %v", c.Tool, c.Args, r.Valid, r.Message, c.valid)
		}
		if c.Call && (r.CallError != "" || r.IsError) {
			t.Errorf("%s %v: the TypeScript SDK's call failed: %s %s", c.Tool, c.Args, r.CallError, r.Text)
		}
	}
}

// TestSavedOperationsReloadBinary: the built binary, over stdio, reads
// its operation files again on SIGHUP and tells the go-sdk client the
// tool list changed; a bad edit keeps the last good set; and a bad file
// at startup stops it with one line per problem, file:line:col.
func TestSavedOperationsReloadBinary(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ops.graphql")
	if err := os.WriteFile(file, []byte("query First { items { id } }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	changed := make(chan struct{}, 10)
	cmd := exec.Command(binary, "-e", "http://127.0.0.1:9/graphql", "--schema", kindsSchema, "--operations", dir)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "reload-test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	names := func() string {
		list, err := session.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range list.Tools {
			names = append(names, tool.Name)
		}
		return strings.Join(names, ",")
	}
	if got := names(); !strings.Contains(got, "first") {
		t.Fatalf("tools %s, want first", got)
	}
	if err := os.WriteFile(file, []byte("query Second { items { id } }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no notifications/tools/list_changed after SIGHUP")
	}
	if got := names(); !strings.Contains(got, "second") || strings.Contains(got, "first") {
		t.Errorf("after the edit, tools %s; want second in place of first", got)
	}

	bad := exec.Command(binary, "-e", "http://127.0.0.1:9/graphql", "--schema", kindsSchema, "--operations", filepath.Join(dir, "broken.graphql")+","+file)
	if err := os.WriteFile(filepath.Join(dir, "broken.graphql"), []byte("query Broken {\n  items { nope }\n  other\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	bad.Stderr = &stderr
	bad.Stdin = strings.NewReader("")
	if err := bad.Run(); err == nil {
		t.Fatal("the binary started with a bad operation file")
	}
	// One line per problem, file:line:col: message, under one that says
	// what they stop.
	want := []string{
		"graphqlmcp: --operations: the saved operations cannot be served:",
		filepath.Join(dir, "broken.graphql") + `:2:11: Cannot query field "nope" on type "Item".`,
		filepath.Join(dir, "broken.graphql") + `:3:3: Cannot query field "other" on type "Query". Did you mean "user"?`,
	}
	got := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), strings.Join(want, "\n"))
	}
}
