package tools

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/shared/mcptest"
)

func TestGetRequest(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "first")
	body := "{\"event\": \"push\",\n \"ref\": \"main\"}"
	req, _ := http.NewRequest("PUT", h.url+"/"+id+"/hooks/github?delivery=42", bytes.NewBufferString(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "push")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	rid := resp.Header.Get("X-Request-Id")
	h.capture(t, id, "POST", "text/plain", "third")
	h.fake.Reset()

	res := h.call(t, "get_request", map[string]any{"token_id": id, "request_id": rid})
	if res.IsError {
		t.Fatal(mcptest.Text(res))
	}
	out := mcptest.Structured(t, res)
	if out["request_id"] != rid || out["method"] != "PUT" || out["body"] != body || out["encoding"] != "text" ||
		out["content_type"] != "application/json" || out["url"] != h.url+"/"+id+"/hooks/github?delivery=42" {
		t.Errorf("structured: %v", out)
	}
	if diff := cmp.Diff(map[string]any{"delivery": "42"}, out["query"]); diff != "" {
		t.Errorf("query (-want +got):\n%s", diff)
	}
	if got := out["headers"].(map[string]any)["x-github-event"]; !cmp.Equal(got, []any{"push"}) {
		t.Errorf("headers[x-github-event] = %v", got)
	}
	if got := res.Content[2].(*mcp.TextContent).Text; got != body {
		t.Errorf("the body block is %q", got)
	}
	// A client that shows the model only text shows the headers and the
	// query string too.
	contains(t, res.Content[1].(*mcp.TextContent).Text, `"x-github-event":["push"]`, `"query":{"delivery":"42"}`, `"ip":"127.0.0.1"`)
	contains(t, res.Content[0].(*mcp.TextContent).Text, "Request "+rid+": PUT")
	if diff := cmp.Diff([]string{"GET /token/" + id + "/request/" + rid, "GET /token/" + id + "/request/" + rid + "/raw"}, h.apiCalls()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func TestGetRequestMultipart(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	var body bytes.Buffer
	form := multipart.NewWriter(&body)
	form.WriteField("event", "upload")
	part, _ := form.CreateFormFile("report", "report.bin")
	part.Write([]byte{0xff, 0x00, 0xfe})
	form.Close()
	h.capture(t, id, "POST", form.FormDataContentType(), body.String())
	latest := h.ok(t, "get_latest_request", map[string]any{"token_id": id})
	out := h.ok(t, "get_request", map[string]any{"token_id": id, "request_id": latest["request_id"]})
	if out["encoding"] != "base64" || out["size"] != float64(body.Len()) || out["form"].(map[string]any)["event"] != "upload" {
		t.Errorf("structured: %v", out)
	}
	if file := out["files"].(map[string]any)["report"].(map[string]any); file["filename"] != "report.bin" || file["size"] != 3.0 {
		t.Errorf("files: %v", out["files"])
	}
}

func TestGetRequestUnknown(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	missing := "00000000-0000-4000-8000-000000000001"
	contains(t, h.failure(t, "get_request", map[string]any{"token_id": id, "request_id": missing}),
		"request "+missing+" of token "+id+" was not found or expired (HTTP 404)", "list_requests shows the token's request ids")
}
