package app

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpforge/servers/shared/mcptool"
)

// Every answer is bounded, errors included, and some parts of a message
// come back in its answer: the id always, the method in "method not
// found" (the go-sdk quotes it whole), a progress token in every progress
// notification. Both transports refuse a message whose id, method or
// progress token is longer than any client needs, before the SDK reads it.
const (
	// maxMethodBytes: MCP's longest method is under 40 bytes.
	maxMethodBytes = 128
	// maxIDBytes bounds an id or a progress token as JSON: clients use
	// numbers, UUIDs or short strings.
	maxIDBytes = 1024
)

// oversized checks a message's id and params (as raw JSON, nil when
// absent) and its method against the bounds above, and returns the refusal when one
// is over: its code, its text, and whether the id may be answered.
func oversized(id json.RawMessage, method string, params json.RawMessage) (code int64, message string, answerID, over bool) {
	switch {
	case len(id) > maxIDBytes:
		return jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: the id is %d bytes of JSON, over this server's limit of %d; use a number or a short string", len(id), maxIDBytes), false, true
	case len(method) > maxMethodBytes:
		return jsonrpc.CodeMethodNotFound, fmt.Sprintf("method not found: %s; MCP's methods are short names such as \"tools/call\"", mcptool.Quote(method)), true, true
	}
	if bytes.Contains(params, []byte(`"progressToken"`)) {
		var p struct {
			Meta struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		}
		if json.Unmarshal(params, &p) == nil && len(p.Meta.ProgressToken) > maxIDBytes {
			return jsonrpc.CodeInvalidParams, fmt.Sprintf("invalid params: the progress token is %d bytes of JSON, over this server's limit of %d; use a number or a short string", len(p.Meta.ProgressToken), maxIDBytes), true, true
		}
	}
	return 0, "", false, false
}
