package coerce

import (
	"fmt"
	"math"
	"strconv"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/validator/core"
)

// LiteralRule is graphql-js 16's ValuesOfCorrectTypeRule over gqlparser's
// walker, under the name of gqlparser's rule, which it replaces: gqlparser's
// lets through an Int literal beyond 32 bits and {} for a scalar or an enum,
// refuses a Float or ID literal beyond 64 bits that graphql-js takes, and
// names the wrong member of a @oneOf input given null.
//
// gqlparser's walker calls its value observers bottom-up, where graphql-js
// stops at a list or an object it has refused; so the rule takes each
// argument's and each variable default's whole value from its field,
// directive or operation and walks it top-down as graphql-js does. A
// fragment's values, which gqlparser walks once per spread, are judged once.
//
// redact, when not nil, takes secrets out of every string a message quotes,
// before the quote is cut.
func LiteralRule(redact func(string) string) core.Rule {
	return core.Rule{Name: "ValuesOfCorrectType", RuleFunc: func(observers *core.Events, addError core.AddErrFunc) {
		seen := map[*ast.Value]bool{}
		check := func(schema *ast.Schema, v *ast.Value, t *ast.Type) {
			if v == nil || seen[v] {
				return
			}
			seen[v] = true
			(&literals{schema: schema, addError: addError, quoters: quoters(redact)}).value(v, t)
		}
		arguments := func(w *core.Walker, defs ast.ArgumentDefinitionList, args ast.ArgumentList) {
			for _, arg := range args {
				if def := defs.ForName(arg.Name); def != nil && isInputType(w.Schema, def.Type) {
					check(w.Schema, arg.Value, def.Type)
				}
			}
		}
		observers.OnField(func(w *core.Walker, field *ast.Field) {
			if field.Definition != nil {
				arguments(w, field.Definition.Arguments, field.Arguments)
			}
		})
		observers.OnDirective(func(w *core.Walker, directive *ast.Directive) {
			if directive.Definition != nil {
				arguments(w, directive.Definition.Arguments, directive.Arguments)
			}
		})
		observers.OnOperation(func(w *core.Walker, op *ast.OperationDefinition) {
			for _, def := range op.VariableDefinitions {
				if def.DefaultValue != nil && isInputType(w.Schema, def.Type) {
					check(w.Schema, def.DefaultValue, def.Type)
				}
			}
		})
	}}
}

type literals struct {
	schema   *ast.Schema
	addError core.AddErrFunc
	quoters  []quoter
}

// report adds an error at where; message builds its text, which only the
// errors kept build (see checkRules in tools), with quotes that shrink
// until it fits maxMessageBytes.
func (l *literals) report(where func() *ast.Position, message func(q quoter) string) {
	l.addError(func(err *gqlerror.Error) {
		var text string
		for _, q := range l.quoters {
			if text = message(q); len(text) <= maxMessageBytes {
				break
			}
		}
		err.Message += text
		core.At(where())(err)
	})
}

// place is where graphql-js places an error about v: where v starts. For a
// string gqlparser gives the column after the opening quote, and for a
// block string its last line with a column counted from the start of the
// token, so both are found again from the token's start in the query.
func (l *literals) place(v *ast.Value) func() *ast.Position {
	return func() *ast.Position {
		pos := v.Position
		if pos == nil || pos.Src == nil || (v.Kind != ast.StringValue && v.Kind != ast.BlockValue) {
			return pos
		}
		where := *pos
		where.Line, where.Column = 1, 1
		i, afterCR := 0, false
		for _, r := range pos.Src.Input { // positions count runes
			if i == pos.Start {
				return &where
			}
			i++
			switch {
			case r == '\n' && afterCR: // \r\n is one line break
			case r == '\n' || r == '\r':
				where.Line, where.Column = where.Line+1, 1
			default:
				where.Column++
			}
			afterCR = r == '\r'
		}
		return pos
	}
}

// value judges v where type t is expected (nil where the schema expects
// nothing: an unknown input field), as ValuesOfCorrectTypeRule's visitor
// does on entering it and below.
func (l *literals) value(v *ast.Value, t *ast.Type) {
	switch v.Kind {
	case ast.Variable:
		return
	case ast.NullValue:
		if t != nil && t.NonNull {
			l.report(l.place(v), func(q quoter) string { return fmt.Sprintf(`Expected value of type "%s", found null.`, t) })
		}
	case ast.ListValue:
		item := nullable(t)
		if item == nil || item.Elem == nil {
			// Where no list is expected, the list is judged whole as the
			// type's value, as graphql-js's TypeInfo makes the position's
			// nullable type the item type.
			l.leaf(v, item)
			if item != nil && isInputType(l.schema, item) {
				l.itemVariables(v, item)
			}
			return
		}
		for _, child := range v.Children {
			l.value(child.Value, item.Elem)
		}
	case ast.ObjectValue:
		var def *ast.Definition
		if t != nil {
			def = l.schema.Types[t.Name()]
		}
		if def == nil || def.Kind != ast.InputObject {
			l.leaf(v, t)
			return
		}
		l.object(v, def)
	default:
		l.leaf(v, t)
	}
}

