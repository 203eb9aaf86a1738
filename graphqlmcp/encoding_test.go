package main

import (
	"testing"

	"github.com/mcpforge/servers/shared/mcptest"
)

// TestEncodesWithoutEscaping: nothing graphqlmcp writes for a client is
// encoded by encoding/json, which escapes <, > and & (jsonx.Marshal does
// not). The test GraphQL servers may: a Go endpoint that escapes is one
// graphqlmcp must read.
func TestEncodesWithoutEscaping(t *testing.T) {
	mcptest.CheckNoEscapingEncoders(t, ".", "internal/testservers/")
}
