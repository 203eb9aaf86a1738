package tools

import (
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/shared/mcptest"
)

func TestDeleteRequestsFiltered(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "keep")
	h.capture(t, id, "PUT", "text/plain", "drop")
	res := h.call(t, "delete_requests", map[string]any{"token_id": id, "query": "method:PUT", "date_to": "2100-01-01 00:00:00"})
	if res.IsError {
		t.Fatal(mcptest.Text(res))
	}
	req := h.last(t)
	if req.Method != "DELETE" || req.Path != "/token/"+id+"/request" {
		t.Errorf("sent %s %s, want DELETE on the singular path", req.Method, req.Path)
	}
	if diff := cmp.Diff(url.Values{"query": {"method:PUT"}, "date_to": {"2100-01-01 00:00:00"}}, req.Query); diff != "" {
		t.Errorf("query (-want +got):\n%s", diff)
	}
	contains(t, mcptest.Text(res), "captured at or before 2100-01-01 00:00:00 UTC and matching the query \"method:PUT\"")
	if out := mcptest.Structured(t, res); out["scope"] != "matching" {
		t.Errorf("scope = %v", out["scope"])
	}
	page := h.ok(t, "list_requests", map[string]any{"token_id": id})
	if page["total"] != 1.0 || page["data"].([]any)[0].(map[string]any)["content"] != "keep" {
		t.Errorf("after the delete: %v", page)
	}
}

func TestDeleteRequestsAll(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "a")
	h.capture(t, id, "POST", "text/plain", "b")
	res := h.call(t, "delete_requests", map[string]any{"token_id": id})
	if res.IsError {
		t.Fatal(mcptest.Text(res))
	}
	if q := h.last(t).Query; len(q) != 0 {
		t.Errorf("query = %v, want none", q)
	}
	contains(t, mcptest.Text(res), "delete all requests of token "+id)
	if page := h.ok(t, "list_requests", map[string]any{"token_id": id}); page["total"] != 0.0 {
		t.Errorf("total after deleting all = %v", page["total"])
	}
}
