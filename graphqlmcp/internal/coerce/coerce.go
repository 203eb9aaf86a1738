// Package coerce holds operations to graphql-js 16's rules for values, which
// gqlparser reads more loosely: the variables of a call are judged by the
// spec's CoerceVariableValues as graphql-js's getVariableValues applies it
// (Variables), and literals in the operation are checked as graphql-js's
// ValuesOfCorrectTypeRule checks them (LiteralRule), as its lexer checks
// string escapes (EscapeRule). Messages are graphql-js's, word for word, but
// for quoted values, which are bounded.
//
// Numbers are read as JavaScript reads JSON: a double, so 5.0 and 1e3 are
// the integers 5 and 1000, and 1e400 is Infinity.
package coerce

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// Error is one problem with the variables, as graphql-js words it.
type Error struct {
	// Variable is the variable's name, without $.
	Variable string
	// Path is where inside the variable's value: input field names
	// (string) and list indexes (int); empty for the value as a whole.
	Path    []any
	Message string
}

func (e Error) Error() string { return e.Message }

// Result is what Variables found.
type Result struct {
	// Errors are the first problems, at most the limit asked for, in the
	// order graphql-js reports them; Total counts all.
	Errors []Error
	Total  int
}

// maxPathBytes bounds a path as messages print it; a longer one (a value
// nested thousands deep in a recursive input type) keeps its ends.
const maxPathBytes = 120

// Variables judges inputs, the JSON values of a request's variables
// (numbers as json.Number or float64), against the variable definitions
// defs of an operation over schema, as graphql-js's getVariableValues
// coerces them, and reports every problem; the coerced values are not
// built (the endpoint coerces the variables sent, as given). It keeps the messages of the first limit errors and counts the rest. Its
// work is linear in the size of inputs. redact, when not nil, takes secrets
// out of every string a message quotes, before the quote is cut.
func Variables(schema *ast.Schema, defs ast.VariableDefinitionList, inputs map[string]any, limit int, redact func(string) string) Result {
	c := &coercer{schema: schema, limit: limit, quoters: quoters(redact), fields: map[*ast.Definition]map[string]bool{}}
	for _, def := range defs {
		name, t := def.Variable, def.Type
		c.variable = name
		if !c.isInputType(t) {
			c.fail(func() string {
				return fmt.Sprintf(`Variable "$%s" expected value of type "%s" which cannot be used as an input type.`, name, t)
			})
			continue
		}
		value, given := inputs[name]
		if !given {
			// A default, which the rules have judged, stands in.
			if def.DefaultValue == nil && t.NonNull {
				c.fail(func() string {
					return fmt.Sprintf(`Variable "$%s" of required type "%s" was not provided.`, name, t)
				})
			}
			continue
		}
		if isNull(value) && t.NonNull {
			c.fail(func() string {
				return fmt.Sprintf(`Variable "$%s" of non-null type "%s" must not be null.`, name, t)
			})
			continue
		}
		c.coerce(value, t)
	}
	return c.res
}

type coercer struct {
	schema   *ast.Schema
	limit    int
	quoters  []quoter
	variable string
	// path is where the value being coerced sits in the variable.
	path []any
	// fields are the input field names of each input object met, by
	// definition, so that a key is looked up once, not against every field.
	fields map[*ast.Definition]map[string]bool
	res    Result
}

// fail records a problem with the variable as a whole; rule builds its
// message, only for the errors kept.
func (c *coercer) fail(rule func() string) {
	c.res.Total++
	if len(c.res.Errors) < c.limit {
		c.res.Errors = append(c.res.Errors, Error{Variable: c.variable, Message: rule()})
	}
}

// invalid records that value, at the current path (and then key, when
// given), breaks the rule that rule describes, as `Variable "$x" got
// invalid value 5 at "x.a"; <rule>`. The path is copied and the message
// built only for the errors kept, so that a huge value's many errors cost
// no more than its walk.
//
// The message quotes value, and the rule may quote it again: each quote
// shrinks until the message fits maxMessageBytes, so that a big value
// never pushes the place or the rule out of it.
func (c *coercer) invalid(value any, rule func(q quoter) string, key ...any) {
	c.res.Total++
	if len(c.res.Errors) >= c.limit {
		return
	}
	path := append(append(make([]any, 0, len(c.path)+len(key)), c.path...), key...)
	var msg string
	for _, q := range c.quoters {
		msg = fmt.Sprintf(`Variable "$%s" got invalid value %s`, c.variable, q.inspect(value))
		if len(path) > 0 {
			msg += fmt.Sprintf(` at "%s%s"`, c.variable, printPath(path))
		}
		msg += "; " + rule(q)
		if len(msg) <= maxMessageBytes {
			break
		}
	}
	c.res.Errors = append(c.res.Errors, Error{Variable: c.variable, Path: path, Message: msg})
}

