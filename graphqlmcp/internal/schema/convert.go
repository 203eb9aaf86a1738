package schema

import (
	"fmt"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
	"github.com/vektah/gqlparser/v2/parser"
)

// isBuiltinType reports the types every GraphQL schema has implicitly, which
// SDL leaves out.
func isBuiltinType(name string) bool {
	switch name {
	case "String", "Int", "Float", "Boolean", "ID":
		return true
	}
	return strings.HasPrefix(name, "__")
}

// isBuiltinDirective reports the directives that gqlparser (and the GraphQL
// spec) define implicitly; redefining them makes SDL fail to load.
func isBuiltinDirective(name string) bool {
	switch name {
	case "skip", "include", "deprecated", "specifiedBy", "oneOf", "defer":
		return true
	}
	return false
}

// ToDocument converts an introspection result into a gqlparser schema
// document, leaving out built-in types and directives.
func ToDocument(r *Result) (*ast.SchemaDocument, error) {
	doc := &ast.SchemaDocument{}
	s := r.Schema
	roots := []struct {
		op       ast.Operation
		t        *named
		implicit string
	}{{ast.Query, s.QueryType, "Query"}, {ast.Mutation, s.MutationType, "Mutation"}, {ast.Subscription, s.SubscriptionType, "Subscription"}}
	var ops ast.OperationTypeDefinitionList
	conventional := true
	for _, root := range roots {
		if root.t == nil || root.t.Name == "" {
			continue
		}
		ops = append(ops, &ast.OperationTypeDefinition{Operation: root.op, Type: root.t.Name})
		conventional = conventional && root.t.Name == root.implicit
	}
	if !conventional {
		doc.Schema = ast.SchemaDefinitionList{{OperationTypes: ops}}
	}
	for _, d := range s.Directives {
		if isBuiltinDirective(d.Name) {
			continue
		}
		args, err := arguments(d.Args)
		if err != nil {
			return nil, fmt.Errorf("directive @%s: %w", d.Name, err)
		}
		def := &ast.DirectiveDefinition{Name: d.Name, Description: text(d.Description), Arguments: args, IsRepeatable: d.IsRepeatable}
		for _, loc := range d.Locations {
			def.Locations = append(def.Locations, ast.DirectiveLocation(loc))
		}
		doc.Directives = append(doc.Directives, def)
	}
	for _, t := range s.Types {
		if isBuiltinType(t.Name) {
			continue
		}
		def, err := definition(t)
		if err != nil {
			return nil, fmt.Errorf("type %s: %w", t.Name, err)
		}
		doc.Definitions = append(doc.Definitions, def)
	}
	return doc, nil
}

func definition(t fullType) (*ast.Definition, error) {
	def := &ast.Definition{Name: t.Name, Description: text(t.Description)}
	switch t.Kind {
	case "OBJECT":
		def.Kind = ast.Object
	case "INTERFACE":
		def.Kind = ast.Interface
	case "UNION":
		def.Kind = ast.Union
	case "ENUM":
		def.Kind = ast.Enum
	case "INPUT_OBJECT":
		def.Kind = ast.InputObject
	case "SCALAR":
		def.Kind = ast.Scalar
		if url := text(t.SpecifiedByURL); url != "" {
			def.Directives = ast.DirectiveList{directiveWith("specifiedBy", "url", url)}
		}
	default:
		return nil, fmt.Errorf("unknown kind %q", t.Kind)
	}
	for _, i := range t.Interfaces {
		def.Interfaces = append(def.Interfaces, i.leafName())
	}
	for _, p := range t.PossibleTypes {
		if def.Kind == ast.Union {
			def.Types = append(def.Types, p.leafName())
		}
	}
	for _, f := range t.Fields {
		args, err := arguments(f.Args)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		def.Fields = append(def.Fields, &ast.FieldDefinition{
			Name: f.Name, Description: text(f.Description), Arguments: args, Type: f.Type.astType(),
			Directives: deprecation(f.IsDeprecated, f.DeprecationReason),
		})
	}
	for _, f := range t.InputFields {
		defaultValue, err := parseValue(f.DefaultValue)
		if err != nil {
			return nil, fmt.Errorf("input field %s: %w", f.Name, err)
		}
		def.Fields = append(def.Fields, &ast.FieldDefinition{
			Name: f.Name, Description: text(f.Description), Type: f.Type.astType(), DefaultValue: defaultValue,
			Directives: deprecation(f.IsDeprecated, f.DeprecationReason),
		})
	}
	for _, v := range t.EnumValues {
		def.EnumValues = append(def.EnumValues, &ast.EnumValueDefinition{
			Name: v.Name, Description: text(v.Description), Directives: deprecation(v.IsDeprecated, v.DeprecationReason),
		})
	}
	return def, nil
}

func arguments(values []inputValue) (ast.ArgumentDefinitionList, error) {
	var args ast.ArgumentDefinitionList
	for _, v := range values {
		defaultValue, err := parseValue(v.DefaultValue)
		if err != nil {
			return nil, fmt.Errorf("argument %s: %w", v.Name, err)
		}
		args = append(args, &ast.ArgumentDefinition{
			Name: v.Name, Description: text(v.Description), Type: v.Type.astType(), DefaultValue: defaultValue,
			Directives: deprecation(v.IsDeprecated, v.DeprecationReason),
		})
	}
	return args, nil
}

// parseValue parses a default value, which introspection gives as GraphQL
// literal text ("10", "\"x\"", "[RED]", "{a: 1}"), by reading it as the
// default of a variable: the only way gqlparser parses a bare value.
func parseValue(literal *string) (*ast.Value, error) {
	if literal == nil {
		return nil, nil
	}
	doc, err := parser.ParseQuery(&ast.Source{Input: "query($v: Int = " + *literal + ") { f }"})
	if err != nil || len(doc.Operations) != 1 || len(doc.Operations[0].VariableDefinitions) != 1 {
		return nil, fmt.Errorf("default value %q is not a GraphQL literal", *literal)
	}
	return doc.Operations[0].VariableDefinitions[0].DefaultValue, nil
}

func deprecation(deprecated bool, reason *string) ast.DirectiveList {
	if !deprecated {
		return nil
	}
	d := &ast.Directive{Name: "deprecated"}
	if why := text(reason); why != "" && why != "No longer supported" {
		d = directiveWith("deprecated", "reason", why)
	}
	return ast.DirectiveList{d}
}

func directiveWith(name, arg, value string) *ast.Directive {
	return &ast.Directive{Name: name, Arguments: ast.ArgumentList{{
		Name: arg, Value: &ast.Value{Kind: ast.StringValue, Raw: value},
	}}}
}

func (t typeRefT) astType() *ast.Type {
	switch t.Kind {
	case "NON_NULL":
		if t.OfType == nil {
			return ast.NamedType("Unknown", nil)
		}
		inner := t.OfType.astType()
		inner.NonNull = true
		return inner
	case "LIST":
		if t.OfType == nil {
			return ast.ListType(ast.NamedType("Unknown", nil), nil)
		}
		return ast.ListType(t.OfType.astType(), nil)
	default:
		return ast.NamedType(t.leafName(), nil)
	}
}

func (t typeRefT) leafName() string {
	for ref := &t; ref != nil; ref = ref.OfType {
		if ref.Name != nil {
			return *ref.Name
		}
	}
	return "Unknown"
}

// Format renders doc as SDL.
func Format(doc *ast.SchemaDocument) string {
	var b strings.Builder
	formatter.NewFormatter(&b, formatter.WithIndent("  ")).FormatSchemaDocument(doc)
	return b.String()
}
