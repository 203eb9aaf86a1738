package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptool"
)

func TestRequestsResourceAllPages(t *testing.T) {
	h := connect(t, config.Config{APIKey: envKey})
	id := h.createToken(t, nil)
	for i := range 205 {
		h.capture(t, id, "POST", "text/plain", fmt.Sprint(i))
	}
	h.fake.Reset()
	uri := "hooksvc://token/" + id + "/requests"
	res, err := h.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 || res.Contents[0].MIMEType != "application/json" || res.Contents[0].URI != uri {
		t.Fatalf("contents: %+v", res.Contents)
	}
	var all []map[string]any
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &all); err != nil {
		t.Fatal(err)
	}
	if len(all) != 205 || all[0]["content"] != "0" || all[204]["content"] != "204" {
		t.Errorf("got %d requests, first %v last %v; want 205 oldest first", len(all), all[0]["content"], all[len(all)-1]["content"])
	}
	var pages []string
	for _, r := range h.fake.Received() {
		if r.Header.Get("Api-Key") != envKey {
			t.Errorf("a read went without HOOKSVC_API_KEY")
		}
		pages = append(pages, r.Query.Encode())
	}
	want := []string{}
	for p := 1; p <= 3; p++ {
		want = append(want, url.Values{"sorting": {"oldest"}, "per_page": {"100"}, "page": {fmt.Sprint(p)}}.Encode())
	}
	if diff := cmp.Diff(want, pages); diff != "" {
		t.Errorf("pages read (-want +got):\n%s", diff)
	}
}

func TestRequestsResourceEmpty(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	res, err := h.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "hooksvc://token/" + id + "/requests"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Contents[0].Text != "[]" {
		t.Errorf("text = %q, want []", res.Contents[0].Text)
	}
}

func TestRequestsResourceErrors(t *testing.T) {
	h := connect(t, config.Config{})
	deleted := h.createToken(t, nil)
	h.ok(t, "delete_token", map[string]any{"token_id": deleted})
	for _, id := range []string{"00000000-0000-4000-8000-000000000000", deleted} {
		_, err := h.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "hooksvc://token/" + id + "/requests"})
		var wire *jsonrpc.Error
		// This client speaks 2026-07-28, where a missing resource is -32602.
		if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams {
			t.Fatalf("token %s: err = %v, want resource not found as -32602", id, err)
		}
		contains(t, wire.Message, "Resource not found", "was deleted or has expired", "check its UUID")
		if !strings.Contains(string(wire.Data), `"uri":"hooksvc://token/`+id+`/requests"`) {
			t.Errorf("data = %s, want the URI", wire.Data)
		}
	}
	private := h.createToken(t, map[string]any{"api_key": callKey})
	_, err := h.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "hooksvc://token/" + private + "/requests"})
	var auth *jsonrpc.Error
	if !errors.As(err, &auth) || auth.Code != jsonrpc.CodeInternalError {
		t.Fatalf("a private token without a key: err = %v, want -32603", err)
	}
	contains(t, auth.Message, "set it in hookmcp's environment")
	if strings.Contains(auth.Message, "pass api_key") || strings.Contains(auth.Message, callKey) {
		t.Errorf("the advice is one a resource cannot follow, or holds the key: %s", auth.Message)
	}
	h.fake.Reset()
	_, err = h.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "hooksvc://token/my-alias/requests"})
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("alias: err = %v, want invalid params", err)
	}
	contains(t, wire.Message, "must be a token UUID", "does not take aliases")
	if got := h.fake.Received(); len(got) != 0 {
		t.Errorf("a bad URI reached the API: %v", got)
	}
}

// TestRequestsResourceNotFoundByVersion: not found is one code per
// protocol version, whether the token is unknown or the URI names no
// resource of this server: -32002 before 2026-07-28, -32602 from it.
func TestRequestsResourceNotFoundByVersion(t *testing.T) {
	h := connect(t, config.Config{})
	for version, want := range map[string]int64{"2025-06-18": -32002, "2025-11-25": -32002, mcptool.NotFoundInvalidParamsSince: jsonrpc.CodeInvalidParams} {
		server := NewServer(Options{Config: config.Config{APIURL: mustParse(t, h.url), Timeout: 5 * time.Second}, HTTP: NewHTTPClient("t"), Logger: slog.New(slog.DiscardHandler), Version: "test"})
		clientTransport, serverTransport := mcp.NewInMemoryTransports()
		if _, err := server.Connect(context.Background(), serverTransport, nil); err != nil {
			t.Fatal(err)
		}
		client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil)
		session, err := client.Connect(context.Background(), clientTransport, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { session.Close() })
		for _, uri := range []string{"hooksvc://token/00000000-0000-4000-8000-000000000000/requests", "file:///etc/passwd", "hooksvc://tokens"} {
			_, err = session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
			var wire *jsonrpc.Error
			if !errors.As(err, &wire) || wire.Code != want || !strings.Contains(wire.Message, "Resource not found: "+uri) {
				t.Errorf("%s, %s: err = %v, want resource not found as %d", version, uri, err, want)
			}
		}
	}
}

