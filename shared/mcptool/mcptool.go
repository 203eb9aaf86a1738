// Package mcptool defines MCP tools as values: a name, a description, typed
// arguments and result, and a handler, from which the tool's input and output
// schemas are derived.
//
// The go-sdk's generic mcp.AddTool derives schemas the same way, but it
// validates arguments against the schema and reports violations in schema
// terms ("validating /properties/timeout: ..."), and it reads them through a
// map, which keeps the last of a key given twice. Tools registered here go
// through the plain Server.AddTool, which checks nothing, and decode
// strictly instead: a key must be a property by its exact name and given
// once (what runs is what a client shows), and the rules are left to the
// handler, read from the one place they are stated (Whole, Enum), so every
// refusal names the argument, the rule and the fix.
package mcptool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/jsonx"
)

// Tool is one MCP tool. Its input schema is derived from In and its output
// schema from Out (from Shape when Out is a Document[Shape]).
type Tool[In, Out any] struct {
	Name        string
	Title       string
	Description string
	Annotations *mcp.ToolAnnotations
	// AdjustInput and AdjustOutput add to the derived schemas what Go types
	// and tags cannot say: bounds (Whole.Schema, Enum.Schema), patterns,
	// formats. Either may be nil.
	AdjustInput  func(s *jsonschema.Schema)
	AdjustOutput func(s *jsonschema.Schema)
	// Verbatim names the members of the structured result that Handle's
	// text gives whole, each in a block of its own (a body, a schema):
	// the JSON that follows the summary leaves them out, so that the text
	// does not carry them twice.
	Verbatim []string
	// ThirdParty says that the structured result holds what a third party
	// wrote (a captured request's URL and headers) beyond the blocks
	// Handle framed (Untrusted): the JSON that follows the summary is
	// framed too.
	ThirdParty bool
	// Handle runs one call, as the go-sdk's ToolHandlerFor does: out becomes
	// the structured content, and the text content is out's JSON unless
	// result carries content of its own (text written for a reader, such as
	// a schema in SDL or a request body). result may be nil. A returned
	// error becomes a tool error (isError: true) whose text is its message,
	// never a protocol error, so the assistant sees it.
	Handle func(ctx context.Context, req *mcp.CallToolRequest, in In) (result *mcp.CallToolResult, out Out, err error)
}

// Registrar is a Tool of any argument and result types, so that a server
// registers its tools as one list.
type Registrar interface {
	Register(s *mcp.Server)
}

// Register adds every tool to s, in order.
func Register(s *mcp.Server, tools ...Registrar) {
	for _, t := range tools {
		t.Register(s)
	}
}

// Register adds t to s.
func (t Tool[In, Out]) Register(s *mcp.Server) {
	input := t.InputSchema()
	accepted := argumentNames(input)
	def := &mcp.Tool{
		Name:         t.Name,
		Title:        t.Title,
		Description:  t.Description,
		Annotations:  t.Annotations,
		InputSchema:  input,
		OutputSchema: t.OutputSchema(),
	}
	s.AddTool(def, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in In
		if err := decodeStrict(req.Params.Arguments, input, &in); err != nil {
			var argErr *argumentError
			if errors.As(err, &argErr) && strings.HasPrefix(argErr.Message, "unknown argument") {
				return errorResult(fmt.Errorf("%s: %s accepts only %s; remove it or check its spelling", argErr.Message, t.Name, strings.Join(accepted, ", "))), nil
			}
			if errors.As(err, &argErr) && input.Properties[argErr.Argument] != nil && input.Properties[argErr.Argument].Type == "integer" {
				// Whole numbers decode into float64 (Whole states the rule),
				// which the decoder calls a number; the schema says integer.
				argErr.Message = strings.Replace(argErr.Message, "must be a number", "must be an integer", 1)
			}
			return errorResult(fmt.Errorf("%v; see the input schema of %s", err, t.Name)), nil
		}
		res, out, err := t.Handle(ctx, req, in)
		if asked, ok := AsInputRequired(err); ok {
			// Not a failure: the call asks the client for input (the
			// user's confirmation, confirm.go) and is made again with it.
			return asked, nil
		}
		if err != nil {
			return errorResult(err), nil
		}
		return withStructured(res, out, t.Verbatim, t.ThirdParty)
	})
}

