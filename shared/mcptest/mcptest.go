// Package mcptest holds the test plumbing both servers share: a client session
// connected to a server in memory, readers of tool results, the golden-file
// check of tool schemas, and building the server binary for subprocess tests.
package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptool"
)

// SyncBuffer is a log sink safe for a server's goroutines.
type SyncBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	written chan struct{} // closed, and replaced, on each write
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.written != nil {
		close(b.written)
		b.written = nil
	}
	return b.buf.Write(p)
}

// Await returns once the buffer holds text, or with ctx's error: a test
// waits on a log line instead of sleeping.
func (b *SyncBuffer) Await(ctx context.Context, text string) error {
	for {
		b.mu.Lock()
		found := strings.Contains(b.buf.String(), text)
		if b.written == nil {
			b.written = make(chan struct{})
		}
		written := b.written
		b.mu.Unlock()
		if found {
			return nil
		}
		select {
		case <-written:
		case <-ctx.Done():
			return fmt.Errorf("waiting for %q in the log: %w", text, ctx.Err())
		}
	}
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Connect connects a client session to server over in-memory transports and
// closes both when the test ends.
func Connect(t testing.TB, server *mcp.Server) *mcp.ClientSession {
	t.Helper()
	return ConnectWith(t, server, nil)
}

// ConnectWith is Connect with the client's options, for a test that
// handles notifications (progress, list changes).
func ConnectWith(t testing.TB, server *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	clientTransport, serverTransport := mcp.NewInMemoryTransports()
	serverSession, err := server.Connect(ctx, serverTransport, nil)
	if err != nil {
		t.Fatal(err)
	}
	session := connectClient(t, clientTransport, opts)
	t.Cleanup(func() {
		session.Close()
		serverSession.Wait()
	})
	return session
}

// ConnectClient connects a test client over transport and closes the session
// when the test ends. Every structured result the session receives is
// checked against the output schema tools/list gives for its tool, so a tool
// can never answer what its schema forbids without failing a test.
func ConnectClient(t testing.TB, transport mcp.Transport) *mcp.ClientSession {
	t.Helper()
	return connectClient(t, transport, nil)
}

func connectClient(t testing.TB, transport mcp.Transport, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts)
	check := &outputCheck{t: t}
	client.AddSendingMiddleware(check.middleware)
	session, err := client.Connect(context.Background(), transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	check.session = session
	t.Cleanup(func() { session.Close() })
	return session
}

// outputCheck validates the structured content of tool results against the
// tools' output schemas, read once from tools/list.
type outputCheck struct {
	t       testing.TB
	session *mcp.ClientSession
	mu      sync.Mutex
	schemas map[string]*jsonschema.Resolved // by tool name; nil entry: no output schema
}

func (c *outputCheck) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		result, err := next(ctx, method, req)
		res, ok := result.(*mcp.CallToolResult)
		if err != nil || !ok || res.StructuredContent == nil {
			return result, err
		}
		params, ok := req.GetParams().(*mcp.CallToolParams)
		if !ok {
			return result, err
		}
		name := params.Name
		for _, missing := range MissingFromText(res) {
			c.t.Errorf("%s: structured content's %s is not in the text content, which is all that some clients show the model", name, missing)
		}
		if schema := c.schema(ctx, name); schema != nil {
			if verr := schema.Validate(res.StructuredContent); verr != nil {
				raw, _ := json.Marshal(res.StructuredContent)
				c.t.Errorf("%s answered structured content that its output schema forbids: %v\n%.2000s", name, verr, raw)
			}
		}
		return result, err
	}
}

func (c *outputCheck) schema(ctx context.Context, tool string) *jsonschema.Resolved {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.schemas == nil {
		c.schemas = map[string]*jsonschema.Resolved{}
		for listed, err := range c.session.Tools(ctx, nil) {
			if err != nil {
				c.t.Errorf("tools/list, to check a result against its output schema: %v", err)
				break
			}
			c.schemas[listed.Name] = resolveOutput(c.t, listed)
		}
	}
	return c.schemas[tool]
}

