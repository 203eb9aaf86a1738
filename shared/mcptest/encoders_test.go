package mcptest

import "testing"

// TestSharedEncodesWithoutEscaping: the shared code that writes results
// encodes with jsonx. The transports' protocol framing (app/), which the
// client decodes, the test plumbing (mcptest/), redact (which looks for
// both spellings of a secret) and jsonx itself may use encoding/json.
func TestSharedEncodesWithoutEscaping(t *testing.T) {
	CheckNoEscapingEncoders(t, "..", "app/", "mcptest/", "redact/redact.go", "jsonx/jsonx.go")
}
