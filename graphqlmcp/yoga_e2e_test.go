package main

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptest"
)

// TestYogaIncremental runs graphql_query, in the built graphqlmcp over
// stdio, against graphql-yoga with its defer-stream plugin
// (scripts/yoga/server.mjs, pinned): an operation with @defer and @stream
// passes validation against the schema yoga introspects (which declares
// both), yoga answers multipart/mixed in several parts, and the result is
// the merged response: the deferred fields in the hero, every streamed
// friend in order, the deferred field's error kept, and a note that says
// how many parts came and their labels; an operation without them gets one
// JSON answer; and a deferred field slower than the call's timeout leaves
// what came first, with a note that the stream was cut by the timeout.
// scripts/yoga-e2e installs Node and yoga and sets YOGA_SERVER; the test is
// skipped without it.
func TestYogaIncremental(t *testing.T) {
	script := os.Getenv("YOGA_SERVER")
	if script == "" {
		t.Skip("YOGA_SERVER is not set; scripts/yoga-e2e installs graphql-yoga (pinned) and sets it")
	}
	yoga := exec.Command("node", script)
	endpoint := mcptest.StartHTTP(t, yoga)
	session := mcptest.ConnectClient(t, &mcp.CommandTransport{Command: exec.Command(binary, "--endpoint", endpoint)})
	call := func(query string) *mcp.CallToolResult {
		t.Helper()
		res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "graphql_query", Arguments: map[string]any{"query": query}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			t.Fatalf("isError: %s", mcptest.Text(res))
		}
		return res
	}

	res := call(`query { hero { id name ... @defer(label: "slow") { slowName failing } friends @stream(initialCount: 1, label: "friends") { name } } }`)
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
	text := mcptest.Text(res)
	// The slow field comes last, after the friends streamed before it; how
	// the friends are grouped into parts is yoga's timing, so the count is
	// bounded, not fixed: the initial part, at least one for the friends,
	// one for the deferred fragment.
	note := regexp.MustCompile(`The endpoint delivered this answer incrementally \(@defer/@stream\) in (\d+) parts, merged here into one result \(labels: ("friends", "slow"|"slow", "friends")\)\.`)
	m := note.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no note of incremental delivery in %s", text)
	}
	if parts, _ := strconv.Atoi(m[1]); parts < 3 || parts > 4 {
		t.Errorf("%d parts, want 3 or 4", parts)
	}
	if strings.Contains(text, "ended before") {
		t.Errorf("the stream is said to have ended early: %s", text)
	}

	// Without the directives, yoga answers one JSON document, and no note.
	res = call(`{ hero { id slowName } }`)
	if got := mcptest.Text(res); got != `{"data":{"hero":{"id":"1000","slowName":"Luke Skywalker"}}}` {
		t.Errorf("plain operation: %s", got)
	}

	// A deferred field slower than the call's timeout: what came first is
	// the result, and the note says the stream was cut and why.
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "graphql_query", Arguments: map[string]any{
		"query": `{ hero { id ... @defer(label: "late") { verySlow } } }`, "timeout": 1000,
	}})
	if err != nil || res.IsError {
		t.Fatalf("%v %s", err, mcptest.Text(res))
	}
	text = mcptest.Text(res)
	for _, want := range []string{`{"data":{"hero":{"id":"1000"}}}`,
		"in 1 part, merged here into one result. The stream ended before the endpoint said it was complete (no part had hasNext: false), so this is only what came: the reading timed out after 1000 ms."} {
		if !strings.Contains(text, want) {
			t.Errorf("cut stream: %s\nlacks %s", text, want)
		}
	}
	mcptest.Stop(t, yoga)
}
