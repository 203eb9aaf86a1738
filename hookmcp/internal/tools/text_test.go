package tools

import (
	"strings"
	"testing"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

// htmlish is text that encoding/json escapes for HTML and JavaScript.
const htmlish = "<b>a & b</b> \u2028 é /x"

// TestTextIsNotEscaped: a captured body and a token's default content
// reach a client that reads only text as they are, not as \u003c, \u0026,
// \u2028, \u00e9 or \/, in every tool that shows them: whatever encoded
// them on the way (our encoder, or the API's own).
func TestTextIsNotEscaped(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, map[string]any{"default_content": htmlish})
	h.capture(t, id, "POST", "text/html", htmlish)
	var rid string
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"get_token", map[string]any{"token_id": id}},
		{"update_token", map[string]any{"token_id": id, "default_content": htmlish}},
		{"list_requests", map[string]any{"token_id": id}},
		{"get_latest_request", map[string]any{"token_id": id}},
	} {
		res := h.call(t, call.tool, call.args)
		if res.IsError {
			t.Fatalf("%s: %s", call.tool, mcptest.Text(res))
		}
		text := mcptest.Text(res)
		if !strings.Contains(text, htmlish) {
			t.Errorf("%s: text lacks %q as it is:\n%s", call.tool, htmlish, text)
		}
		for _, escape := range []string{`\u003c`, `\u003e`, `\u0026`, `\u2028`, `\u00e9`, `\/`} {
			if strings.Contains(text, escape) {
				t.Errorf("%s: text holds %s:\n%s", call.tool, escape, text)
			}
		}
		if call.tool == "get_latest_request" {
			rid = mcptest.Structured(t, res)["request_id"].(string)
		}
	}
	if text := mcptest.Text(h.call(t, "get_request", map[string]any{"token_id": id, "request_id": rid})); !strings.Contains(text, htmlish) {
		t.Errorf("get_request: text lacks the body as it is:\n%s", text)
	}
}

// TestTextUnescapesTheAPI: the API's own escapes (a PHP service writes
// https:\/\/ and \u00e9) are spelt out in list_requests' text.
func TestTextUnescapesTheAPI(t *testing.T) {
	h := connectFake(t, fakehooksvc.Options{PHPEscapes: true}, config.Config{})
	id := h.createToken(t, map[string]any{"default_content": htmlish})
	h.capture(t, id, "POST", "application/json", `{"a":1}`)
	if text := mcptest.Text(h.call(t, "get_token", map[string]any{"token_id": id})); !strings.Contains(text, htmlish) {
		t.Errorf("get_token text:\n%s", text)
	}
	text := mcptest.Text(h.call(t, "list_requests", map[string]any{"token_id": id}))
	if !strings.Contains(text, `"url":"`+h.url+"/"+id+`"`) || strings.Contains(text, `\/`) {
		t.Errorf("list_requests text:\n%s", text)
	}
}