// coerce is graphql-js's coerceInputValue: it reports each problem of
// value as type t. (graphqlmcp sends the variables as given, which the
// endpoint coerces itself, so the coerced value is not built.)
func (c *coercer) coerce(value any, t *ast.Type) {
	if isNull(value) {
		if t.NonNull {
			c.invalid(value, func(quoter) string {
				return fmt.Sprintf(`Expected non-nullable type "%s" not to be null.`, t)
			})
		}
		return
	}
	// Below, t's being non-null no longer matters.
	if t.Elem != nil {
		items, isList := value.([]any)
		if !isList {
			// A list accepts one item alone as a list of one.
			c.coerce(value, t.Elem)
			return
		}
		for i, item := range items {
			c.path = append(c.path, i)
			c.coerce(item, t.Elem)
			c.path = c.path[:len(c.path)-1]
		}
		return
	}
	def := c.schema.Types[t.NamedType]
	switch {
	case def == nil:
		// Not in the schema: validation has refused the operation before.
	case def.Kind == ast.InputObject:
		c.inputObject(value, def)
	case def.Kind == ast.Enum:
		c.enum(value, def)
	default:
		c.scalar(value, def)
	}
}

func (c *coercer) inputObject(value any, def *ast.Definition) {
	obj, isObject := value.(map[string]any)
	if !isObject {
		c.invalid(value, func(quoter) string {
			return fmt.Sprintf(`Expected type "%s" to be an object.`, def.Name)
		})
		return
	}
	// keys are the coerced object's keys in graphql-js's order (the
	// fields' own), which @oneOf counts, failed fields and defaults
	// included; firstNull is whether the first is coerced to null (a null
	// given for a nullable field, or a default of null), which @oneOf
	// refuses.
	var keys []string
	firstNull := false
	for _, field := range def.Fields {
		fieldValue, given := obj[field.Name]
		switch {
		case given:
			c.path = append(c.path, field.Name)
			c.coerce(fieldValue, field.Type)
			c.path = c.path[:len(c.path)-1]
		case field.DefaultValue != nil:
			fieldValue = nil
			if field.DefaultValue.Kind != ast.NullValue {
				fieldValue = field.DefaultValue
			}
		case field.Type.NonNull:
			c.invalid(obj, func(quoter) string {
				return fmt.Sprintf(`Field "%s" of required type "%s" was not provided.`, field.Name, field.Type)
			})
			continue
		default:
			continue
		}
		if len(keys) == 0 {
			firstNull = isNull(fieldValue) && !(given && field.Type.NonNull)
		}
		keys = append(keys, field.Name)
	}
	// The unknown keys are each an error; only those whose message is kept
	// are found in order (one pass), the others counted.
	known := c.fieldNames(def)
	unknown := 0
	for key := range obj {
		if !known[key] {
			unknown++
		}
	}
	shown := firstKeysBut(obj, min(unknown, c.limit-len(c.res.Errors)), known)
	c.res.Total += unknown - len(shown)
	for _, key := range shown {
		c.invalid(obj, func(q quoter) string {
			names := make([]string, len(def.Fields))
			for i, f := range def.Fields {
				names[i] = f.Name
			}
			return fmt.Sprintf(`Field "%s" is not defined by type "%s".`, q.bounded(key), def.Name) + didYouMean("", suggestionList(key, names))
		})
	}
	if def.Directives.ForName("oneOf") != nil {
		if len(keys) != 1 {
			c.invalid(obj, func(quoter) string {
				return fmt.Sprintf(`Exactly one key must be specified for OneOf type "%s".`, def.Name)
			})
		}
		// graphql-js's check of the first key: only a value coerced to
		// null, not one that failed.
		if firstNull {
			c.invalid(nil, func(quoter) string {
				return fmt.Sprintf(`Field "%s" must be non-null.`, keys[0])
			}, keys[0])
		}
	}
}