func resolveOutput(t testing.TB, tool *mcp.Tool) *jsonschema.Resolved {
	if tool.OutputSchema == nil {
		return nil
	}
	data, err := json.Marshal(tool.OutputSchema)
	if err != nil {
		t.Errorf("%s: output schema: %v", tool.Name, err)
		return nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Errorf("%s: output schema does not decode: %v", tool.Name, err)
		return nil
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		t.Errorf("%s: output schema does not resolve: %v", tool.Name, err)
		return nil
	}
	return resolved
}

// Call runs a tool and returns its result; a protocol error fails the test.
func Call(t testing.TB, ctx context.Context, session *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s): protocol error: %v", tool, err)
	}
	return res
}

// Text joins a result's text content.
func Text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// LastText is a result's last text block: where a tool that writes a
// summary first puts the body, schema or view itself; a framed block
// (what a third party wrote, mcptool.Untrusted) is given without its frame.
func LastText(res *mcp.CallToolResult) string {
	for i := len(res.Content) - 1; i >= 0; i-- {
		if tc, ok := res.Content[i].(*mcp.TextContent); ok {
			text, _ := mcptool.Unframe(tc.Text)
			return text
		}
	}
	return ""
}

// Structured decodes a result's structured content as a JSON object.
func Structured(t testing.TB, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("structured content is not an object: %s", raw)
	}
	return out
}

// CheckToolNames checks that tools/list gives exactly the tools named want,
// in that order.
func CheckToolNames(t testing.TB, session *mcp.ClientSession, want []string) {
	t.Helper()
	list, err := session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkNames(t, list.Tools, want)
}

func checkNames(t testing.TB, tools []*mcp.Tool, want []string) {
	t.Helper()
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("tools/list names (-want +got):\n%s", diff)
	}
}

// CheckToolSchemas compares each tool as tools/list shows it (description,
// annotations, input and output schemas) with dir/<tool>.json, rewriting the
// files first when update is set, and checks that both schemas resolve as a
// strict client would. want lists the tool names tools/list must give.
func CheckToolSchemas(t *testing.T, session *mcp.ClientSession, dir string, update bool, want []string) {
	t.Helper()
	list, err := session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkNames(t, list.Tools, want)
	for _, tool := range list.Tools {
		t.Run(tool.Name, func(t *testing.T) {
			path := filepath.Join(dir, tool.Name+".json")
			if diff := toolGoldenDiff(t, tool, path, update); diff != "" {
				t.Errorf("%s differs from tools/list (-golden +got); run with -update if the change is deliberate:\n%s", path, diff)
			}
			checkSchemaResolves(t, tool)
		})
	}
}

