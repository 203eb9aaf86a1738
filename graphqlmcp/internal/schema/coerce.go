package schema

import (
	"math"
	"strconv"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// Default values are kept as graphql-js keeps them: coerced to their type
// (valueFromAST) and printed back (astFromValue). An SDL file states a
// default as its author wrote it, `range: Range = {from: 1}`, while an
// endpoint's introspection states it coerced, `{from: 1, step: 3}` with the
// defaults of the fields left out filled in, in the type's field order.
// Coercing both routes alike makes a schema print the same SDL whichever way
// it came, and lets the default view keep the deprecated members that the
// coerced default names.

// outcome is what coercing a default value gives.
type outcome int

const (
	// coerced: the value is graphql-js's.
	coerced outcome = iota
	// keptAsWritten: graphql-js would fail printing the value (an object
	// or a list given to a custom scalar, a float past float64): it is kept
	// as written.
	keptAsWritten
	// invalid: the value does not fit its type, and graphql-js drops it,
	// as if no default were given.
	invalid
)

// coerceDefaults rewrites every default value of r as graphql-js holds it,
// and drops those that graphql-js drops.
func coerceDefaults(r *Result, idx *index) {
	c := &coercer{idx: idx, fieldDefaults: map[member]coercedValue{}, busy: map[member]bool{}, growth: maxDefaultsGrowth, steps: maxCoercionSteps}
	// A value as written takes a step per item at most, each a byte or
	// more of the text: the schema's own defaults are always coerced.
	eachDefault(r, func(v *inputValue, _ *member) {
		if v.DefaultValue != nil {
			c.steps += len(*v.DefaultValue)
		}
	})
	eachDefault(r, c.rewrite)
}

// eachDefault calls f with every argument and input field of r, and the
// input field's name (nil for an argument).
func eachDefault(r *Result, f func(v *inputValue, field *member)) {
	for i := range r.Schema.Types {
		t := &r.Schema.Types[i]
		for j := range t.Fields {
			for k := range t.Fields[j].Args {
				f(&t.Fields[j].Args[k], nil)
			}
		}
		for j := range t.InputFields {
			f(&t.InputFields[j], &member{owner: t.Name, name: t.InputFields[j].Name})
		}
	}
	for i := range r.Schema.Directives {
		for k := range r.Schema.Directives[i].Args {
			f(&r.Schema.Directives[i].Args[k], nil)
		}
	}
}

type coercer struct {
	idx *index
	// fieldDefaults memoises the coerced defaults of input fields, which
	// the defaults of other values fill in.
	fieldDefaults map[member]coercedValue
	// busy holds the input fields whose default is being coerced: a
	// default that needs itself (input A { b: B = {} } input B { a: A = {} })
	// is kept as written rather than followed for ever.
	busy map[member]bool
	// growth is what the coerced defaults may still add to the printed
	// schema, beyond the defaults as written.
	growth int
	// steps is what coercion may still do: values coerced and input
	// fields filled in or passed over.
	steps int
}

// maxDefaultsGrowth bounds what coercion adds to a schema's defaults, all
// told: filling in the defaults of fields left out shares them, so a
// hostile schema's defaults (each field of A defaulting to {} of B, each of
// B's to {} of C, ...) would print twice as long at each level. No real
// schema comes near it; past it, defaults are kept as written.
const maxDefaultsGrowth = 1 << 20

// maxCoercionSteps bounds the work of coercing a schema's defaults beyond
// the defaults as written, all told: each {} of a list default, or each
// argument defaulting to {}, fills in every field of its input type, so a
// hostile schema's work (and the values it builds) would grow as the
// product of the two. GitHub's schema takes about 1,000 steps. Past it,
// defaults are kept as written.
const maxCoercionSteps = 1 << 18

type coercedValue struct {
	value *ast.Value
	outcome
	// size is about how many bytes value prints as, up to maxPrinted.
	size int
	// height is how deeply lists and objects nest in value: a scalar's is
	// 0, [1]'s is 1.
	height int
	// cut reports a value cut short by the bound on the chain of field
	// defaults being coerced (maxValueDepth), which depends on where the
	// coercion started: it is not memoised.
	cut bool
}

// maxPrinted caps the sizes added up, so that they do not overflow.
const maxPrinted = 1 << 40

// sized sets the size of a coerced leaf: a string's as WriteQuoted prints
// it, escapes and all.
func sized(c coercedValue) coercedValue {
	if c.outcome == coerced {
		c.size = len(c.value.Raw)
		if c.value.Kind == ast.StringValue {
			c.size = quotedLen(c.value.Raw)
		}
	}
	return c
}

// rewrite coerces v's default value in place; field names v when it is an
// input field, whose default other values may fill in.
func (c *coercer) rewrite(v *inputValue, field *member) {
	if v.parsedDefault == nil {
		return
	}
	var got coercedValue
	if field != nil {
		got = c.fieldDefault(*field, v)
	} else {
		got = c.coerce(v.parsedDefault, &v.Type, 0)
	}
	if grows := got.size - len(*v.DefaultValue); got.outcome == coerced && grows > 0 {
		if grows > c.growth {
			return // kept as written
		}
		c.growth -= grows
	}
	switch got.outcome {
	case coerced:
		v.parsedDefault = got.value
	case invalid:
		v.DefaultValue, v.parsedDefault = nil, nil
	}
}

// fieldDefault coerces the default of input field v (named m), once.
func (c *coercer) fieldDefault(m member, v *inputValue) coercedValue {
	if got, ok := c.fieldDefaults[m]; ok {
		return got
	}
	if v.parsedDefault == nil {
		// No default (or one rewritten as dropped already).
		return coercedValue{outcome: invalid}
	}
	if c.busy[m] {
		return coercedValue{outcome: keptAsWritten}
	}
	if len(c.busy) >= maxValueDepth {
		// Each field of the chain nests its default a level deeper in
		// the value that started it, which is too deep to keep; the
		// field's own default may not be.
		return coercedValue{outcome: keptAsWritten, cut: true}
	}
	c.busy[m] = true
	got := c.coerce(v.parsedDefault, &v.Type, 0)
	delete(c.busy, m)
	if !got.cut {
		c.fieldDefaults[m] = got
	}
	return got
}

// coerce is graphql-js's valueFromAST of v as type t, then astFromValue of
// the result. A value nested deeper than maxValueDepth, or past the bound
// on steps, is kept as written.
func (c *coercer) coerce(v *ast.Value, t *typeRefT, depth int) coercedValue {
	if c.steps--; v == nil || t == nil || depth > maxValueDepth || c.steps < 0 {
		return coercedValue{outcome: keptAsWritten}
	}
	if v.Kind == ast.NullValue {
		if t.Kind == "NON_NULL" {
			return coercedValue{outcome: invalid}
		}
		return coercedValue{value: &ast.Value{Kind: ast.NullValue, Raw: "null"}, size: 4}
	}
	switch t.Kind {
	case "NON_NULL":
		return c.coerce(v, t.OfType, depth)
	case "LIST":
		if v.Kind != ast.ListValue {
			// One item stands for a list of it.
			item := c.coerce(v, t.OfType, depth+1)
			if item.outcome != coerced {
				return item
			}
			return nested(coercedValue{value: &ast.Value{Kind: ast.ListValue, Children: ast.ChildValueList{{Value: item.value}}}, size: item.size + 2, height: item.height + 1})
		}
		list := coercedValue{value: &ast.Value{Kind: ast.ListValue}, size: 2, height: 1}
		for _, child := range v.Children {
			item := c.coerce(child.Value, t.OfType, depth+1)
			list.outcome, list.cut = max(list.outcome, item.outcome), list.cut || item.cut
			list.value.Children = append(list.value.Children, &ast.ChildValue{Value: item.value})
			list.size = min(maxPrinted, list.size+item.size+2)
			list.height = max(list.height, item.height+1)
		}
		return nested(list)
	}
	def := c.idx.types[t.leafName()]
	if def == nil {
		return coercedValue{outcome: keptAsWritten}
	}
	switch def.Kind {
	case "ENUM":
		if v.Kind == ast.EnumValue && c.idx.enumValues[member{owner: def.Name, name: v.Raw}] != nil {
			return sized(coercedValue{value: &ast.Value{Kind: ast.EnumValue, Raw: v.Raw}})
		}
		return coercedValue{outcome: invalid}
	case "INPUT_OBJECT":
		return c.inputObject(v, def, depth)
	case "SCALAR":
		return sized(scalar(v, def.Name))
	}
	return coercedValue{outcome: keptAsWritten}
}

// nested is a coerced list or object as its items make it: not coerced
// when one of them is not, kept as written when it nests too deep for the
// walks that follow a value (maxValueDepth) and for gqlparser, which
// refuses values nested deeper than 1,000.
func nested(c coercedValue) coercedValue {
	if c.outcome == coerced && c.height > maxValueDepth {
		c.outcome = keptAsWritten
	}
	if c.outcome != coerced {
		return coercedValue{outcome: c.outcome, cut: c.cut}
	}
	return c
}

// inputObject coerces an object value: its fields in the type's order,
// those left out given their defaults, those the type lacks dropped.
func (c *coercer) inputObject(v *ast.Value, def *fullType, depth int) coercedValue {
	if v.Kind != ast.ObjectValue {
		return coercedValue{outcome: invalid}
	}
	given := make(map[string]*ast.Value, len(v.Children))
	for _, child := range v.Children {
		given[child.Name] = child.Value // the last of a name, as graphql-js's keyMap
	}
	object := coercedValue{value: &ast.Value{Kind: ast.ObjectValue}, size: 2, height: 1}
	for i := range def.InputFields {
		if c.steps--; c.steps < 0 {
			return coercedValue{outcome: keptAsWritten, cut: object.cut}
		}
		f := &def.InputFields[i]
		var got coercedValue
		if value, ok := given[f.Name]; ok {
			got = c.coerce(value, &f.Type, depth+1)
		} else {
			got = c.fieldDefault(member{owner: def.Name, name: f.Name}, f)
			if got.outcome == invalid {
				if f.Type.Kind == "NON_NULL" {
					return got
				}
				continue // no default: left out
			}
		}
		object.outcome, object.cut = max(object.outcome, got.outcome), object.cut || got.cut
		if object.outcome != coerced {
			// Nothing more is built: only whether a later field is
			// invalid (which drops the whole) is still to learn.
			continue
		}
		object.value.Children = append(object.value.Children, &ast.ChildValue{Name: f.Name, Value: got.value})
		object.size = min(maxPrinted, object.size+len(f.Name)+4+got.size)
		object.height = max(object.height, got.height+1)
	}
	if object = nested(object); object.outcome != coerced {
		return object
	}
	if children := object.value.Children; def.IsOneOf && (len(children) != 1 || children[0].Value.Kind == ast.NullValue) {
		return coercedValue{outcome: invalid}
	}
	return object
}

// scalar coerces a value of a scalar type as graphql-js's built-in scalars
// parse and serialize it; a custom scalar's value as graphql-js reads a
// value of no type (valueFromASTUntyped) and prints it back.
func scalar(v *ast.Value, name string) coercedValue {
	isString := v.Kind == ast.StringValue || v.Kind == ast.BlockValue
	switch name {
	case "Int":
		n, err := strconv.ParseInt(v.Raw, 10, 32)
		if v.Kind != ast.IntValue || err != nil {
			return coercedValue{outcome: invalid}
		}
		return coercedValue{value: &ast.Value{Kind: ast.IntValue, Raw: strconv.FormatInt(n, 10)}}
	case "Float":
		if v.Kind != ast.IntValue && v.Kind != ast.FloatValue {
			return coercedValue{outcome: invalid}
		}
		return number(v.Raw)
	case "String":
		if !isString {
			return coercedValue{outcome: invalid}
		}
		return coercedValue{value: &ast.Value{Kind: ast.StringValue, Raw: v.Raw}}
	case "Boolean":
		if v.Kind != ast.BooleanValue {
			return coercedValue{outcome: invalid}
		}
		return coercedValue{value: &ast.Value{Kind: ast.BooleanValue, Raw: v.Raw}}
	case "ID":
		if !isString && v.Kind != ast.IntValue {
			return coercedValue{outcome: invalid}
		}
		return coercedValue{value: idValue(v.Raw)}
	}
	switch {
	case v.Kind == ast.IntValue || v.Kind == ast.FloatValue:
		return number(v.Raw)
	case isString || v.Kind == ast.EnumValue:
		return coercedValue{value: &ast.Value{Kind: ast.StringValue, Raw: v.Raw}}
	case v.Kind == ast.BooleanValue:
		return coercedValue{value: &ast.Value{Kind: ast.BooleanValue, Raw: v.Raw}}
	}
	return coercedValue{outcome: keptAsWritten}
}

// idValue is an ID as graphql-js prints it: an integer's digits bare, any
// other text quoted.
func idValue(s string) *ast.Value {
	if isIntegerText(s) {
		return &ast.Value{Kind: ast.IntValue, Raw: s}
	}
	return &ast.Value{Kind: ast.StringValue, Raw: s}
}

// number is a numeric literal read as a JavaScript number and printed
// back: 2.50 is 2.5, 1.0 is 1, 1e25 is 1e+25.
func number(raw string) coercedValue {
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return coercedValue{outcome: keptAsWritten}
	}
	text := jsNumber(f)
	if isIntegerText(text) {
		return coercedValue{value: &ast.Value{Kind: ast.IntValue, Raw: text}}
	}
	return coercedValue{value: &ast.Value{Kind: ast.FloatValue, Raw: text}}
}

// jsNumber is JavaScript's String(f): plain decimals from 1e-6 up to 1e21,
// else exponent notation with a signed exponent and no leading zeros.
func jsNumber(f float64) string {
	if f == 0 {
		return "0" // -0 too
	}
	if abs := math.Abs(f); abs >= 1e-6 && abs < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	mantissa, exponent, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
	return mantissa + "e" + exponent[:1] + strings.TrimLeft(exponent[1:], "0")
}

// isIntegerText is graphql-js's integerStringRegExp, /^-?(?:0|[1-9][0-9]*)$/.
func isIntegerText(s string) bool {
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || (digits[0] == '0' && len(digits) > 1) {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	return true
}
