package schema

import (
	"errors"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
)

// FromSDL builds a schema from SDL text, as introspection would describe it:
// types and directives in the order the text declares them. An empty
// description reads as none, as SDL cannot tell them apart.
func FromSDL(sdl string) (*Schema, error) {
	doc, err := parser.ParseSchemas(validator.Prelude, &ast.Source{Name: "schema", Input: sdl})
	if err != nil {
		return nil, err
	}
	var order []string
	seen := map[string]bool{}
	for _, list := range []ast.DefinitionList{doc.Definitions, doc.Extensions} {
		for _, def := range list {
			if !seen[def.Name] {
				seen[def.Name] = true
				order = append(order, def.Name)
			}
		}
	}
	var directiveOrder []string
	for _, d := range doc.Directives {
		directiveOrder = append(directiveOrder, d.Name)
	}
	loaded, err := validator.ValidateSchemaDocument(doc)
	if err != nil {
		return nil, err
	}
	if loaded.Query == nil {
		return nil, errors.New("the schema has no query type")
	}
	r := &Result{sdlSize: len(sdl)}
	s := &r.Schema
	s.Description = describe(loaded.Description)
	s.QueryType = &named{Name: loaded.Query.Name}
	if loaded.Mutation != nil {
		s.MutationType = &named{Name: loaded.Mutation.Name}
	}
	if loaded.Subscription != nil {
		s.SubscriptionType = &named{Name: loaded.Subscription.Name}
	}
	kinds := sdlKindsOf(loaded)
	for _, name := range order {
		s.Types = append(s.Types, kinds.typeFrom(loaded.Types[name]))
	}
	done := map[string]bool{}
	for _, name := range directiveOrder {
		if done[name] {
			continue
		}
		done[name] = true
		d := loaded.Directives[name]
		dir := directive{Name: d.Name, Description: describe(d.Description), IsRepeatable: d.IsRepeatable, Args: kinds.args(d.Arguments)}
		for _, loc := range d.Locations {
			dir.Locations = append(dir.Locations, string(loc))
		}
		s.Directives = append(s.Directives, dir)
	}
	if err := r.validate(); err != nil {
		return nil, err
	}
	return New(r)
}

// sdlKinds maps a loaded schema's type names to their introspection
// kinds, which type references carry.
type sdlKinds map[string]string

func sdlKindsOf(loaded *ast.Schema) sdlKinds {
	kinds := sdlKinds{}
	for name, def := range loaded.Types {
		kinds[name] = string(def.Kind)
	}
	return kinds
}

func (k sdlKinds) typeFrom(def *ast.Definition) fullType {
	t := fullType{Name: def.Name, Description: describe(def.Description)}
	switch def.Kind {
	case ast.Scalar:
		t.Kind = "SCALAR"
		if d := def.Directives.ForName("specifiedBy"); d != nil {
			if url := d.Arguments.ForName("url"); url != nil && url.Value != nil {
				t.SpecifiedByURL = &url.Value.Raw
			}
		}
	case ast.Object, ast.Interface:
		t.Kind = string(def.Kind)
		for _, name := range def.Interfaces {
			t.Interfaces = append(t.Interfaces, k.ref(name))
		}
		for _, f := range def.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue // __schema and __type, which gqlparser adds to the query type
			}
			deprecated, reason := deprecationFromSDL(f.Directives)
			t.Fields = append(t.Fields, field{
				Name: f.Name, Description: describe(f.Description), Args: k.args(f.Arguments),
				Type: k.refFrom(f.Type), IsDeprecated: deprecated, DeprecationReason: reason,
			})
		}
	case ast.Union:
		t.Kind = "UNION"
		for _, name := range def.Types {
			t.PossibleTypes = append(t.PossibleTypes, k.ref(name))
		}
	case ast.Enum:
		t.Kind = "ENUM"
		for _, v := range def.EnumValues {
			deprecated, reason := deprecationFromSDL(v.Directives)
			t.EnumValues = append(t.EnumValues, enumValue{Name: v.Name, Description: describe(v.Description), IsDeprecated: deprecated, DeprecationReason: reason})
		}
	case ast.InputObject:
		t.Kind = "INPUT_OBJECT"
		t.IsOneOf = def.Directives.ForName("oneOf") != nil
		for _, f := range def.Fields {
			t.InputFields = append(t.InputFields, k.inputValue(f.Name, f.Description, f.Type, f.DefaultValue, f.Directives))
		}
	}
	return t
}

func (k sdlKinds) args(args ast.ArgumentDefinitionList) []inputValue {
	values := make([]inputValue, 0, len(args))
	for _, a := range args {
		values = append(values, k.inputValue(a.Name, a.Description, a.Type, a.DefaultValue, a.Directives))
	}
	return values
}

func (k sdlKinds) inputValue(name, description string, typ *ast.Type, defaultValue *ast.Value, directives ast.DirectiveList) inputValue {
	deprecated, reason := deprecationFromSDL(directives)
	v := inputValue{Name: name, Description: describe(description), Type: k.refFrom(typ), IsDeprecated: deprecated, DeprecationReason: reason}
	if defaultValue != nil {
		var b strings.Builder
		writeValue(&b, defaultValue)
		literal := b.String()
		v.DefaultValue = &literal
	}
	return v
}

func deprecationFromSDL(directives ast.DirectiveList) (bool, *string) {
	d := directives.ForName("deprecated")
	if d == nil {
		return false, nil
	}
	reason := defaultDeprecationReason
	if arg := d.Arguments.ForName("reason"); arg != nil && arg.Value != nil {
		reason = arg.Value.Raw
	}
	return true, &reason
}

func (k sdlKinds) refFrom(t *ast.Type) typeRefT {
	var ref typeRefT
	if t.Elem != nil {
		inner := k.refFrom(t.Elem)
		ref = typeRefT{Kind: "LIST", OfType: &inner}
	} else {
		ref = k.ref(t.NamedType)
	}
	if t.NonNull {
		inner := ref
		ref = typeRefT{Kind: "NON_NULL", OfType: &inner}
	}
	return ref
}

// ref is a reference to the named type, with its kind.
func (k sdlKinds) ref(name string) typeRefT {
	return typeRefT{Kind: k[name], Name: &name}
}

func describe(description string) *string {
	if description == "" {
		return nil
	}
	return &description
}