// InputSchema is the schema tools/list shows for t's arguments. An optional
// argument is optional by being left out, so the "null" that pointer, slice
// and map fields add to a property's type is dropped: ["null","number"]
// becomes "number", which every client understands (some refuse type arrays).
func (t Tool[In, Out]) InputSchema() *jsonschema.Schema {
	s := derive(reflect.TypeFor[In]())
	for _, prop := range s.Properties {
		if len(prop.Types) == 2 && slices.Contains(prop.Types, "null") {
			prop.Type = prop.Types[0]
			if prop.Type == "null" {
				prop.Type = prop.Types[1]
			}
			prop.Types = nil
		}
	}
	if t.AdjustInput != nil {
		t.AdjustInput(s)
	}
	return s
}

// OutputSchema is the schema tools/list shows for t's structured result. A
// member left out when empty (omitempty) is never null, so its type loses
// the "null" that pointers and slices add; one that may be null is written
// as anyOf [{"type": X}, {"type": "null"}] rather than a type array, which
// clients that map schemas onto a single-type dialect refuse.
func (t Tool[In, Out]) OutputSchema() *jsonschema.Schema {
	typ := reflect.TypeFor[Out]()
	if doc, ok := reflect.Zero(typ).Interface().(interface{ shape() reflect.Type }); ok {
		typ = doc.shape()
	}
	s := derive(typ)
	omitted := omitEmptyMembers(typ)
	for name, prop := range s.Properties {
		if len(prop.Types) != 2 || !slices.Contains(prop.Types, "null") {
			continue
		}
		other := prop.Types[0]
		if other == "null" {
			other = prop.Types[1]
		}
		if omitted[name] {
			prop.Type, prop.Types = other, nil
			continue
		}
		branch := *prop
		branch.Type, branch.Types, branch.Description = other, nil, ""
		s.Properties[name] = &jsonschema.Schema{Description: prop.Description, AnyOf: []*jsonschema.Schema{&branch, {Type: "null"}}}
	}
	if t.AdjustOutput != nil {
		t.AdjustOutput(s)
	}
	withoutMemberDescriptions(s)
	return s
}

// withoutMemberDescriptions drops the descriptions below an output
// schema's top: every session pays for the tool list in the model's
// context, and the model learns a result's members from the tool's
// description and from the result's own text, not from its schema. The Go
// types keep them, for the code's readers.
func withoutMemberDescriptions(s *jsonschema.Schema) {
	var walk func(p *jsonschema.Schema)
	walk = func(p *jsonschema.Schema) {
		if p == nil {
			return
		}
		p.Description = ""
		for _, child := range p.Properties {
			walk(child)
		}
		walk(p.Items)
		walk(p.AdditionalProperties)
		for _, branch := range p.AnyOf {
			walk(branch)
		}
		for _, def := range p.Defs {
			walk(def)
		}
	}
	for _, child := range s.Properties {
		walk(child)
	}
	walk(s.Items)
	walk(s.AdditionalProperties)
	for _, branch := range s.AnyOf {
		walk(branch)
	}
}

// omitEmptyMembers names the JSON members of struct type t (and of the
// structs it embeds) tagged omitempty.
func omitEmptyMembers(t reflect.Type) map[string]bool {
	names := map[string]bool{}
	if t.Kind() != reflect.Struct {
		return names
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			maps.Copy(names, omitEmptyMembers(f.Type))
			continue
		}
		if name != "" && name != "-" && slices.Contains(strings.Split(opts, ","), "omitempty") {
			names[name] = true
		}
	}
	return names
}

