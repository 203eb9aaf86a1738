package operations

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/mcpforge/servers/shared/jsonx"
)

// maxDescription bounds each description a schema carries (a type's,
// an argument's): a schema's own text may be long, and every session pays
// for the tool list.
const maxDescription = 400

// InputSchema is the JSON Schema of op's variables over schema, which
// validated op: each variable a property, required when it is non-null
// without a default; every input type mapped as the spec coerces it (see
// the package's docs for the table). Input objects and enums are
// described once under $defs and referred to, so recursive input types
// are finite.
func InputSchema(schema *ast.Schema, doc *ast.QueryDocument, op *ast.OperationDefinition) *jsonschema.Schema {
	in := &inputMapper{schema: schema, defs: map[string]*jsonschema.Schema{}}
	root := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	uses := variableUses(schema, doc, op)
	for _, def := range op.VariableDefinitions {
		prop := in.typ(def.Type)
		if def.DefaultValue != nil {
			prop = withDefault(prop, def.DefaultValue)
		} else if def.Type.NonNull {
			root.Required = append(root.Required, def.Variable)
		}
		if use := uses[def.Variable]; use != "" {
			prop = withDescription(prop, use)
		}
		root.Properties[def.Variable] = prop
		root.PropertyOrder = append(root.PropertyOrder, def.Variable)
	}
	if len(in.defs) > 0 {
		root.Defs = in.defs
	}
	return root
}

type inputMapper struct {
	schema *ast.Schema
	defs   map[string]*jsonschema.Schema
}

// typ maps an input type: a nullable one also takes null, and a list one
// item alone (GraphQL's input coercion takes 7 for [Int] as [7]).
func (in *inputMapper) typ(t *ast.Type) *jsonschema.Schema {
	var s *jsonschema.Schema
	if t.Elem != nil {
		one := *t.Elem
		one.NonNull = true // null alone is the list's null, not an item's
		s = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "array", Items: in.typ(t.Elem)}, in.typ(&one)}}
	} else {
		s = in.named(t.NamedType)
	}
	if t.NonNull {
		return s
	}
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{s, {Type: "null"}}}
}

func (in *inputMapper) named(name string) *jsonschema.Schema {
	switch name {
	case "Int":
		return &jsonschema.Schema{Type: "integer", Minimum: ptr(float64(math.MinInt32)), Maximum: ptr(float64(math.MaxInt32))}
	case "Float":
		return &jsonschema.Schema{Type: "number"}
	case "String":
		return &jsonschema.Schema{Type: "string"}
	case "Boolean":
		return &jsonschema.Schema{Type: "boolean"}
	case "ID":
		// graphql-js's ID takes an integer as well as a string. As anyOf
		// branches of one type each: a client that maps schemas onto a
		// single-type dialect (Gemini's) rejects a type array, as the
		// Inspector's --strict check warns.
		return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "string"}, {Type: "integer"}}, Description: "an ID"}
	}
	def := in.schema.Types[name]
	if def == nil {
		return &jsonschema.Schema{} // the validator refused the operation already
	}
	switch def.Kind {
	case ast.Scalar:
		// A custom scalar takes whatever its endpoint parses (a JSON
		// scalar an object, a BigInt a number): a type here would refuse
		// values the call sends, so the description says what it is.
		return &jsonschema.Schema{Description: scalarDescription(def)}
	case ast.Enum, ast.InputObject:
		if _, done := in.defs[name]; !done {
			in.defs[name] = &jsonschema.Schema{} // a recursive reference finds it
			if def.Kind == ast.Enum {
				in.defs[name] = enumSchema(def)
			} else {
				in.defs[name] = in.inputObject(def)
			}
		}
		return &jsonschema.Schema{Ref: "#/$defs/" + name}
	}
	return &jsonschema.Schema{}
}

// scalarDescription says what a custom scalar is: its description and
// the URL of its specification, which is all a client can know of it.
func scalarDescription(def *ast.Definition) string {
	parts := []string{"a " + def.Name + " (a custom scalar, usually written as a string)"}
	if d := oneLine(def.Description); d != "" {
		parts[0] += ": " + d
	}
	if spec := def.Directives.ForName("specifiedBy"); spec != nil {
		if url := spec.Arguments.ForName("url"); url != nil && url.Value != nil {
			parts = append(parts, "specified by "+url.Value.Raw)
		}
	}
	return cut(strings.Join(parts, "; "), maxDescription)
}

func enumSchema(def *ast.Definition) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string"}
	var described []string
	for _, v := range def.EnumValues {
		s.Enum = append(s.Enum, v.Name)
		d := oneLine(v.Description)
		if v.Directives.ForName("deprecated") != nil {
			d = strings.TrimSpace(d + " (deprecated)")
		}
		if d != "" {
			described = append(described, v.Name+": "+d)
		}
	}
	desc := oneLine(def.Description)
	if len(described) > 0 {
		desc = strings.TrimSpace(desc + " " + strings.Join(described, "; "))
	}
	s.Description = cut(desc, maxDescription*2)
	return s
}

