package tools

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

func TestListRequestsDefaults(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	for i := range 3 {
		h.capture(t, id, "POST", "text/plain", fmt.Sprintf("body %d", i))
	}
	out := h.ok(t, "list_requests", map[string]any{"token_id": id})
	req := h.last(t)
	if req.Path != "/token/"+id+"/requests" {
		t.Errorf("path = %s", req.Path)
	}
	// sorting is always sent: the API's own default is oldest.
	want := url.Values{"sorting": {"newest"}, "per_page": {"50"}, "page": {"1"}}
	if diff := cmp.Diff(want, req.Query); diff != "" {
		t.Errorf("query (-want +got):\n%s", diff)
	}
	data := out["data"].([]any)
	if len(data) != 3 || data[0].(map[string]any)["content"] != "body 2" {
		t.Errorf("data: %v", data)
	}
	for _, member := range []string{"total", "per_page", "current_page", "is_last_page", "from", "to"} {
		if _, ok := out[member]; !ok {
			t.Errorf("the envelope lacks %s: %v", member, out)
		}
	}
	if _, ok := out["note"]; ok {
		t.Errorf("a small page has a note: %v", out["note"])
	}
}

func TestListRequestsArguments(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	for i := range 5 {
		h.capture(t, id, "POST", "text/plain", fmt.Sprintf("body %d", i))
	}
	h.fake.Reset()
	out := h.ok(t, "list_requests", map[string]any{
		"token_id": id, "sorting": "oldest", "per_page": 2, "page": 2,
		"date_from": "2000-01-01 00:00:00", "date_to": "2100-01-01 00:00:00", "query": "method:POST",
	})
	want := url.Values{
		"sorting": {"oldest"}, "per_page": {"2"}, "page": {"2"},
		"date_from": {"2000-01-01 00:00:00"}, "date_to": {"2100-01-01 00:00:00"}, "query": {"method:POST"},
	}
	if diff := cmp.Diff(want, h.fake.Received()[0].Query); diff != "" {
		t.Errorf("query (-want +got):\n%s", diff)
	}
	if _, ignored := out["filters_ignored"]; ignored {
		t.Errorf("a server that applies filters was said to ignore them: %v", out["note"])
	}
	var contents []any
	for _, r := range out["data"].([]any) {
		contents = append(contents, r.(map[string]any)["content"])
	}
	if diff := cmp.Diff([]any{"body 2", "body 3"}, contents); diff != "" {
		t.Errorf("page 2 of 2 oldest first (-want +got):\n%s", diff)
	}
	if out["from"] != 3.0 || out["to"] != 4.0 || out["total"] != 5.0 || out["is_last_page"] != false {
		t.Errorf("envelope: %v", out)
	}
	// Past the end is an empty page, not an error.
	out = h.ok(t, "list_requests", map[string]any{"token_id": id, "per_page": 2, "page": 9})
	if len(out["data"].([]any)) != 0 || out["is_last_page"] != true {
		t.Errorf("past the end: %v", out)
	}
}

// TestListRequestsCut: a page over 100,000 bytes is cut at a whole request
// with a note that says how many were left out and how to read them.
func TestListRequestsCut(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	for i := range 10 {
		h.capture(t, id, "POST", "text/plain", fmt.Sprintf("%d:%s", i, strings.Repeat("x", 30_000)))
	}
	res := h.call(t, "list_requests", map[string]any{"token_id": id, "per_page": 10})
	if res.IsError {
		t.Fatal(mcptest.Text(res))
	}
	// The page is held to the bound; its frame adds a line before and after.
	if n := len(mcptest.LastText(res)); n > maxResultBytes {
		t.Errorf("result is %d bytes, over %d", n, maxResultBytes)
	}
	out := mcptest.Structured(t, res)
	data := out["data"].([]any)
	if len(data) != 3 {
		t.Fatalf("kept %d requests, want 3 whole ones", len(data))
	}
	for i, r := range data {
		if content := r.(map[string]any)["content"].(string); !strings.HasPrefix(content, fmt.Sprint(9-i)+":") || len(content) != 30_002 {
			t.Errorf("request %d was not kept whole (%d bytes)", i, len(content))
		}
	}
	note, _ := out["note"].(string)
	contains(t, note, "Only the first 3 of the 10 requests on this page", "7 were left out", "per_page 2: page 2 at that size holds the first one left out")
	// The note's advice works: per_page 2, page 2 holds the 4th newest.
	next := h.ok(t, "list_requests", map[string]any{"token_id": id, "per_page": 2, "page": 2})
	if second := next["data"].([]any)[1].(map[string]any)["content"].(string); !strings.HasPrefix(second, "6:") {
		t.Errorf("the note's page holds %.3q, want the 4th newest (6:)", second)
	}
}

