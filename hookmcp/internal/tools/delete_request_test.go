package tools

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
)

func TestDeleteRequest(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "keep")
	h.capture(t, id, "POST", "text/plain", "drop")
	drop := h.ok(t, "get_latest_request", map[string]any{"token_id": id})["request_id"].(string)
	h.fake.Reset()
	out := h.ok(t, "delete_request", map[string]any{"token_id": id, "request_id": drop})
	if out["deleted"] != true || out["request_id"] != drop {
		t.Errorf("result: %v", out)
	}
	if diff := cmp.Diff([]string{"DELETE /token/" + id + "/request/" + drop}, h.apiCalls()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if latest := h.ok(t, "get_latest_request", map[string]any{"token_id": id}); latest["body"] != "keep" {
		t.Errorf("after the delete the latest body is %v, want the other request kept", latest["body"])
	}
	contains(t, h.failure(t, "delete_request", map[string]any{"token_id": id, "request_id": drop}), "request "+drop, "was not found or expired (HTTP 404)")
}
