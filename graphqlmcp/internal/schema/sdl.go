package schema

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/lexer"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
)

// FromSDL builds a schema from SDL text, as introspection would describe it:
// types and directives in the order the text declares them, descriptions as
// written (an empty one, `""`, too), and default values coerced as
// graphql-js coerces them (New).
func FromSDL(sdl string) (*Schema, error) {
	src := &ast.Source{Name: "schema", Input: sdl}
	doc, err := parser.ParseSchemas(validator.Prelude, src)
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
		// gqlparser's prelude declares @defer (and the spec's directives)
		// for every schema; a file that does not declare it has none.
		if d.Position == nil || d.Position.Src != src {
			continue
		}
		directiveOrder = append(directiveOrder, d.Name)
	}
	// A file's huge type would hold the start for minutes, as an
	// endpoint's would hold a call (checkPairs).
	if err := checkPairs(doc); err != nil {
		return nil, fmt.Errorf("the schema cannot be loaded: %w", err)
	}
	loaded, err := validator.ValidateSchemaDocument(doc)
	if err != nil {
		return nil, err
	}
	if loaded.Query == nil {
		return nil, errors.New("the schema has no query type")
	}
	k := &sdlReader{kinds: map[string]string{}, src: src, emptyDescribed: emptyDescriptions(src)}
	for name, def := range loaded.Types {
		k.kinds[name] = string(def.Kind)
	}
	r := &Result{sdlSize: len(sdl)}
	s := &r.Schema
	s.Description = describe(loaded.Description)
	for _, def := range doc.Schema {
		if loaded.Description == "" && k.describedEmpty(def.Position) {
			s.Description = new(string)
		}
	}
	s.QueryType = &named{Name: loaded.Query.Name}
	if loaded.Mutation != nil {
		s.MutationType = &named{Name: loaded.Mutation.Name}
	}
	if loaded.Subscription != nil {
		s.SubscriptionType = &named{Name: loaded.Subscription.Name}
	}
	for _, name := range order {
		s.Types = append(s.Types, k.typeFrom(loaded.Types[name]))
	}
	done := map[string]bool{}
	for _, name := range directiveOrder {
		if done[name] {
			continue
		}
		done[name] = true
		d := loaded.Directives[name]
		dir := directive{Name: d.Name, Description: k.describe(d.Description, d.Position), IsRepeatable: d.IsRepeatable, Args: k.args(d.Arguments)}
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

// emptyDescriptions finds the empty descriptions (`""`, `""""""`) of src,
// which gqlparser reads as none: it returns the offsets (in runes, as
// gqlparser's positions count) of the names they describe. A string is a
// description when a name follows it and it is not a value: not after = or
// :, not inside a list. A definition's position is that of the token after
// its keyword (after the @ of a directive): its name, or the { of schema.
func emptyDescriptions(src *ast.Source) map[int]bool {
	found := map[int]bool{}
	lex := lexer.New(src)
	var prev lexer.Token
	pending, keyword := false, ""
	nesting, lists := 0, 0
	for {
		tok, err := lex.ReadToken()
		if err != nil || tok.Kind == lexer.EOF {
			return found
		}
		switch tok.Kind {
		case lexer.Comment:
			continue
		case lexer.BraceL, lexer.ParenL:
			nesting++
		case lexer.BraceR, lexer.ParenR:
			nesting--
		case lexer.BracketL:
			lists++
		case lexer.BracketR:
			lists--
		}
		switch {
		case keyword == "directive" && tok.Kind == lexer.At:
			// directive @name: the name comes next
		case keyword != "":
			found[tok.Pos.Start], keyword = true, ""
		case pending && tok.Kind == lexer.Name:
			pending = false
			switch tok.Value {
			case "scalar", "type", "interface", "union", "enum", "input", "directive", "schema":
				if nesting == 0 {
					keyword = tok.Value
					break
				}
				fallthrough
			default:
				found[tok.Pos.Start] = true
			}
		default:
			pending = false
		}
		if (tok.Kind == lexer.String || tok.Kind == lexer.BlockString) && tok.Value == "" &&
			lists == 0 && prev.Kind != lexer.Equals && prev.Kind != lexer.Colon {
			pending = true
		}
		prev = tok
	}
}

// sdlReader turns a loaded schema's definitions into introspection's.
type sdlReader struct {
	// kinds maps type names to their introspection kinds, which type
	// references carry.
	kinds map[string]string
	// src and emptyDescribed tell an empty description from none.
	src            *ast.Source
	emptyDescribed map[int]bool
}

// describedEmpty reports a definition at pos that has an empty description.
func (k *sdlReader) describedEmpty(pos *ast.Position) bool {
	return pos != nil && pos.Src == k.src && k.emptyDescribed[pos.Start]
}

// describe is a description read from SDL: nil when there is none.
func (k *sdlReader) describe(description string, pos *ast.Position) *string {
	if description == "" && k.describedEmpty(pos) {
		return new(string)
	}
	return describe(description)
}

func (k *sdlReader) typeFrom(def *ast.Definition) fullType {
	t := fullType{Name: def.Name, Description: k.describe(def.Description, def.Position)}
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
				Name: f.Name, Description: k.describe(f.Description, f.Position), Args: k.args(f.Arguments),
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
			t.EnumValues = append(t.EnumValues, enumValue{Name: v.Name, Description: k.describe(v.Description, v.Position), IsDeprecated: deprecated, DeprecationReason: reason})
		}
	case ast.InputObject:
		t.Kind = "INPUT_OBJECT"
		t.IsOneOf = def.Directives.ForName("oneOf") != nil
		for _, f := range def.Fields {
			t.InputFields = append(t.InputFields, k.inputValue(f.Name, k.describe(f.Description, f.Position), f.Type, f.DefaultValue, f.Directives))
		}
	}
	return t
}

func (k *sdlReader) args(args ast.ArgumentDefinitionList) []inputValue {
	values := make([]inputValue, 0, len(args))
	for _, a := range args {
		values = append(values, k.inputValue(a.Name, k.describe(a.Description, a.Position), a.Type, a.DefaultValue, a.Directives))
	}
	return values
}

func (k *sdlReader) inputValue(name string, description *string, typ *ast.Type, defaultValue *ast.Value, directives ast.DirectiveList) inputValue {
	deprecated, reason := deprecationFromSDL(directives)
	v := inputValue{Name: name, Description: description, Type: k.refFrom(typ), IsDeprecated: deprecated, DeprecationReason: reason}
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

func (k *sdlReader) refFrom(t *ast.Type) typeRefT {
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
func (k *sdlReader) ref(name string) typeRefT {
	return typeRefT{Kind: k.kinds[name], Name: &name}
}

func describe(description string) *string {
	if description == "" {
		return nil
	}
	return &description
}
