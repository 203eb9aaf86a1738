package tools

import (
	"fmt"
	"time"

	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
)

// target resolves a call's endpoint and headers into a request skeleton.
func (h *handlers) target(endpoint string, callHeaders map[string]string, timeout time.Duration) (upstream.Request, error) {
	target, err := h.policy.Resolve(endpoint)
	if err != nil {
		return upstream.Request{}, err
	}
	if err := upstream.CheckHeaders(callHeaders); err != nil {
		return upstream.Request{}, fmt.Errorf("headers: %v", err)
	}
	var startup map[string]string
	if target.StartupHeaders {
		startup = h.cfg.Headers
	}
	return upstream.Request{Target: target, Headers: upstream.Merge(startup, callHeaders), Timeout: timeout}, nil
}