func (c *coercer) fieldNames(def *ast.Definition) map[string]bool {
	names, ok := c.fields[def]
	if !ok {
		names = make(map[string]bool, len(def.Fields))
		for _, f := range def.Fields {
			names[f.Name] = true
		}
		c.fields[def] = names
	}
	return names
}

// enum is GraphQLEnumType.parseValue: a string naming a value exactly.
func (c *coercer) enum(value any, def *ast.Definition) {
	names := func() []string {
		names := make([]string, len(def.EnumValues))
		for i, v := range def.EnumValues {
			names[i] = v.Name
		}
		return names
	}
	s, isString := value.(string)
	if !isString {
		c.invalid(value, func(q quoter) string {
			shown := q.inspect(value)
			return fmt.Sprintf(`Enum "%s" cannot represent non-string value: %s.`, def.Name, shown) + didYouMean("the enum value", suggestionList(shown, names()))
		})
		return
	}
	if def.EnumValues.ForName(s) == nil {
		c.invalid(value, func(q quoter) string {
			return fmt.Sprintf(`Value "%s" does not exist in "%s" enum.`, q.bounded(s), def.Name) + didYouMean("the enum value", suggestionList(s, names()))
		})
	}
}

// scalar is the parseValue of the built-in scalars (graphql-js's
// type/scalars.js); a custom scalar takes any value, as graphql-js's
// default parseValue does.
func (c *coercer) scalar(value any, def *ast.Definition) {
	f, isNumber := jsNumber(value)
	// rule is the rule's words, which the value quoted follows.
	var rule string
	switch def.Name {
	case "Int":
		switch {
		case !isNumber || !isInteger(f):
			rule = "Int cannot represent non-integer value: "
		case f > math.MaxInt32 || f < math.MinInt32:
			c.invalid(value, func(quoter) string { return "Int cannot represent non 32-bit signed integer value: " + formatNumber(f) })
			return
		default:
			return
		}
	case "Float":
		if isNumber && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return
		}
		rule = "Float cannot represent non numeric value: "
	case "String":
		if _, ok := value.(string); ok {
			return
		}
		rule = "String cannot represent a non string value: "
	case "Boolean":
		if _, ok := value.(bool); ok {
			return
		}
		rule = "Boolean cannot represent a non boolean value: "
	case "ID":
		if _, ok := value.(string); ok || isNumber && isInteger(f) {
			return
		}
		rule = "ID cannot represent value: "
	default:
		return
	}
	c.invalid(value, func(q quoter) string { return rule + q.inspect(value) })
}

// isInteger is JavaScript's Number.isInteger.
func isInteger(f float64) bool {
	return !math.IsInf(f, 0) && !math.IsNaN(f) && f == math.Trunc(f)
}

// isInputType reports whether t names a scalar, an enum or an input object
// of the schema.
func (c *coercer) isInputType(t *ast.Type) bool {
	return isInputType(c.schema, t)
}

func isInputType(schema *ast.Schema, t *ast.Type) bool {
	if t == nil {
		return false
	}
	def := schema.Types[t.Name()]
	return def != nil && (def.Kind == ast.Scalar || def.Kind == ast.Enum || def.Kind == ast.InputObject)
}

func nullable(t *ast.Type) *ast.Type {
	if t == nil || !t.NonNull {
		return t
	}
	u := *t
	u.NonNull = false
	return &u
}

func isNull(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case map[string]any:
		return v == nil
	case []any:
		return v == nil
	}
	return false
}

// printPath writes a path as graphql-js's printPathArray does (.field,
// [index]), keeping the ends of a long one.
func printPath(path []any) string {
	var b strings.Builder
	for _, key := range path {
		switch key := key.(type) {
		case int:
			b.WriteString("[" + strconv.Itoa(key) + "]")
		default:
			fmt.Fprintf(&b, ".%v", key)
		}
	}
	s := b.String()
	if len(s) <= maxPathBytes {
		return s
	}
	head, tail := s[:maxPathBytes/2], s[len(s)-maxPathBytes/2:]
	return strings.ToValidUTF8(head, "") + "…" + strings.ToValidUTF8(tail, "")
}
