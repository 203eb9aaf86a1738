package tools

import (
	"encoding/base64"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/shared/mcptest"
	"github.com/mcpforge/servers/shared/mcptool"
)

func TestGetLatestRequestText(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "older")
	body := "{\"name\": \"Zoë\",\n  \"spaces\" :  true }\n"
	h.capture(t, id, "PUT", "application/json; charset=utf-8", body)
	res := h.call(t, "get_latest_request", map[string]any{"token_id": id})
	if res.IsError {
		t.Fatal(mcptest.Text(res))
	}
	out := mcptest.Structured(t, res)
	if out["body"] != body || out["encoding"] != "text" || out["content_type"] != "application/json; charset=utf-8" ||
		out["method"] != "PUT" || out["captured"] != true || out["size"] != float64(len(body)) {
		t.Errorf("structured: %v", out)
	}
	if len(res.Content) != 3 {
		t.Fatalf("content has %d blocks, want a summary, the rest as JSON and the body", len(res.Content))
	}
	contains(t, mcptest.Text(res), "Latest request "+out["request_id"].(string)+": a web request captured at ", `"method":"PUT"`)
	if got, framed := mcptool.Unframe(res.Content[2].(*mcp.TextContent).Text); got != body || !framed {
		t.Errorf("the body block holds %q (framed: %v), want the body byte for byte in a frame", got, framed)
	}
	if last := h.last(t); last.Path != "/token/"+id+"/request/"+out["request_id"].(string)+"/raw" {
		t.Errorf("body read from %s", last.Path)
	}
}

func TestGetLatestRequestBinary(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	raw := []byte{0x89, 'P', 'N', 'G', 0xff, 0x00, 0xfe}
	h.capture(t, id, "POST", "image/png", string(raw))
	out := h.ok(t, "get_latest_request", map[string]any{"token_id": id})
	decoded, err := base64.StdEncoding.DecodeString(out["body"].(string))
	if err != nil || string(decoded) != string(raw) || out["encoding"] != "base64" || out["content_type"] != "image/png" {
		t.Errorf("structured: %v (decoded %q, %v)", out, decoded, err)
	}
	contains(t, out["note"].(string), "7 bytes that are not valid UTF-8", "base64")
}

func TestGetLatestRequestNone(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	res := h.call(t, "get_latest_request", map[string]any{"token_id": id})
	if res.IsError {
		t.Fatalf("an empty token is not an error: %s", mcptest.Text(res))
	}
	contains(t, mcptest.Text(res), "has not captured any request yet", h.url+"/"+id)
	if out := mcptest.Structured(t, res); out["captured"] != false {
		t.Errorf("captured = %v", out["captured"])
	}
	contains(t, h.failure(t, "get_latest_request", map[string]any{"token_id": "00000000-0000-4000-8000-000000000000"}),
		"was not found or expired (HTTP 404)")
}
