package tools

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/shared/mcptest"
)

func TestDeleteToken(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	h.fake.Reset()
	res := h.call(t, "delete_token", map[string]any{"token_id": id})
	if res.IsError {
		t.Fatal(mcptest.Text(res))
	}
	if diff := cmp.Diff([]string{"DELETE /token/" + id}, h.apiCalls()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	contains(t, mcptest.Text(res), "Token "+id+" was deleted with every request it captured", h.url+"/"+id+" no longer accepts requests")
	if out := mcptest.Structured(t, res); out["deleted"] != true || out["token_id"] != id {
		t.Errorf("structured: %v", out)
	}
	contains(t, h.failure(t, "delete_token", map[string]any{"token_id": id}), "not found or expired (HTTP 404)")
}
