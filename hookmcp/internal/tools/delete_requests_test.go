package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
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

// TestDeleteRequestsDateExpressions: date_from and expressions such as
// now-1h are resolved to absolute UTC times, which the count and the delete
// both send. (The query leaves one request out: a filter matching every
// request is refused.)
func TestDeleteRequestsDateExpressions(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "recent")
	h.capture(t, id, "POST", "text/plain", "kept")
	before := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	out := h.ok(t, "delete_requests", map[string]any{"token_id": id, "date_to": "now-1h"})
	if out["matched"] != 0.0 || h.deletes() != 0 {
		t.Errorf("date_to now-1h matched %v and sent %d deletes; the only request is recent", out["matched"], h.deletes())
	}
	to, err := time.Parse(hooksvc.DateLayout, out["date_to"].(string))
	if err != nil || to.Before(before) || to.After(before.Add(time.Minute)) {
		t.Errorf("date_to resolved to %v, want about %v", out["date_to"], before)
	}
	out = h.ok(t, "delete_requests", map[string]any{"token_id": id, "date_from": "now-1h", "query": "recent"})
	sent := h.last(t)
	if out["matched"] != 1.0 || sent.Method != "DELETE" || !hooksvc.DatePattern.MatchString(sent.Query.Get("date_from")) || sent.Query.Get("date_from") != out["date_from"] {
		t.Errorf("date_from now-1h: %v; sent %v", out, sent)
	}
	contains(t, out["message"].(string), "captured at or after "+out["date_from"].(string)+" UTC")
	if page := h.ok(t, "list_requests", map[string]any{"token_id": id}); page["total"] != 1.0 {
		t.Errorf("total after the delete = %v", page["total"])
	}
}

func TestDeleteRequestsAll(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "a")
	h.capture(t, id, "POST", "text/plain", "b")
	res := h.call(t, "delete_requests", map[string]any{"token_id": id, "all": true})
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

// deletes counts the DELETE calls the fake received.
func (h *harness) deletes() int {
	n := 0
	for _, r := range h.fake.Received() {
		if r.Method == "DELETE" {
			n++
		}
	}
	return n
}

// TestDeleteRequestsRefusesMatchAll: a query that selects everything is
// refused and nothing is sent. " ", "\t" and `""` once deleted every request
// and answered scope "matching"; a blank one is refused as empty.
func TestDeleteRequestsRefusesMatchAll(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	for i := range 3 {
		h.capture(t, id, "POST", "text/plain", fmt.Sprint(i))
	}
	h.fake.Reset()
	for _, query := range []string{" ", "\t", `""`, `"" ""`, "*", "*:*", "()", "* OR *", "NOT *"} {
		msg := h.failure(t, "delete_requests", map[string]any{"token_id": id, "query": query})
		contains(t, msg, "nothing was deleted", "pass all: true and no filter")
		if strings.TrimSpace(query) != "" {
			contains(t, msg, "selects every request")
		}
	}
	if n := h.deletes(); n != 0 {
		t.Errorf("%d DELETE calls were sent", n)
	}
	if page := h.ok(t, "list_requests", map[string]any{"token_id": id}); page["total"] != 3.0 {
		t.Errorf("total = %v, want all 3 kept", page["total"])
	}
	if matchesAll("method:POST") || matchesAll("hello") || matchesAll(`"a b"`) || matchesAll("_exists_:query.x") {
		t.Error("a real filter was taken for match-all")
	}
}

// connectIgnoringFilters serves a fake that behaves like the open-source
// webhook.site: filters on listing and deleting are ignored.
func connectIgnoringFilters(t *testing.T) *harness {
	t.Helper()
	return connectFake(t, fakehooksvc.Options{OpenSource: true}, config.Config{})
}

// TestDeleteRequestsOnServerIgnoringFilters: where the server ignores
// filters, a filtered delete is refused before anything is deleted, and the
// explicit delete-all still works; list_requests says its filters were
// ignored.
func TestDeleteRequestsOnServerIgnoringFilters(t *testing.T) {
	h := connectIgnoringFilters(t)
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "keep")
	h.capture(t, id, "PUT", "text/plain", "drop")
	h.fake.Reset()
	for _, args := range []map[string]any{
		{"token_id": id, "query": "method:PUT"},
		{"token_id": id, "date_to": "2000-01-01 00:00:00"},
		{"token_id": id, "query": "method:PUT", "date_to": "2100-01-01 00:00:00"},
	} {
		msg := h.failure(t, "delete_requests", args)
		contains(t, msg, "does not apply the", "nothing was deleted", "open-source webhook.site")
	}
	if n := h.deletes(); n != 0 {
		t.Errorf("%d DELETE calls were sent", n)
	}
	page := h.ok(t, "list_requests", map[string]any{"token_id": id, "query": "method:PUT"})
	if page["total"] != 2.0 || page["filters_ignored"] != true {
		t.Errorf("list: total %v filters_ignored %v", page["total"], page["filters_ignored"])
	}
	contains(t, page["note"].(string), "ignored the query filter", "this page is unfiltered")
	h.ok(t, "delete_requests", map[string]any{"token_id": id, "all": true})
	if page := h.ok(t, "list_requests", map[string]any{"token_id": id}); page["total"] != 0.0 {
		t.Errorf("the explicit delete-all left %v", page["total"])
	}
}

// TestDeleteRequestsNothingToDelete: a filtered delete on a token with no
// matching request sends no DELETE at all.
func TestDeleteRequestsNothingToDelete(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	out := h.ok(t, "delete_requests", map[string]any{"token_id": id, "query": "method:PUT"})
	h.capture(t, id, "POST", "text/plain", "keep")
	out2 := h.ok(t, "delete_requests", map[string]any{"token_id": id, "query": "method:PUT"})
	if n := h.deletes(); n != 0 || out["matched"] != 0.0 || out2["matched"] != 0.0 {
		t.Errorf("%d DELETE calls, matched %v and %v", n, out["matched"], out2["matched"])
	}
	contains(t, out2["message"].(string), "nothing was deleted")
}

