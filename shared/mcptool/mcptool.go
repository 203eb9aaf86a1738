// Package mcptool registers typed MCP tools with argument decoding that gives
// an assistant errors it can act on, and builds their results.
//
// The go-sdk's generic AddTool validates arguments against the JSON schema and
// reports violations in schema terms ("validating /properties/timeout: ...").
// Tools registered here decode strictly instead and leave the rules to the
// handler, so every refusal names the argument, the rule and the fix.
package mcptool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/jsonx"
)

// Handler handles one call of a tool whose arguments decode into In.
// A returned error becomes a tool error (isError: true) whose text is the
// error's message; it is never a protocol error, so the assistant sees it.
type Handler[In any] func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, error)

// SchemaFor derives the JSON schema of T from its json and jsonschema tags and
// lets adjust add what tags cannot say (bounds, enums, patterns, defaults).
func SchemaFor[T any](adjust func(s *jsonschema.Schema)) *jsonschema.Schema {
	schema, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcptool: schema of %T: %v", *new(T), err))
	}
	if adjust != nil {
		adjust(schema)
	}
	return schema
}

// InputSchemaFor is SchemaFor for a tool's arguments. An optional argument
// is optional by being left out, so the "null" that pointer, slice and map
// fields add to a property's type is dropped: ["null","number"] becomes
// "number", which every client understands (some refuse type arrays).
func InputSchemaFor[T any](adjust func(s *jsonschema.Schema)) *jsonschema.Schema {
	return SchemaFor[T](func(s *jsonschema.Schema) {
		for _, prop := range s.Properties {
			if len(prop.Types) == 2 && slices.Contains(prop.Types, "null") {
				prop.Type = prop.Types[0]
				if prop.Type == "null" {
					prop.Type = prop.Types[1]
				}
				prop.Types = nil
			}
		}
		if adjust != nil {
			adjust(s)
		}
	})
}

// Add registers tool t on s. t.InputSchema defaults to InputSchemaFor[In](nil).
func Add[In any](s *mcp.Server, t *mcp.Tool, h Handler[In]) {
	if t.InputSchema == nil {
		t.InputSchema = InputSchemaFor[In](nil)
	}
	accepted := argumentNames(t.InputSchema)
	s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in In
		if err := jsonx.DecodeStrict(req.Params.Arguments, &in); err != nil {
			var argErr *jsonx.ArgumentError
			if errors.As(err, &argErr) && strings.HasPrefix(argErr.Message, "unknown argument") {
				return Errorf("%s: %s accepts only %s; remove it or check its spelling", argErr.Message, t.Name, strings.Join(accepted, ", ")), nil
			}
			return Errorf("%v; see the input schema of %s", err, t.Name), nil
		}
		res, err := h(ctx, req, in)
		if err != nil {
			return Error(err), nil
		}
		return res, nil
	})
}

func argumentNames(schema any) []string {
	s, ok := schema.(*jsonschema.Schema)
	if !ok {
		return nil
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Error is a tool error result carrying err's message.
func Error(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
}

// Errorf is Error with a formatted message.
func Errorf(format string, args ...any) *mcp.CallToolResult {
	return Error(fmt.Errorf(format, args...))
}

// JSON is a result whose structured content is the JSON document raw and whose
// text content carries the same JSON, for clients that read only text.
func JSON(raw json.RawMessage, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		IsError:           isError,
		StructuredContent: raw,
		Content:           []mcp.Content{&mcp.TextContent{Text: string(raw)}},
	}
}

// Structured is a result whose structured content is v encoded as JSON and
// whose text content is text, for tools whose natural answer is prose or code
// (a schema in SDL) rather than JSON.
func Structured(v any, text string) (*mcp.CallToolResult, error) {
	raw, err := jsonx.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding the result: %w", err)
	}
	return &mcp.CallToolResult{
		StructuredContent: json.RawMessage(raw),
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
	}, nil
}