// toolGoldenDiff compares a tool's tools/list entry, indented, with the
// golden file at path (written first, with its folder, when update is set)
// and returns the difference (-golden +got), "" when they agree.
func toolGoldenDiff(t *testing.T, tool *mcp.Tool, path string, update bool) string {
	t.Helper()
	got, err := json.MarshalIndent(tool, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	golden, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	return cmp.Diff(string(golden), string(got))
}

func checkSchemaResolves(t *testing.T, tool *mcp.Tool) {
	t.Helper()
	for name, raw := range map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
		data, err := json.Marshal(raw)
		if err != nil {
			t.Fatal(err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatalf("%s schema does not decode: %v", name, err)
		}
		if s.Type != "object" {
			t.Errorf("%s schema type = %q, want object", name, s.Type)
		}
		if _, err := s.Resolve(nil); err != nil {
			t.Errorf("%s schema does not resolve: %v", name, err)
		}
		var tree any
		_ = json.Unmarshal(data, &tree)
		for _, path := range typeLists(tree, name) {
			t.Errorf("%s: \"type\" is a list; clients that map schemas onto a single-type dialect refuse it (write anyOf branches)", path)
		}
	}
}

// typeLists returns the paths in a decoded schema where "type" is an array.
func typeLists(node any, path string) []string {
	var found []string
	switch n := node.(type) {
	case map[string]any:
		if _, isList := n["type"].([]any); isList {
			found = append(found, path)
		}
		for key, child := range n {
			found = append(found, typeLists(child, path+"."+key)...)
		}
	case []any:
		for i, child := range n {
			found = append(found, typeLists(child, fmt.Sprintf("%s[%d]", path, i))...)
		}
	}
	return found
}

// Binary is a main package that a test run builds and runs as a subprocess:
// its path is stored in *Path.
type Binary struct {
	Path      *string
	Name, Pkg string
}

// RunWithBinaries builds binaries, runs the tests and removes the builds; it
// is a whole TestMain. A failed build stops the run with exit code 1.
func RunWithBinaries(m *testing.M, binaries ...Binary) {
	os.Exit(runWithBinaries(m, binaries))
}

func runWithBinaries(m *testing.M, binaries []Binary) int {
	for _, b := range binaries {
		path, dir, err := buildBinary(b.Name, b.Pkg)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		*b.Path = path
	}
	return m.Run()
}

// buildBinary builds the main package pkg (such as "." or "./cmd/tool") into
// a temporary directory as name, for tests that run it as a subprocess. Call
// it from TestMain; remove the returned directory when the tests end.
func buildBinary(name, pkg string) (binary, dir string, err error) {
	dir, err = os.MkdirTemp("", name+"-test")
	if err != nil {
		return "", "", err
	}
	binary = filepath.Join(dir, name)
	// -buildvcs=auto stamps the commit, as a user's go build would, even where
	// GOFLAGS turns it off.
	build := exec.Command("go", "build", "-buildvcs=auto", "-o", binary, pkg)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		return "", "", fmt.Errorf("building %s: %w", name, err)
	}
	return binary, dir, nil
}

// MissingFromText returns the leaves of res's structured content (as
// "path = value") that its text content does not carry: a client that
// reads only text must see every value. A leaf is carried when a text block
// (or a framed block's content) that is a JSON object has the same value at the same path, or, for a
// non-empty string, when a text block holds the string as it is (a body or
// a schema in a block of its own, a value in a summary line).
func MissingFromText(res *mcp.CallToolResult) []string {
	if res.StructuredContent == nil {
		return nil
	}
	var structured any
	if raw, err := json.Marshal(res.StructuredContent); err != nil || json.Unmarshal(raw, &structured) != nil {
		return []string{"(structured content that does not encode)"}
	}
	var texts []string
	// Every block's value at a path: a body that is itself a JSON object
	// may share a path with the result ("size") and must not hide it.
	textLeaves := map[string][]any{}
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			continue
		}
		texts = append(texts, tc.Text)
		// A framed block (mcptool.Untrusted) is read by its content.
		text, _ := mcptool.Unframe(tc.Text)
		var block map[string]any
		if json.Unmarshal([]byte(text), &block) == nil {
			leaves(block, "", func(path string, v any) { textLeaves[path] = append(textLeaves[path], v) })
		}
	}
	var missing []string
	leaves(structured, "", func(path string, v any) {
		if slices.ContainsFunc(textLeaves[path], func(got any) bool { return cmp.Equal(got, v) }) {
			return
		}
		if s, ok := v.(string); ok && s != "" && slices.ContainsFunc(texts, func(t string) bool { return strings.Contains(t, s) }) {
			return
		}
		raw, _ := json.Marshal(v)
		missing = append(missing, fmt.Sprintf("%s = %.200s", path, raw))
	})
	return missing
}

// leaves calls visit with the path and value of every leaf of a decoded
// JSON value: strings, numbers, booleans, nulls, and empty objects and
// arrays (which say something too).
func leaves(v any, path string, visit func(path string, v any)) {
	switch n := v.(type) {
	case map[string]any:
		if len(n) == 0 && path != "" { // an empty result carries nothing
			visit(path, n)
		}
		for key, child := range n {
			leaves(child, path+"."+key, visit)
		}
	case []any:
		if len(n) == 0 {
			visit(path, n)
		}
		for i, child := range n {
			leaves(child, fmt.Sprintf("%s[%d]", path, i), visit)
		}
	default:
		visit(path, v)
	}
}
