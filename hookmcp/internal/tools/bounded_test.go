package tools

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

// maxErrorBytes is the most an error may take, whatever the arguments.
const maxErrorBytes = 2_048

// hugeValue is an argument over a megabyte: errors must quote a prefix of it.
var hugeValue = strings.Repeat("x", 1_100_000)

// TestErrorsBounded: for every tool, every string argument given a 1.1 MB
// value, every map argument given a 1.1 MB name and a 1.1 MB value, and
// every number argument given numbers no int holds, each error is at most
// 2 KB. The arguments come from the tools' own schemas, so an argument
// added later is tried too. A number out of range is refused, and nothing
// reaches the service. hookmcp's own errors quote a short prefix; the
// decoder's errors (mcptool, which quotes a bad number whole) are held to
// the bound by mcptool.BoundErrors.
func TestErrorsBounded(t *testing.T) {
	// A harness per tool, so that the tools run in parallel (each call
	// moves megabytes) and what reached the service is each one's own.
	list, err := connect(t, config.Config{}).session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var tried atomic.Int32
	t.Run("tools", func(t *testing.T) {
		for _, tool := range list.Tools {
			t.Run(tool.Name, func(t *testing.T) {
				t.Parallel()
				tried.Add(int32(errorsBounded(t, tool)))
			})
		}
	})
	if n := tried.Load(); n < 40 {
		t.Errorf("tried %d arguments; the tools' schemas were not read", n)
	}
}

// errorsBounded is TestErrorsBounded for one tool; it returns how many
// arguments it tried.
func errorsBounded(t *testing.T, tool *mcp.Tool) int {
	c := newClock()
	h := connectClock(t, fakehooksvc.Options{}, c, nil, nil)
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "first")
	first := h.ok(t, "get_latest_request", map[string]any{"token_id": id})["request_id"].(string)
	h.capture(t, id, "POST", "text/plain", "second")
	empty := h.createToken(t, nil)

	// valid are arguments that reach each tool's rules.
	valid := func(tool string) map[string]any {
		switch tool {
		case "create_token":
			return map[string]any{}
		case "get_request", "delete_request":
			return map[string]any{"token_id": id, "request_id": first}
		case "delete_requests":
			return map[string]any{"token_id": empty, "query": "method:PUT"}
		case "wait_for_request":
			return map[string]any{"token_id": id, "after_request_id": first, "timeout_seconds": 1}
		}
		return map[string]any{"token_id": id}
	}
	tried := 0
	schema := mcptest.InputSchema(t, tool)
	longNumber := true // one per tool: the decoder reads every number alike
	for _, name := range slices.Sorted(maps.Keys(schema.Properties)) {
		values := hostileValues(schema.Properties[name])
		if _, ok := values[numberDigits]; ok {
			if !longNumber {
				delete(values, numberDigits)
			}
			longNumber = false
		}
		for label, value := range values {
			tried++
			h.fake.Reset()
			args := mcptest.ArgumentsWith(t, valid(tool.Name), name, value)
			res, err := h.session.CallTool(context.Background(), &mcp.CallToolParams{Name: tool.Name, Arguments: args})
			if err != nil {
				t.Errorf("%s %s: protocol error %.300v", name, label, err)
				continue
			}
			text := mcptest.Text(res)
			if res.IsError && len(text) > maxErrorBytes {
				t.Errorf("%s %s: the error is %d bytes, over %d: %.300s…", name, label, len(text), maxErrorBytes, text)
			}
			if res.IsError && strings.Contains(text, "the error was cut") && !strings.HasPrefix(label, "number") {
				// hookmcp's own errors quote a prefix; only the
				// decoder's (a number quoted whole) needs the cut.
				t.Errorf("%s %s: the error was only bounded by the cut: %.300s…", name, label, text)
			}
			if strings.HasPrefix(label, "number") {
				if !res.IsError {
					t.Errorf("%s %s: accepted: %.300s", name, label, text)
				}
				if got := h.fake.Received(); len(got) != 0 {
					t.Errorf("%s %s: the service received %d requests, want none", name, label, len(got))
				}
			}
		}
	}
	return tried
}

const numberDigits = "number of 1.1 MB of digits"

// hostileValues are the values to try for an argument of schema p, as raw
// JSON, by label: strings over a megabyte, and numbers beyond every int.
func hostileValues(p *jsonschema.Schema) map[string]json.RawMessage {
	huge, _ := json.Marshal(hugeValue)
	switch p.Type {
	case "string":
		return map[string]json.RawMessage{"1.1 MB string": huge}
	case "object":
		if p.AdditionalProperties == nil || p.AdditionalProperties.Type != "string" {
			return nil
		}
		return map[string]json.RawMessage{
			"1.1 MB name":  json.RawMessage(`{` + string(huge) + `:"v"}`),
			"1.1 MB value": json.RawMessage(`{"k":` + string(huge) + `}`),
		}
	case "integer", "number":
		return map[string]json.RawMessage{
			"number 2^63":    json.RawMessage("9223372036854775808"),
			"number -2^63-1": json.RawMessage("-9223372036854775809"),
			"number 2^64":    json.RawMessage("18446744073709551616"),
			"number 1e300":   json.RawMessage("1e300"),
			"number 1e400":   json.RawMessage("1e400"),
			numberDigits:     json.RawMessage(strings.Repeat("9", 1_100_000)),
		}
	}
	return nil
}

// TestProtocolErrorsBounded: a tool, resource or prompt named by 1.1 MB, or
// a tool that does not exist, is refused with an error of at most 2 KB that
// says what is wrong (not a recovered panic).
func TestProtocolErrorsBounded(t *testing.T) {
	mcptest.CheckProtocolErrorsBounded(t, connect(t, config.Config{}).session, "hooksvc", maxErrorBytes)
}