func TestListRequestsOneHugeRequest(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", strings.Repeat("é", 200_000))
	h.capture(t, id, "POST", "text/plain", "small")
	out := h.ok(t, "list_requests", map[string]any{"token_id": id, "sorting": "oldest"})
	data := out["data"].([]any)
	first := data[0].(map[string]any)
	if len(data) != 1 || first["content_truncated"] != true || len(first["content"].(string)) >= 200_000 {
		t.Errorf("want the huge request alone with its content cut, got %d requests, truncated=%v", len(data), first["content_truncated"])
	}
	contains(t, out["note"].(string), "over 100000 bytes by itself", "the other 1 requests")
}

// TestListRequestsFilteredLeavesUnshown: a page filtered by query or date
// does not move the memory of what was shown past the requests it left
// out; an unfiltered page does.
func TestListRequestsFilteredLeavesUnshown(t *testing.T) {
	h := connectClock(t, fakehooksvc.Options{}, newClock(), nil, nil)
	id := h.createToken(t, nil)
	h.capture(t, id, "GET", "text/plain", "left out")
	h.capture(t, id, "POST", "text/plain", "listed")
	h.ok(t, "list_requests", map[string]any{"token_id": id, "query": "method:POST"})
	h.ok(t, "list_requests", map[string]any{"token_id": id, "query": "method:POST", "date_from": "now-1h"})
	if out := h.ok(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 1}); out["body"] != "left out" {
		t.Errorf("after filtered pages: got %q (captured %v), want the request they left out", out["body"], out["captured"])
	}
	h.ok(t, "list_requests", map[string]any{"token_id": id})
	if out := h.ok(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 1}); out["captured"] != false {
		t.Errorf("after an unfiltered page: got %v, want none", out)
	}
}

// TestListRequestsKeepsOnlyRequestFields: the hosted service's account
// fields in a request object (team_id, user_id) do not reach a listing;
// the documented fields do.
func TestListRequestsKeepsOnlyRequestFields(t *testing.T) {
	h := connect(t, config.Config{})
	page := `{"data":[{"uuid":"` + someToken + `","token_id":"` + someToken + `","type":"web","method":"POST","sorting":1,"team_id":"team-4711","user_id":99,"content":"","headers":{},"query":null,"created_at":"2026-01-01 00:00:00"}],"total":1,"per_page":50,"current_page":1,"is_last_page":true,"from":1,"to":1}`
	api := h.reconnect(t, config.Config{APIURL: mustParse(t, answering(t, 200, "application/json", page)), APIKey: envKey})
	res := api.call(t, "list_requests", map[string]any{"token_id": someToken})
	b, _ := json.Marshal(res.StructuredContent)
	text := mcptest.Text(res) + string(b)
	if res.IsError || strings.Contains(text, "team-4711") || strings.Contains(text, "user_id") {
		t.Errorf("an account field reaches list_requests' result: %.400s", text)
	}
	for _, want := range []string{`"method":"POST"`, `"created_at":"2026-01-01 00:00:00"`, `"token_id":"` + someToken} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the result lost %s: %.400s", want, b)
		}
	}
}

// TestListRequestsHugeNumber: a number float64 cannot hold (1e400) in a
// listed request is written as a string, so that a client can decode the
// result at all.
func TestListRequestsHugeNumber(t *testing.T) {
	h := connect(t, config.Config{})
	page := `{"data":[{"uuid":"9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d","method":"POST","sorting":1,"size":1e400,"query":{"n":[-2e999]}}],"total":1,"per_page":50,"current_page":1,"is_last_page":true,"from":1,"to":1}`
	api := h.reconnect(t, config.Config{APIURL: mustParse(t, answering(t, 200, "application/json", page)), APIKey: envKey})
	res, err := api.session.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_requests", Arguments: map[string]any{"token_id": someToken}})
	if err != nil {
		t.Fatalf("list_requests' result cannot be decoded by a Go client: %v", err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(b), `"size":"1e400"`) || !strings.Contains(string(b), `"-2e999"`) {
		t.Errorf("want the huge numbers as strings: %.400s", b)
	}
}
