package main

import (
	"testing"

	"github.com/mcpforge/servers/shared/mcptest"
)

// TestEncodesWithoutEscaping: nothing hookmcp writes for a client is
// encoded by encoding/json, which escapes <, > and & (jsonx.Marshal does
// not). The capture-API fake may: it stands for a service, not for hookmcp.
func TestEncodesWithoutEscaping(t *testing.T) {
	mcptest.CheckNoEscapingEncoders(t, ".", "internal/fakehooksvc/", "cmd/")
}
