package schema

import (
	"errors"
	"fmt"

	"github.com/vektah/gqlparser/v2/ast"
)

// validate checks every name and type reference of an introspection answer
// before anything is built from it: an endpoint's answer is untrusted, and a
// malformed one must be refused with the entry that is wrong, never passed to
// code that assumes a well-formed schema. It returns a *MalformedError or a
// *TooDeepError.
func (r *Result) validate() error {
	if err := r.check(); err != nil {
		if _, tooDeep := err.(*TooDeepError); tooDeep {
			return err
		}
		return &MalformedError{Reason: err.Error()}
	}
	return nil
}

// TooDeepError reports a type reference wrapped in more lists and non-nulls
// than the introspection query reads, which no real schema needs.
type TooDeepError struct{ What string }

func (e *TooDeepError) Error() string {
	return fmt.Sprintf("the type of %s is wrapped in more than %d lists and non-nulls, deeper than graphql_introspect reads (no real schema nests so deep)", e.What, typeRefDepth-1)
}

// maxTypeRefDepth bounds the wrapping of a type reference in an answer the
// query did not shape, such as a saved introspection file.
const maxTypeRefDepth = 32

func (r *Result) check() error {
	s := &r.Schema
	for _, root := range []struct {
		what string
		t    *named
	}{{"queryType", s.QueryType}, {"mutationType", s.MutationType}, {"subscriptionType", s.SubscriptionType}} {
		if root.t != nil {
			if err := checkName(root.what, root.t.Name); err != nil {
				return err
			}
		}
	}
	for i, t := range s.Types {
		if err := checkName(fmt.Sprintf("types[%d]", i), t.Name); err != nil {
			return err
		}
		if err := t.validate(); err != nil {
			var tooDeep *TooDeepError
			if errors.As(err, &tooDeep) {
				return &TooDeepError{What: t.Name + "'s " + tooDeep.What}
			}
			return fmt.Errorf("type %s: %w", t.Name, err)
		}
	}
	for i, d := range s.Directives {
		if err := checkName(fmt.Sprintf("directives[%d]", i), d.Name); err != nil {
			return err
		}
		for _, loc := range d.Locations {
			if err := checkName("directive @"+d.Name+" location", loc); err != nil {
				return err
			}
		}
		if err := validateInputValues("directive @"+d.Name+" argument", d.Args); err != nil {
			return err
		}
	}
	return nil
}

func (t fullType) validate() error {
	for _, f := range t.Fields {
		if err := checkName("field", f.Name); err != nil {
			return err
		}
		if err := f.Type.validate("field "+f.Name, 0); err != nil {
			return err
		}
		if len(f.Args) == 0 {
			continue
		}
		if err := validateInputValues("field "+f.Name+" argument", f.Args); err != nil {
			return err
		}
	}
	if err := validateInputValues("input field", t.InputFields); err != nil {
		return err
	}
	for _, v := range t.EnumValues {
		if err := checkName("enum value", v.Name); err != nil {
			return err
		}
	}
	for _, refs := range []struct {
		what string
		list []typeRefT
	}{{"interface", t.Interfaces}, {"possible type", t.PossibleTypes}} {
		for _, ref := range refs.list {
			if err := ref.validate(refs.what, 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// validateInputValues checks values and keeps each default value parsed,
// for the views to print and follow without parsing it again.
func validateInputValues(what string, values []inputValue) error {
	for i := range values {
		v := &values[i]
		if err := checkName(what, v.Name); err != nil {
			return err
		}
		if err := v.Type.validate(what+" "+v.Name, 0); err != nil {
			return err
		}
		if v.DefaultValue != nil {
			parsed, err := parseDefault(*v.DefaultValue)
			if err != nil {
				return fmt.Errorf("%s %s: default value %q %v", what, v.Name, truncateName(*v.DefaultValue), err)
			}
			v.parsedDefault = parsed
		}
	}
	return nil
}

// validate checks a type reference: a wrapper (LIST, NON_NULL) wraps
// something, NON_NULL does not wrap NON_NULL, and the named type at the
// bottom has a GraphQL name.
func (t typeRefT) validate(what string, depth int) error {
	switch t.Kind {
	case "NON_NULL", "LIST":
		if depth >= maxTypeRefDepth || (t.OfType == nil && depth >= typeRefDepth-1) {
			// The type goes on past what the query reads (or, in a saved
			// answer, past any sense).
			return &TooDeepError{What: what}
		}
		if t.OfType == nil {
			return fmt.Errorf("%s: its type is %s of nothing (ofType is null); the introspection answer may be cut short at its depth", what, t.Kind)
		}
		if t.Kind == "NON_NULL" && t.OfType.Kind == "NON_NULL" {
			return fmt.Errorf("%s: its type is NON_NULL of NON_NULL, which GraphQL does not allow", what)
		}
		return t.OfType.validate(what, depth+1)
	}
	name := ""
	if t.Name != nil {
		name = *t.Name
	}
	return checkName(what+" type", name)
}

func checkName(what, name string) error {
	if !isName(name) {
		return fmt.Errorf("%s has the name %q, which is not a GraphQL name (letters, digits and _, not starting with a digit)", what, truncateName(name))
	}
	return nil
}

// isName reports the GraphQL spec's Name: letters, digits and underscores,
// not starting with a digit. (A regexp does the same four times slower, on
// every name of a schema.)
func isName(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return s != ""
}

// truncateName keeps a hostile name from filling the message.
func truncateName(name string) string {
	if len(name) > 80 {
		return name[:80] + "…"
	}
	return name
}

// errNotALiteral reports default-value text that is not one GraphQL value.
var errNotALiteral = errors.New("is not a GraphQL value")

// parseDefault parses a default value, which must be one constant GraphQL
// value: it parses, and names no variable.
func parseDefault(literal string) (*ast.Value, error) {
	v, err := parseLiteral(literal)
	if err != nil {
		return nil, errNotALiteral
	}
	var constant func(v *ast.Value) bool
	constant = func(v *ast.Value) bool {
		if v.Kind == ast.Variable {
			return false
		}
		for _, child := range v.Children {
			if !constant(child.Value) {
				return false
			}
		}
		return true
	}
	if !constant(v) {
		return nil, errors.New("names a variable, which a default value cannot")
	}
	return v, nil
}