func derive(t reflect.Type) *jsonschema.Schema {
	s, err := jsonschema.ForType(t, nil)
	if err != nil {
		// A type no schema describes is a programming error, found by the
		// first test that builds the server.
		panic(fmt.Sprintf("mcptool: schema of %v: %v", t, err))
	}
	return s
}

// Document is a structured result that is JSON already, such as an upstream
// answer passed on byte for byte. Its output schema is derived from Shape,
// a type that describes the document without holding it.
type Document[Shape any] json.RawMessage

// MarshalJSON returns the document as it is.
func (d Document[Shape]) MarshalJSON() ([]byte, error) {
	if len(d) == 0 {
		return []byte("null"), nil
	}
	return d, nil
}

func (Document[Shape]) shape() reflect.Type { return reflect.TypeFor[Shape]() }

// encode is out's JSON; a Document is sent as it came, not re-encoded
// (which would compact it).
func encode(out any) ([]byte, error) {
	if doc, ok := out.(json.Marshaler); ok {
		if _, isDoc := out.(interface{ shape() reflect.Type }); isDoc {
			return doc.MarshalJSON()
		}
	}
	return jsonx.Marshal(out)
}

// withStructured sets res's structured content to out and makes the text
// content carry every value of it, for clients that hand the model only
// text: when res has no content of its own, the text is out's JSON; when
// the handler wrote text for a reader (a summary line, a request body, a
// schema in SDL), out's JSON follows its first block, less the verbatim
// members whose whole value is one of the handler's blocks (a body is not
// given twice), framed when thirdParty says it holds a third party's
// words. A block that is out's JSON already (an upstream answer passed on,
// framed or not) needs nothing added.
func withStructured[Out any](res *mcp.CallToolResult, out Out, verbatim []string, thirdParty bool) (*mcp.CallToolResult, error) {
	if res == nil {
		res = &mcp.CallToolResult{}
	}
	raw, err := encode(out)
	if err != nil {
		return nil, fmt.Errorf("encoding the result: %w", err)
	}
	res.StructuredContent = json.RawMessage(raw)
	if res.Content == nil {
		res.Content = []mcp.Content{&mcp.TextContent{Text: string(raw)}}
		return res, nil
	}
	// A framed block (what a third party wrote, untrusted.go) counts by
	// its content.
	blocks := map[string]bool{}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text, _ := Unframe(tc.Text)
			blocks[text] = true
		}
	}
	if blocks[string(raw)] {
		return res, nil
	}
	details, err := withoutMembers(raw, func(name, value string) bool {
		return value != "" && blocks[value] && slices.Contains(verbatim, name)
	})
	if err != nil {
		return nil, fmt.Errorf("encoding the result's text: %w", err)
	}
	if details == "{}" {
		return res, nil
	}
	if thirdParty {
		details = Untrusted("the result's other members, as JSON", details)
	}
	res.Content = slices.Insert(res.Content, 1, mcp.Content(&mcp.TextContent{Text: details}))
	return res, nil
}

// withoutMembers returns the JSON object obj, its members in their order,
// less the string members that drop reports. obj is not an object: it is
// returned as it is.
func withoutMembers(obj []byte, drop func(name, value string) bool) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return string(obj), nil
	}
	var b strings.Builder
	b.WriteByte('{')
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", err
		}
		name, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return "", err
		}
		var text string
		if len(value) > 0 && value[0] == '"' && json.Unmarshal(value, &text) == nil && drop(name, text) {
			continue
		}
		key, err := jsonx.Marshal(name)
		if err != nil {
			return "", err
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(value)
	}
	b.WriteByte('}')
	return b.String(), nil
}

// Text is a result whose content is text, for a Handle that writes its
// answer for a reader as well as in structure.
func Text(texts ...string) *mcp.CallToolResult {
	res := &mcp.CallToolResult{Content: make([]mcp.Content, len(texts))}
	for i, text := range texts {
		res.Content[i] = &mcp.TextContent{Text: text}
	}
	return res
}

func errorResult(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
}

func argumentNames(s *jsonschema.Schema) []string {
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