// TestDeleteRequestsScopeIsExplicit: a filter that is given is a filter.
// date_from, date_to or query given empty, blank or null is refused, and
// so are no filter without all: true, all: false alone, and all: true
// with a filter; none of these sends anything. Only all: true, alone,
// deletes every request. `"query": ""` once deleted all three.
func TestDeleteRequestsScopeIsExplicit(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	for i := range 3 {
		h.capture(t, id, "POST", "text/plain", fmt.Sprint(i))
	}
	refusals := map[string]string{}
	for _, name := range filterArgs {
		for label, value := range map[string]string{"empty": `""`, "blank": `"  "`, "null": "null"} {
			refusals[name+" "+label] = `{"token_id":"` + id + `","` + name + `":` + value + `}`
			// With all: true the filter still is not dropped.
			refusals[name+" "+label+" with all"] = `{"token_id":"` + id + `","all":true,"` + name + `":` + value + `}`
		}
	}
	refusals["no filter"] = `{"token_id":"` + id + `"}`
	refusals["all false"] = `{"token_id":"` + id + `","all":false}`
	refusals["all null"] = `{"token_id":"` + id + `","all":null}`
	refusals["all with a filter"] = `{"token_id":"` + id + `","all":true,"query":"method:POST"}`
	for label, args := range refusals {
		h.fake.Reset()
		res, err := h.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_requests", Arguments: json.RawMessage(args)})
		if err != nil || !res.IsError {
			t.Errorf("%s: %v %v, want a tool error", label, err, res)
			continue
		}
		msg := mcptest.Text(res)
		if !strings.Contains(msg, "nothing was deleted") && !strings.Contains(msg, "nothing was sent") {
			t.Errorf("%s: %q does not say nothing was deleted", label, msg)
		}
		if calls := h.apiCalls(); len(calls) != 0 {
			t.Errorf("%s: sent %v, want nothing", label, calls)
		}
	}
	if page := h.ok(t, "list_requests", map[string]any{"token_id": id}); page["total"] != 3.0 {
		t.Fatalf("after the refusals the token has %v requests, want 3", page["total"])
	}
	// list_requests reads its filters the same way, so a preview with the
	// same arguments never lists more than the delete would delete.
	for _, name := range filterArgs {
		msg := h.failure(t, "list_requests", map[string]any{"token_id": id, name: ""})
		contains(t, msg, name+" is empty", "nothing was sent")
	}
	out := h.ok(t, "delete_requests", map[string]any{"token_id": id, "all": true})
	if out["scope"] != "all" {
		t.Errorf("all: true answered %v", out)
	}
	if page := h.ok(t, "list_requests", map[string]any{"token_id": id}); page["total"] != 0.0 {
		t.Errorf("all: true left %v requests", page["total"])
	}
}

// TestDeleteRequestsFilterMatchingEveryRequestRefused: a filter that
// selects every request while holding words (so the spelling check passes
// it) is refused, as the empty filter is, and nothing is deleted; a filter
// that leaves some out still deletes.
func TestDeleteRequestsFilterMatchingEveryRequestRefused(t *testing.T) {
	for _, q := range []string{"NOT zzzzqqq", "method:*", "_exists_:uuid", "created_at:[* TO *]", "*:* OR zzzq"} {
		h := connect(t, config.Config{})
		id := h.createToken(t, nil)
		for _, b := range []string{"a", "b", "c"} {
			h.capture(t, id, "POST", "text/plain", b)
		}
		res := h.call(t, "delete_requests", map[string]any{"token_id": id, "query": q})
		left := h.ok(t, "list_requests", map[string]any{"token_id": id})["total"]
		text := mcptest.Text(res)
		if !res.IsError || left != 3.0 || !strings.Contains(text, "matches every request") || !strings.Contains(text, "all: true") {
			t.Errorf("query %q: isError=%v, %v left, want a refusal naming all: true and 3 left: %.250s", q, res.IsError, left, text)
		}
	}
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "keep")
	h.capture(t, id, "POST", "text/plain", "dropme")
	out := h.ok(t, "delete_requests", map[string]any{"token_id": id, "query": "NOT keep"})
	if out["matched"] != 1.0 {
		t.Errorf("a query matching one of two: %v", out)
	}
}

// TestDeleteRequestsDateFromIgnoredRefused: a server that applies date_to
// but ignores date_from is caught by date_from's own probe, and a
// date_from delete there deletes nothing.
func TestDeleteRequestsDateFromIgnoredRefused(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	for _, b := range []string{"a", "b", "c"} {
		h.capture(t, id, "POST", "text/plain", b)
	}
	stripping := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		q.Del("date_from")
		r.URL.RawQuery = q.Encode()
		h.fake.ServeHTTP(w, r)
	}))
	t.Cleanup(stripping.Close)
	api := h.reconnect(t, config.Config{APIURL: mustParse(t, stripping.URL)})
	res := api.call(t, "delete_requests", map[string]any{"token_id": id, "date_from": "2099-01-01 00:00:00"})
	left := h.ok(t, "list_requests", map[string]any{"token_id": id})["total"]
	if text := mcptest.Text(res); !res.IsError || left != 3.0 || !strings.Contains(text, "does not apply the date_from filter") {
		t.Errorf("isError=%v, %v left; want the date_from filter named as not applied and 3 left: %.300s", res.IsError, left, text)
	}
}