// itemVariables holds the variables written as items of list, at a place
// of type item that is no list, to that type, as graphql-js's
// VariablesInAllowedPosition does there (its TypeInfo gives such items the
// place's own type; gqlparser's gives them none, and so lets `f(any: [$v])`
// pass with $v: Int where any is a custom scalar). Items of lists inside
// are such items too; members of objects inside have no type.
func (l *literals) itemVariables(list *ast.Value, item *ast.Type) {
	for _, child := range list.Children {
		v := child.Value
		switch {
		case v.Kind == ast.ListValue:
			l.itemVariables(v, item)
		case v.Kind != ast.Variable || v.VariableDefinition == nil:
		case v.VariableDefinition.Type.Elem == nil && v.VariableDefinition.Type.NamedType == item.NamedType:
		default:
			def := v.VariableDefinition
			l.report(func() *ast.Position { return v.Position }, func(quoter) string {
				return fmt.Sprintf(`Variable "$%s" of type "%s" used in position expecting type "%s".`, def.Variable, def.Type, item)
			})
		}
	}
}

func (l *literals) object(v *ast.Value, def *ast.Definition) {
	given := make(map[string]*ast.Value, len(v.Children))
	var keys []string
	for _, child := range v.Children {
		if _, dup := given[child.Name]; !dup {
			keys = append(keys, child.Name)
		}
		given[child.Name] = child.Value // the last of a repeated name, as keyMap keeps
	}
	for _, field := range def.Fields {
		if given[field.Name] == nil && field.Type.NonNull && field.DefaultValue == nil {
			l.report(l.place(v), func(q quoter) string {
				return fmt.Sprintf(`Field "%s.%s" of required type "%s" was not provided.`, def.Name, field.Name, field.Type)
			})
		}
	}
	if def.Directives.ForName("oneOf") != nil {
		if len(keys) != 1 {
			l.report(l.place(v), func(q quoter) string {
				return fmt.Sprintf(`OneOf Input Object "%s" must specify exactly one key.`, def.Name)
			})
		} else if member := given[keys[0]]; member == nil || member.Kind == ast.NullValue {
			l.report(l.place(v), func(q quoter) string { return fmt.Sprintf(`Field "%s.%s" must be non-null.`, def.Name, keys[0]) })
		}
	}
	for _, child := range v.Children {
		field := def.Fields.ForName(child.Name)
		if field == nil {
			l.report(func() *ast.Position { return child.Position }, func(q quoter) string {
				names := make([]string, len(def.Fields))
				for i, f := range def.Fields {
					names[i] = f.Name
				}
				return fmt.Sprintf(`Field "%s" is not defined by type "%s".%s`, child.Name, def.Name, didYouMean("", suggestionList(child.Name, names)))
			})
			continue
		}
		l.value(child.Value, field.Type)
	}
}

// leaf is graphql-js's isValidValueNode: v where the location's type is t,
// judged by the named type's parseLiteral; a list or an object reaches it
// where none fits, and is judged whole.
func (l *literals) leaf(v *ast.Value, t *ast.Type) {
	if t == nil {
		return
	}
	def := l.schema.Types[t.Name()]
	if def == nil {
		return
	}
	if def.Kind != ast.Scalar && def.Kind != ast.Enum {
		l.report(l.place(v), func(q quoter) string {
			return fmt.Sprintf(`Expected value of type "%s", found %s.`, t, q.printValue(v))
		})
		return
	}
	if def.Kind == ast.Enum {
		names := func() []string {
			names := make([]string, len(def.EnumValues))
			for i, e := range def.EnumValues {
				names[i] = e.Name
			}
			return names
		}
		switch {
		case v.Kind != ast.EnumValue:
			l.report(l.place(v), func(q quoter) string {
				shown := q.printValue(v)
				return fmt.Sprintf(`Enum "%s" cannot represent non-enum value: %s.%s`, def.Name, shown, didYouMean("the enum value", suggestionList(shown, names())))
			})
		case def.EnumValues.ForName(v.Raw) == nil:
			l.report(l.place(v), func(q quoter) string {
				shown := q.printValue(v)
				return fmt.Sprintf(`Value "%s" does not exist in "%s" enum.%s`, shown, def.Name, didYouMean("the enum value", suggestionList(shown, names())))
			})
		}
		return
	}
	switch def.Name {
	case "Int":
		if v.Kind != ast.IntValue {
			l.report(l.place(v), func(q quoter) string {
				return fmt.Sprintf("Int cannot represent non-integer value: %s", q.printValue(v))
			})
			return
		}
		// parseInt: the nearest double, past the largest ±Inf.
		if n, _ := strconv.ParseFloat(v.Raw, 64); n > math.MaxInt32 || n < math.MinInt32 {
			l.report(l.place(v), func(q quoter) string {
				return fmt.Sprintf("Int cannot represent non 32-bit signed integer value: %s", q.printValue(v))
			})
		}
	case "Float":
		if v.Kind != ast.FloatValue && v.Kind != ast.IntValue {
			l.report(l.place(v), func(q quoter) string {
				return fmt.Sprintf("Float cannot represent non numeric value: %s", q.printValue(v))
			})
		}
	case "String":
		if v.Kind != ast.StringValue && v.Kind != ast.BlockValue {
			l.report(l.place(v), func(q quoter) string {
				return fmt.Sprintf("String cannot represent a non string value: %s", q.printValue(v))
			})
		}
	case "Boolean":
		if v.Kind != ast.BooleanValue {
			l.report(l.place(v), func(q quoter) string {
				return fmt.Sprintf("Boolean cannot represent a non boolean value: %s", q.printValue(v))
			})
		}
	case "ID":
		if v.Kind != ast.StringValue && v.Kind != ast.BlockValue && v.Kind != ast.IntValue {
			l.report(l.place(v), func(q quoter) string {
				return fmt.Sprintf("ID cannot represent a non-string and non-integer value: %s", q.printValue(v))
			})
		}
	}
	// A custom scalar takes any literal (graphql-js's default parseLiteral).
}