func TestResourceListing(t *testing.T) {
	h := connect(t, config.Config{})
	templates, err := h.session.ListResourceTemplates(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != "hooksvc://token/{token_id}/requests" {
		t.Errorf("templates: %+v", templates.ResourceTemplates)
	}
	resources, err := h.session.ListResources(context.Background(), nil)
	if err != nil || len(resources.Resources) != 0 {
		t.Errorf("without a default token: %v %+v", err, resources)
	}
	id := h.createToken(t, nil)
	withDefault := h.reconnect(t, config.Config{TokenID: id})
	resources, err = withDefault.session.ListResources(context.Background(), nil)
	if err != nil || len(resources.Resources) != 1 || resources.Resources[0].URI != "hooksvc://token/"+id+"/requests" {
		t.Errorf("with a default token: %v %+v", err, resources)
	}
}

// TestRequestsResourceBudget: a token full of large requests gives a
// resource no larger than --resource-max-bytes; pages past the budget are
// not fetched, and a note counts what was left out and names the
// list_requests call that reads it. (1,000 requests of 150 KB once gave a
// 301 MB text and 2.5 GiB of memory.)
func TestRequestsResourceBudget(t *testing.T) {
	h := connect(t, config.Config{ResourceMaxBytes: config.MinResourceMaxBytes})
	id := h.createToken(t, nil)
	for i := range 250 {
		h.capture(t, id, "POST", "text/plain", fmt.Sprintf("%03d:%s", i, strings.Repeat("x", 1_000)))
	}
	h.fake.Reset()
	uri := "hooksvc://token/" + id + "/requests"
	res, err := h.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 2 || len(res.Contents[0].Text) > config.MinResourceMaxBytes {
		t.Fatalf("%d contents, first %d bytes", len(res.Contents), len(res.Contents[0].Text))
	}
	var kept []map[string]any
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &kept); err != nil {
		t.Fatal(err)
	}
	if n := len(h.fake.Received()); n != 1 {
		t.Errorf("%d pages fetched, want 1: the budget is reached within the first", n)
	}
	note := res.Contents[1].Text
	contains(t, note, fmt.Sprintf("the oldest %d of the token's 250 requests", len(kept)), fmt.Sprintf("the other %d were left out", 250-len(kept)), "--resource-max-bytes")
	var perPage, page int
	if _, err := fmt.Sscanf(note[strings.Index(note, "per_page "):], "per_page %d, from page %d", &perPage, &page); err != nil {
		t.Fatalf("no per_page/page in %q", note)
	}
	next := h.ok(t, "list_requests", map[string]any{"token_id": id, "sorting": "oldest", "per_page": perPage, "page": page})
	first := next["data"].([]any)[0].(map[string]any)["content"].(string)
	if want := fmt.Sprintf("%03d:", len(kept)); !strings.HasPrefix(first, want) {
		t.Errorf("the note's page starts at %.4q, want the first left out (%s)", first, want)
	}
	if _, cut := next["note"]; cut {
		t.Errorf("the note's per_page %d overflows list_requests: %v", perPage, next["note"])
	}
}

// TestRequestsResourceHostileTotal: a page that claims more requests than
// any token holds (as an int, the largest there is) neither crashes the read
// nor sizes its memory past the budget; the text holds what the page holds.
func TestRequestsResourceHostileTotal(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	h.fake.Inject(fakehooksvc.Fault{Method: "GET", Status: 200,
		Body: `{"data":[{"uuid":"0a0b0c0d-0000-4000-8000-000000000001","content":"x"}],"total":9223372036854775807,"per_page":100,"current_page":1,"is_last_page":true}`})
	res, err := h.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "hooksvc://token/" + id + "/requests"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Contents[0].Text; got != `[{"uuid":"0a0b0c0d-0000-4000-8000-000000000001","content":"x"}]` {
		t.Errorf("text = %s", got)
	}
}

// TestRequestsResourceKeyRefused: a read of a token private to another
// account says the key in HOOKSVC_API_KEY was refused when one is set, and
// asks for one when none is; neither error holds a key.
func TestRequestsResourceKeyRefused(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, map[string]any{"api_key": callKey})
	uri := "hooksvc://token/" + id + "/requests"
	for _, tc := range []struct {
		key  string
		want string
	}{
		{envKey, "refused the key in HOOKSVC_API_KEY"},
		{"", "set it in hookmcp's environment"},
	} {
		other := h.reconnect(t, config.Config{APIKey: tc.key})
		_, err := other.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) || !strings.Contains(wire.Message, tc.want) || strings.Contains(wire.Message, envKey) || strings.Contains(wire.Message, callKey) {
			t.Errorf("key %q: err = %v, want %q and no key", tc.key, err, tc.want)
		}
	}
}
