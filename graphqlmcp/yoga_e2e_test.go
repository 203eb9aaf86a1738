package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptest"
	"github.com/mcpforge/servers/shared/mcptool"
)

// TestYogaIncremental runs graphql_query, in the built graphqlmcp over
// stdio, against servers this project did not write that answer @defer and
// @stream in parts (multipart/mixed): graphql-yoga with its defer-stream
// plugin (scripts/yoga/server.mjs), which sends the 2022 draft's payloads,
// and graphql-js 17 itself (scripts/yoga/graphqljs17.mjs), in its own
// format (pending, incremental by id, completed) and in its legacy one.
// scripts/yoga-e2e installs Node and the pinned packages and sets
// YOGA_SERVER (the folder holding both scripts); the test is skipped
// without it.
func TestYogaIncremental(t *testing.T) {
	dir := os.Getenv("YOGA_SERVER")
	if dir == "" {
		t.Skip("YOGA_SERVER is not set; scripts/yoga-e2e installs graphql-yoga and graphql-js 17 (pinned) and sets it")
	}
	servers := []struct {
		name, script, path string
	}{
		{"graphql-yoga, 2022 draft", "server.mjs", "/graphql"},
		{"graphql-js 17", "graphqljs17.mjs", "/graphql"},
		{"graphql-js 17, legacy format", "graphqljs17.mjs", "/legacy"},
	}
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			server := exec.Command("node", filepath.Join(dir, s.script))
			endpoint := strings.TrimSuffix(mcptest.StartHTTP(t, server), "/graphql") + s.path
			session := mcptest.ConnectClient(t, &mcp.CommandTransport{Command: exec.Command(binary, "--endpoint", endpoint,
				"--headers", `{"Authorization": "Bearer `+yogaSecret+`"}`)})
			incrementalCalls(t, session)
			mcptest.Stop(t, server)
		})
	}
}

// yogaSecret is the startup credential the servers' echo field sends
// back in a deferred part.
const yogaSecret = "yoga-e2e-secret-token"

// incrementalCalls checks, over session, that an operation with @defer and
// @stream passes validation against the schema the server introspects
// (which declares both) and comes back merged: the deferred fields in the
// hero, every streamed friend in order, the deferred field's error kept,
// and a note that says how many parts came and their labels; that a
// deferred fragment a non-null field's error nulls adds nothing but that
// error (each server says so its own way: data null, or completed with
// errors); that a startup credential echoed in a deferred part is
// redacted; that one without them gets one JSON answer; and that a
// deferred field slower than the call's timeout leaves what came first,
// with a note that the stream was cut by the timeout.
func incrementalCalls(t *testing.T, session *mcp.ClientSession) {
	t.Helper()
	call := func(args map[string]any) (*mcp.CallToolResult, string) {
		t.Helper()
		res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "graphql_query", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			t.Fatalf("isError: %s", mcptest.Text(res))
		}
		return res, mcptest.Text(res)
	}

	res, text := call(map[string]any{"query": `query { hero { id name ... @defer(label: "slow") { slowName failing } friends @stream(initialCount: 1, label: "friends") { name } } }`})
	want := map[string]any{
		"data": map[string]any{"hero": map[string]any{
			"id": "1000", "name": "Luke", "slowName": "Luke Skywalker", "failing": nil,
			"friends": []any{map[string]any{"name": "Han Solo"}, map[string]any{"name": "Leia Organa"}, map[string]any{"name": "C-3PO"}},
		}},
		"errors": []any{map[string]any{"message": "the deferred field failed", "path": []any{"hero", "failing"}}},
	}
	got := mcptest.Structured(t, res)
	// The locations are in the text graphqlmcp sent, printed again from
	// the query given: another line and column.
	if errs, ok := got["errors"].([]any); ok && len(errs) == 1 {
		delete(errs[0].(map[string]any), "locations")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged result (-want +got):\n%s", diff)
	}
	// How the friends are grouped into parts, and whether the end of the
	// stream has a part of its own, is the server's timing: the count is
	// bounded, not fixed. The initial part, at least one for the friends,
	// one for the deferred fragment.
	// The server's sentence outside the frames, the labels the endpoint
	// gave after it in one of their own.
	blocks, outside := mcptool.Frames(text)
	note := regexp.MustCompile(`The endpoint delivered this answer incrementally \(@defer/@stream\) in (\d+) parts, merged here into one result \(its labels named below\)\.`)
	m := note.FindStringSubmatch(outside)
	if m == nil || len(blocks) != 2 || (blocks[1] != `labels: "friends", "slow"` && blocks[1] != `labels: "slow", "friends"`) {
		t.Fatalf("no note of incremental delivery with its labels framed in %s", text)
	}
	if parts, _ := strconv.Atoi(m[1]); parts < 3 || parts > 6 {
		t.Errorf("%d parts, want 3 to 6", parts)
	}
	if strings.Contains(text, "ended before") {
		t.Errorf("the stream is said to have ended early: %s", text)
	}

	res, text = call(map[string]any{"query": `{ hero { id ... @defer(label: "broken") { name brokenName } } }`})
	got = mcptest.Structured(t, res)
	if errs, ok := got["errors"].([]any); ok && len(errs) == 1 {
		delete(errs[0].(map[string]any), "locations")
	}
	want = map[string]any{
		"data":   map[string]any{"hero": map[string]any{"id": "1000"}},
		"errors": []any{map[string]any{"message": "the non-null field failed", "path": []any{"hero", "brokenName"}}},
	}
	if blocks, outside := mcptool.Frames(text); cmp.Diff(want, got) != "" || !strings.Contains(outside, `merged here into one result (its label named below).`) ||
		len(blocks) != 2 || blocks[1] != `labels: "broken"` {
		t.Errorf("deferred fragment nulled (-want +got):\n%s\n%s", cmp.Diff(want, got), text)
	}

	res, text = call(map[string]any{"query": `{ hero { id ... @defer { echo } } }`})
	if got := mcptest.Structured(t, res); !cmp.Equal(got, map[string]any{"data": map[string]any{"hero": map[string]any{"id": "1000", "echo": "[REDACTED]"}}}) ||
		strings.Contains(text, yogaSecret) {
		t.Errorf("echoed credential: %v\n%s", got, text)
	}

	// The answer is the endpoint's, framed as third-party data, and the
	// text holds nothing else.
	if _, text := call(map[string]any{"query": `{ hero { id slowName } }`}); !answerAlone(text, `{"data":{"hero":{"id":"1000","slowName":"Luke Skywalker"}}}`) {
		t.Errorf("plain operation: %s", text)
	}

	_, text = call(map[string]any{"query": `{ hero { id ... @defer(label: "late") { verySlow } } }`, "timeout": 1000})
	for _, want := range []string{`{"data":{"hero":{"id":"1000"}}}`,
		"merged here into one result. The stream ended before the endpoint said it was complete (no part had hasNext: false), so this is only what came: the reading timed out after 1000 ms."} {
		if !strings.Contains(text, want) {
			t.Errorf("cut stream: %s\nlacks %s", text, want)
		}
	}
}

// answerAlone reports a text that is the endpoint's answer want, in one
// third-party frame (mcptool.Untrusted), and nothing else.
func answerAlone(text, want string) bool {
	blocks, outside := mcptool.Frames(text)
	return len(blocks) == 1 && strings.TrimSpace(blocks[0]) == want && strings.TrimSpace(outside) == ""
}
