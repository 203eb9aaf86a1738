package operations

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/vektah/gqlparser/v2/ast"
)

// OutputSchema is the JSON Schema of the GraphQL response to op over
// schema, which validated op: data shaped by the selection set, or null,
// and GraphQL's errors and extensions. A field is required where every
// response has it: not under @skip, @include or @defer, nor in a fragment
// whose type condition only some objects meet. Additional members are
// allowed, as an endpoint may add them.
func OutputSchema(schema *ast.Schema, doc *ast.QueryDocument, op *ast.OperationDefinition) *jsonschema.Schema {
	out := &outputMapper{schema: schema, fragments: map[string]*ast.FragmentDefinition{}}
	for _, f := range doc.Fragments {
		out.fragments[f.Name] = f
	}
	data := out.object(RootType(schema, op.Operation), []selections{{set: op.SelectionSet, always: true}})
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"data":       {AnyOf: []*jsonschema.Schema{data, {Type: "null"}}},
			"errors":     {Type: "array", Items: &jsonschema.Schema{Type: "object"}},
			"extensions": {Type: "object"},
		},
		PropertyOrder: []string{"data", "errors", "extensions"},
	}
}

type outputMapper struct {
	schema    *ast.Schema
	fragments map[string]*ast.FragmentDefinition
}

// selections is one selection set of an object; always is set when it
// applies to every such object in every response (not under @include, nor
// under a type condition only some objects meet), so that what it selects
// is always there.
type selections struct {
	set    ast.SelectionSet
	always bool
}

// collected is one response key's fields, merged as GraphQL merges them.
type collected struct {
	fields []*ast.Field
	// sure says, for each field, whether it is in every response.
	sure []bool
	// always is set when one of them is in every response.
	always bool
}

// object maps the selection sets that make one object of type parent.
func (out *outputMapper) object(parent *ast.Definition, sets []selections) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	if parent == nil {
		return s
	}
	keys := map[string]*collected{}
	var order []string
	for _, s := range sets {
		out.collect(parent, s.set, s.always, keys, &order, map[string]bool{})
	}
	for _, key := range order {
		c := keys[key]
		s.Properties[key] = out.field(parent, c)
		s.PropertyOrder = append(s.PropertyOrder, key)
		if c.always {
			s.Required = append(s.Required, key)
		}
	}
	return s
}

func (out *outputMapper) collect(parent *ast.Definition, set ast.SelectionSet, always bool, keys map[string]*collected, order *[]string, spread map[string]bool) {
	for _, sel := range set {
		switch sel := sel.(type) {
		case *ast.Field:
			key := sel.Alias
			if key == "" {
				key = sel.Name
			}
			c := keys[key]
			if c == nil {
				c = &collected{}
				keys[key] = c
				*order = append(*order, key)
			}
			sure := always && !conditional(sel.Directives)
			c.fields = append(c.fields, sel)
			c.sure = append(c.sure, sure)
			c.always = c.always || sure
		case *ast.InlineFragment:
			out.collect(parent, sel.SelectionSet, always && !conditional(sel.Directives) && out.covers(sel.TypeCondition, parent), keys, order, spread)
		case *ast.FragmentSpread:
			f := out.fragments[sel.Name]
			if f == nil || spread[sel.Name] {
				continue
			}
			spread[sel.Name] = true
			out.collect(parent, f.SelectionSet, always && !conditional(sel.Directives) && out.covers(f.TypeCondition, parent), keys, order, spread)
			delete(spread, sel.Name)
		}
	}
}

// covers reports a type condition every object of type parent meets.
func (out *outputMapper) covers(condition string, parent *ast.Definition) bool {
	if condition == "" || condition == parent.Name {
		return true
	}
	if parent.Kind != ast.Object {
		return false
	}
	for _, iface := range parent.Interfaces {
		if iface == condition {
			return true
		}
	}
	return false
}

// conditional reports directives that may leave a selection out of the
// response, or out of its first part.
func conditional(directives ast.DirectiveList) bool {
	return directives.ForName("skip") != nil || directives.ForName("include") != nil || directives.ForName("defer") != nil
}

// field maps one response key, from the first field's definition and all
// the fields' selection sets: what a field that is not always there selects
// is not always there either.
func (out *outputMapper) field(parent *ast.Definition, c *collected) *jsonschema.Schema {
	fields := c.fields
	name := fields[0].Name
	if name == "__typename" {
		return &jsonschema.Schema{Type: "string"}
	}
	def := parent.Fields.ForName(name)
	if def == nil {
		return &jsonschema.Schema{} // __schema, __type, or a field the validator refused
	}
	sets := make([]selections, 0, len(fields))
	for i, f := range fields {
		sets = append(sets, selections{set: f.SelectionSet, always: c.sure[i]})
	}
	return out.typ(def.Type, sets)
}

func (out *outputMapper) typ(t *ast.Type, sets []selections) *jsonschema.Schema {
	var s *jsonschema.Schema
	if t.Elem != nil {
		s = &jsonschema.Schema{Type: "array", Items: out.typ(t.Elem, sets)}
	} else {
		s = out.named(t.NamedType, sets)
	}
	if t.NonNull {
		return s
	}
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{s, {Type: "null"}}}
}

func (out *outputMapper) named(name string, sets []selections) *jsonschema.Schema {
	switch name {
	case "Int":
		return &jsonschema.Schema{Type: "integer"}
	case "Float":
		return &jsonschema.Schema{Type: "number"}
	case "String", "ID":
		return &jsonschema.Schema{Type: "string"}
	case "Boolean":
		return &jsonschema.Schema{Type: "boolean"}
	}
	def := out.schema.Types[name]
	if def == nil {
		return &jsonschema.Schema{}
	}
	switch def.Kind {
	case ast.Enum:
		// A newer server may answer with a value this schema lacks.
		return &jsonschema.Schema{Type: "string"}
	case ast.Object, ast.Interface, ast.Union:
		return out.object(def, sets)
	}
	return &jsonschema.Schema{} // a custom scalar serializes as it likes
}