// inputObject maps an input object; a @oneOf one takes exactly one of its
// fields, never null.
func (in *inputMapper) inputObject(def *ast.Definition) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		Description: cut(oneLine(def.Description), maxDescription)}
	oneOf := def.Directives.ForName("oneOf") != nil
	for _, field := range def.Fields {
		t := field.Type
		if oneOf {
			// Each field is nullable in the schema, and null is refused.
			copied := *t
			copied.NonNull = true
			t = &copied
		}
		prop := in.typ(t)
		switch {
		case field.DefaultValue != nil:
			prop = withDefault(prop, field.DefaultValue)
		case field.Type.NonNull && !oneOf:
			s.Required = append(s.Required, field.Name)
		}
		if d := oneLine(field.Description); d != "" {
			prop = withDescription(prop, cut(d, maxDescription))
		}
		s.Properties[field.Name] = prop
		s.PropertyOrder = append(s.PropertyOrder, field.Name)
	}
	if oneOf {
		s.MinProperties, s.MaxProperties = ptr(1), ptr(1)
		s.Description = strings.TrimSpace(s.Description + " Give exactly one field (@oneOf).")
	}
	return s
}

// withDefault sets a schema's default to a GraphQL literal's JSON.
func withDefault(s *jsonschema.Schema, v *ast.Value) *jsonschema.Schema {
	if raw, err := jsonx.Marshal(literal(v)); err == nil {
		copied := *s
		copied.Default = raw
		return &copied
	}
	return s
}

// withDescription puts a description on s, which may be a $ref (which
// JSON Schema 2020-12 lets stand beside other keywords).
func withDescription(s *jsonschema.Schema, d string) *jsonschema.Schema {
	copied := *s
	if copied.Description != "" {
		d = copied.Description + "; " + d
	}
	copied.Description = d
	return &copied
}

// literal is a constant GraphQL value as JSON.
func literal(v *ast.Value) any {
	switch v.Kind {
	case ast.IntValue, ast.FloatValue:
		return json.Number(v.Raw)
	case ast.StringValue, ast.BlockValue, ast.EnumValue:
		return v.Raw
	case ast.BooleanValue:
		return v.Raw == "true"
	case ast.NullValue:
		return nil
	case ast.ListValue:
		list := make([]any, len(v.Children))
		for i, c := range v.Children {
			list[i] = literal(c.Value)
		}
		return list
	case ast.ObjectValue:
		obj := make(map[string]any, len(v.Children))
		for _, c := range v.Children {
			obj[c.Name] = literal(c.Value)
		}
		return obj
	}
	return nil
}

// variableUses says, for each variable, where the operation uses it: the
// arguments it is passed to and their descriptions, which is what the
// model needs to know of it.
func variableUses(schema *ast.Schema, doc *ast.QueryDocument, op *ast.OperationDefinition) map[string]string {
	uses := map[string][]string{}
	fragments := map[string]*ast.FragmentDefinition{}
	for _, f := range doc.Fragments {
		fragments[f.Name] = f
	}
	visited := map[string]bool{}
	var visit func(set ast.SelectionSet, parent *ast.Definition)
	visit = func(set ast.SelectionSet, parent *ast.Definition) {
		for _, sel := range set {
			switch sel := sel.(type) {
			case *ast.Field:
				var def *ast.FieldDefinition
				if parent != nil {
					def = parent.Fields.ForName(sel.Name)
				}
				for _, arg := range sel.Arguments {
					if arg.Value == nil || arg.Value.Kind != ast.Variable {
						continue
					}
					use := fmt.Sprintf("%s(%s:)", sel.Name, arg.Name)
					if def != nil {
						if argDef := def.Arguments.ForName(arg.Name); argDef != nil && oneLine(argDef.Description) != "" {
							use += " " + oneLine(argDef.Description)
						}
					}
					if len(uses[arg.Value.Raw]) < 3 && !slices.Contains(uses[arg.Value.Raw], use) {
						uses[arg.Value.Raw] = append(uses[arg.Value.Raw], use)
					}
				}
				var below *ast.Definition
				if def != nil {
					below = schema.Types[def.Type.Name()]
				}
				visit(sel.SelectionSet, below)
			case *ast.InlineFragment:
				next := parent
				if sel.TypeCondition != "" {
					next = schema.Types[sel.TypeCondition]
				}
				visit(sel.SelectionSet, next)
			case *ast.FragmentSpread:
				if f := fragments[sel.Name]; f != nil && !visited[sel.Name] {
					visited[sel.Name] = true
					visit(f.SelectionSet, schema.Types[f.TypeCondition])
				}
			}
		}
	}
	visit(op.SelectionSet, RootType(schema, op.Operation))
	out := map[string]string{}
	for name, list := range uses {
		out[name] = cut("passed to "+strings.Join(list, "; "), maxDescription)
	}
	return out
}

// RootType is the schema's type for an operation type.
func RootType(schema *ast.Schema, t ast.Operation) *ast.Definition {
	switch t {
	case ast.Mutation:
		return schema.Mutation
	case ast.Subscription:
		return schema.Subscription
	}
	return schema.Query
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func cut(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func ptr[T any](v T) *T { return &v }
