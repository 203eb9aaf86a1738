package tools

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// The generator of TestDifferential: valid operations over a schema, with
// their variables, and one-rule mutants of each. It writes an operation's
// text while noting the places a mutant may change (slots), so that a
// mutant is the valid text with one edit, or the valid variables with one
// value changed. Everything is drawn from a seeded source: the corpus is
// the same on every run.

// diffCase is one operation of the corpus.
type diffCase struct {
	Schema string `json:"schema"`
	Class  string `json:"-"`
	// Variable is the variable a variable mutant changed.
	Variable      string         `json:"-"`
	Query         string         `json:"query"`
	OperationName string         `json:"operationName,omitempty"`
	Variables     map[string]any `json:"variables,omitempty"`
}

type genSlotKind int

const (
	slotValue               genSlotKind = iota // a literal value of typ
	slotObject                                 // an input object literal of def (also a slotValue)
	slotArgument                               // one argument, "name: value", of a field or directive
	slotArguments                              // where an argument may be added (open: inside "(")
	slotSelections                             // just after the "{" of a selection set of def
	slotLeaf                                   // just after a leaf field (and its arguments)
	slotSubselection                           // a composite field's " { ... }"
	slotDirectives                             // where a directive may be added to a field
	slotVariableDefs                           // where a variable definition may be added (open: inside "(")
	slotVariableDef                            // one variable definition, "$name: Type = default"
	slotVariableType                           // a variable definition's type
	slotFragmentBody                           // just after the "{" of fragment name's body
	slotOperationDirectives                    // where a directive may be added to the operation
)

// genSlot is a place in an operation's text that a mutant may change.
type genSlot struct {
	kind       genSlotKind
	start, end int
	typ        *ast.Type
	def        *ast.Definition
	arg        *ast.ArgumentDefinition
	name       string // a variable's or fragment's name
	// open: an argument or variable definition added here goes inside
	// the "( ... )" already written
	open  bool
	oneOf bool // a variable at a @oneOf member (its type is T!)
	root  bool // the operation's own selection set
	// placeDefault: the variable is used where a default is
	placeDefault bool
	first        string // an input object's first field, "name: value"
	group        [2]int // the enclosing "( ... )" of an argument or variable definition
	groupCount   int    // how many it holds
}

// genText is an operation being written, with its slots.
type genText struct {
	b     strings.Builder
	slots []genSlot
}

func (t *genText) w(s ...string) {
	for _, s := range s {
		t.b.WriteString(s)
	}
}

func (t *genText) len() int { return t.b.Len() }

func (t *genText) point(s genSlot) {
	s.start, s.end = t.len(), t.len()
	t.slots = append(t.slots, s)
}

// span runs write and notes s as the text it wrote.
func (t *genText) span(s genSlot, write func()) {
	s.start = t.len()
	write()
	s.end = t.len()
	t.slots = append(t.slots, s)
}

// add appends o, moving its slots along.
func (t *genText) add(o *genText) {
	at := t.len()
	t.w(o.b.String())
	for _, s := range o.slots {
		s.start += at
		s.end += at
		if s.group != [2]int{} {
			s.group[0] += at
			s.group[1] += at
		}
		t.slots = append(t.slots, s)
	}
}

// genVar is a variable of the operation being generated.
type genVar struct {
	name  string
	typ   *ast.Type
	oneOf bool
	// placeDefault: where it is used has a default (an argument's or
	// input field's)
	placeDefault bool
	// literal default, "" when none
	deflt string
	given bool
}

type diffGenerator struct {
	s    *ast.Schema
	r    *rand.Rand
	name string // the schema's name in the corpus

	// per operation
	vars      []genVar
	values    map[string]any
	fragments []*genText
	alias     int
	// placeDefault says that the value written next is of an argument or
	// input field with a default; value and item read and clear it.
	placeDefault bool
}

// genMaxSelectionDepth is how deep generated selections nest; deeper
// composite fields select __typename.
const genMaxSelectionDepth = 3

func (g *diffGenerator) chance(p float64) bool { return g.r.Float64() < p }

// valid generates the index-th valid operation: a query (or, every
// fourth, a mutation where the schema has one), its text and variables,
// and the slots of its text.
func (g *diffGenerator) valid(index int) (diffCase, *genText) {
	g.vars, g.values, g.fragments, g.alias = nil, map[string]any{}, nil, 0
	root, keyword := g.s.Query, "query"
	if g.s.Mutation != nil && index%4 == 3 {
		root, keyword = g.s.Mutation, "mutation"
	}
	opName := fmt.Sprintf("Op%d", index)
	body := &genText{}
	g.rootSelection(body, root)
	doc := &genText{}
	doc.w(keyword, " ", opName)
	g.variableDefinitions(doc)
	doc.point(genSlot{kind: slotOperationDirectives})
	doc.w(" ")
	doc.add(body)
	for _, f := range g.fragments {
		doc.w("\n")
		doc.add(f)
	}
	c := diffCase{Schema: g.name, Class: "valid", Query: doc.b.String(), OperationName: opName, Variables: g.values}
	if len(c.Variables) == 0 {
		c.Variables = nil
	}
	return c, doc
}

func (g *diffGenerator) rootSelection(t *genText, root *ast.Definition) {
	t.w("{")
	t.point(genSlot{kind: slotSelections, def: root, root: true})
	fields := g.fields(root)
	for i := 0; i < 1+g.r.IntN(2) && len(fields) > 0; i++ {
		t.w(" ")
		g.field(t, root, g.pickField(fields), 0, true)
	}
	t.w(" }")
}

// fields are def's fields a generated operation may select: not the
// introspection ones.
func (g *diffGenerator) fields(def *ast.Definition) []*ast.FieldDefinition {
	var out []*ast.FieldDefinition
	for _, f := range def.Fields {
		if !strings.HasPrefix(f.Name, "__") {
			out = append(out, f)
		}
	}
	return out
}

// pickField prefers fields with arguments (input objects most), and
// fields of types whose fields have arguments: that is where values go.
func (g *diffGenerator) pickField(fields []*ast.FieldDefinition) *ast.FieldDefinition {
	weights := make([]int, len(fields))
	total := 0
	for i, f := range fields {
		weights[i] = 1 + 3*len(f.Arguments)
		for _, a := range f.Arguments {
			if def := g.s.Types[a.Type.Name()]; def != nil && def.Kind == ast.InputObject {
				weights[i] += 6
			}
		}
		if def := g.s.Types[f.Type.Name()]; def != nil {
			for _, sub := range def.Fields {
				if len(sub.Arguments) > 0 {
					weights[i]++
				}
			}
		}
		total += weights[i]
	}
	n := g.r.IntN(total)
	for i, w := range weights {
		if n < w {
			return fields[i]
		}
		n -= w
	}
	return fields[len(fields)-1]
}

func (g *diffGenerator) variableDefinitions(t *genText) {
	if len(g.vars) == 0 {
		t.point(genSlot{kind: slotVariableDefs})
		return
	}
	groupStart := t.len()
	t.w("(")
	var defs []int
	for i, v := range g.vars {
		if i > 0 {
			t.w(", ")
		}
		defs = append(defs, len(t.slots))
		t.span(genSlot{kind: slotVariableDef, name: v.name, typ: v.typ, oneOf: v.oneOf}, func() {
			t.w("$", v.name, ": ")
			t.span(genSlot{kind: slotVariableType, name: v.name, typ: v.typ, oneOf: v.oneOf, placeDefault: v.placeDefault}, func() { t.w(v.typ.String()) })
			if v.deflt != "" {
				t.w(" = ")
				t.add(g.defaultText(v))
			}
		})
	}
	t.point(genSlot{kind: slotVariableDefs, open: true})
	t.w(")")
	for _, i := range defs {
		t.slots[i].group = [2]int{groupStart, t.len()}
		t.slots[i].groupCount = len(g.vars)
	}
}

// defaultText is a variable's default as a text with its value slots.
func (g *diffGenerator) defaultText(v genVar) *genText {
	t := &genText{}
	t.span(genSlot{kind: slotValue, typ: v.typ}, func() { t.w(v.deflt) })
	return t
}

// field writes one field selection of parent: alias, arguments,
// directives and selection set.
func (g *diffGenerator) field(t *genText, parent *ast.Definition, f *ast.FieldDefinition, depth int, aliasAll bool) {
	var args []*ast.ArgumentDefinition
	for _, a := range f.Arguments {
		if genRequired(a.Type, a.DefaultValue) || g.chance(0.35) {
			args = append(args, a)
		}
	}
	// A field with arguments, or any field inside a fragment, gets an
	// alias of its own: two selections of one response name never
	// conflict.
	if aliasAll || len(args) > 0 || g.chance(0.15) {
		g.alias++
		t.w(fmt.Sprintf("a%d: ", g.alias))
	}
	t.w(f.Name)
	if len(args) == 0 {
		t.point(genSlot{kind: slotArguments})
	} else {
		groupStart := t.len()
		t.w("(")
		t.point(genSlot{kind: slotArguments, open: true})
		first := len(t.slots)
		for i, a := range args {
			if i > 0 {
				t.w(", ")
			}
			t.span(genSlot{kind: slotArgument, arg: a, typ: a.Type}, func() {
				t.w(a.Name, ": ")
				g.placeDefault = a.DefaultValue != nil
				g.value(t, a.Type, 0, true)
			})
		}
		t.w(")")
		for i := first; i < len(t.slots); i++ {
			if t.slots[i].kind == slotArgument && t.slots[i].group == [2]int{} {
				t.slots[i].group, t.slots[i].groupCount = [2]int{groupStart, t.len()}, len(args)
			}
		}
	}
	t.point(genSlot{kind: slotDirectives})
	if g.chance(0.12) {
		if g.chance(0.5) {
			t.w(" @skip(if: false)")
		} else {
			t.w(" @include(if: $", g.newVar(ast.NonNullNamedType("Boolean", nil), false), ")")
		}
	}
	def := g.s.Types[f.Type.Name()]
	if def == nil || def.IsLeafType() {
		t.point(genSlot{kind: slotLeaf})
		return
	}
	t.span(genSlot{kind: slotSubselection}, func() {
		t.w(" ")
		if depth+1 >= genMaxSelectionDepth {
			t.w("{ __typename }")
			return
		}
		g.selectionSet(t, def, depth+1, aliasAll)
	})
}

func (g *diffGenerator) selectionSet(t *genText, def *ast.Definition, depth int, aliasAll bool) {
	t.w("{")
	t.point(genSlot{kind: slotSelections, def: def})
	fields := g.fields(def)
	if def.Kind == ast.Union || len(fields) == 0 || g.chance(0.2) {
		t.w(" __typename")
	}
	for i := 0; i < 1+g.r.IntN(2) && len(fields) > 0; i++ {
		t.w(" ")
		g.field(t, def, g.pickField(fields), depth, aliasAll)
	}
	possible := g.possible(def)
	if def.Kind != ast.Object && len(possible) > 0 && g.chance(0.6) {
		on := possible[g.r.IntN(len(possible))]
		t.w(" ... on ", on.Name, " ")
		g.selectionSet(t, on, depth+1, true)
	}
	if g.chance(0.3) {
		on := def
		if len(possible) > 0 && def.Kind != ast.Object && g.chance(0.5) {
			on = possible[g.r.IntN(len(possible))]
		}
		name := fmt.Sprintf("F%d", len(g.fragments))
		f := &genText{}
		g.fragments = append(g.fragments, f) // before its body: nested fragments get later numbers
		f.w("fragment ", name, " on ", on.Name, " {")
		f.point(genSlot{kind: slotFragmentBody, name: name})
		body := &genText{}
		g.selectionSet(body, on, depth+1, true)
		inner := body.b.String()
		// The body's own braces are the fragment's.
		f.add(genTrimBraces(body, inner))
		f.w("}")
		t.w(" ...", name)
		if g.chance(0.2) {
			t.w(" @include(if: true)")
		}
	}
	if g.chance(0.1) && len(fields) > 0 {
		t.w(" ... @include(if: $", g.newVar(ast.NonNullNamedType("Boolean", nil), false), ") { ")
		g.field(t, def, g.pickField(fields), depth, true)
		t.w(" }")
	}
	t.w(" }")
}

// genTrimBraces is body, written as "{...}", without its outer braces.
func genTrimBraces(body *genText, written string) *genText {
	out := &genText{}
	out.w(written[1 : len(written)-1])
	for _, s := range body.slots {
		s.start--
		s.end--
		if s.group != [2]int{} {
			s.group[0]--
			s.group[1]--
		}
		out.slots = append(out.slots, s)
	}
	return out
}

// genRequired says whether an argument or input field of typ with deflt must
// be given.
func genRequired(typ *ast.Type, deflt *ast.Value) bool { return typ.NonNull && deflt == nil }

// value writes a valid value of typ: a literal, or (where variables may
// be, and not at the top of a const value) sometimes a variable.
func (g *diffGenerator) value(t *genText, typ *ast.Type, depth int, vars bool) {
	placeDefault := g.placeDefault
	g.placeDefault = false
	if vars && g.chance(0.4) {
		t.w("$", g.newVarAt(typ, false, placeDefault))
		return
	}
	g.literal(t, typ, depth, vars)
}

func (g *diffGenerator) literal(t *genText, typ *ast.Type, depth int, vars bool) {
	def := g.s.Types[typ.Name()]
	kind := slotValue
	if typ.Elem == nil && def != nil && def.Kind == ast.InputObject {
		kind = slotObject
	}
	s := genSlot{kind: kind, typ: typ, def: def}
	start := t.len()
	first := len(t.slots)
	switch {
	case !typ.NonNull && g.chance(0.05):
		t.w("null")
	case typ.Elem != nil:
		if g.chance(0.25) {
			// A single value where a list goes is a list of one (not
			// null, which is null); a variable there must be of the
			// list's type.
			g.literal(t, genNonNull(typ.Elem), depth+1, vars)
			break
		}
		t.w("[")
		for i := range g.r.IntN(3) {
			if i > 0 {
				t.w(", ")
			}
			g.item(t, typ.Elem, depth, vars)
		}
		t.w("]")
	case def.Kind == ast.InputObject:
		t.w("{")
		fields := g.inputFields(def, depth)
		for i, f := range fields {
			if i > 0 {
				t.w(", ")
			}
			at := t.len()
			t.w(f.Name, ": ")
			if genIsOneOf(def) {
				// A @oneOf member must not be null, a variable in one
				// must be of a non-null type.
				if vars && g.chance(0.5) {
					t.w("$", g.newVar(&ast.Type{NamedType: f.Type.NamedType, Elem: f.Type.Elem, NonNull: true}, true))
				} else {
					g.literal(t, &ast.Type{NamedType: f.Type.NamedType, Elem: f.Type.Elem, NonNull: true}, depth+1, vars)
				}
			} else {
				g.placeDefault = f.DefaultValue != nil
				g.item(t, f.Type, depth+1, vars)
			}
			if i == 0 {
				s.first = t.b.String()[at:]
			}
		}
		t.w("}")
	default:
		t.w(g.leafLiteral(typ.Name()))
	}
	s.start, s.end = start, t.len()
	// The slot of the whole value goes before those of its parts.
	t.slots = slices.Insert(t.slots, first, s)
}

// item is a value inside a list or an input object: a variable sometimes.
func (g *diffGenerator) item(t *genText, typ *ast.Type, depth int, vars bool) {
	placeDefault := g.placeDefault
	g.placeDefault = false
	if vars && g.chance(0.15) {
		t.w("$", g.newVarAt(typ, false, placeDefault))
		return
	}
	g.literal(t, typ, depth+1, vars)
}

// inputFields picks the fields of an input object value: every required
// one and some others (exactly one of a @oneOf).
func (g *diffGenerator) inputFields(def *ast.Definition, depth int) []*ast.FieldDefinition {
	if genIsOneOf(def) {
		return []*ast.FieldDefinition{def.Fields[g.r.IntN(len(def.Fields))]}
	}
	var out []*ast.FieldDefinition
	for _, f := range def.Fields {
		if genRequired(f.Type, f.DefaultValue) || (depth < 2 && g.chance(0.3)) {
			out = append(out, f)
		}
	}
	return out
}

func genIsOneOf(def *ast.Definition) bool {
	return def != nil && def.Kind == ast.InputObject && def.Directives.ForName("oneOf") != nil
}

func (g *diffGenerator) leafLiteral(name string) string {
	def := g.s.Types[name]
	switch {
	case def.Kind == ast.Enum:
		return def.EnumValues[g.r.IntN(len(def.EnumValues))].Name
	case name == "Int":
		return fmt.Sprint(g.r.IntN(200) - 20)
	case name == "Float":
		return []string{"1.5", "2", "-0.25", "3e2"}[g.r.IntN(4)]
	case name == "Boolean":
		return []string{"true", "false"}[g.r.IntN(2)]
	case name == "ID":
		return []string{`"id1"`, "7"}[g.r.IntN(2)]
	}
	// String, and custom scalars, which take any value.
	return []string{`"s"`, `"é \n \u00e9"`, `""`}[g.r.IntN(3)]
}

// newVar adds a variable of typ with a valid value (or a default, or
// nothing when it may be null) and returns its name.
func (g *diffGenerator) newVar(typ *ast.Type, oneOf bool) string {
	return g.newVarAt(typ, oneOf, false)
}

// newVarAt is newVar for a place that has a default or not.
func (g *diffGenerator) newVarAt(typ *ast.Type, oneOf, placeDefault bool) string {
	v := genVar{name: fmt.Sprintf("v%d", len(g.vars)), typ: typ, oneOf: oneOf, placeDefault: placeDefault}
	switch {
	case !typ.NonNull && g.chance(0.15):
		lit := &genText{}
		g.literal(lit, typ, 1, false)
		v.deflt = lit.b.String()
	case !typ.NonNull && g.chance(0.1):
		// left out: null
	default:
		g.values[v.name] = g.jsonValue(typ, 0)
		v.given = true
	}
	g.vars = append(g.vars, v)
	return v.name
}

// jsonValue is a valid JSON value of typ, as variables give it.
func (g *diffGenerator) jsonValue(typ *ast.Type, depth int) any {
	def := g.s.Types[typ.Name()]
	switch {
	case !typ.NonNull && depth > 0 && g.chance(0.05):
		return nil
	case typ.Elem != nil:
		if g.chance(0.25) {
			return g.jsonValue(genNonNull(typ.Elem), depth+1)
		}
		out := []any{}
		for range g.r.IntN(3) {
			out = append(out, g.jsonValue(typ.Elem, depth+1))
		}
		return out
	case def.Kind == ast.InputObject:
		out := map[string]any{}
		for _, f := range g.inputFields(def, depth) {
			ft := f.Type
			if genIsOneOf(def) {
				ft = &ast.Type{NamedType: ft.NamedType, Elem: ft.Elem, NonNull: true}
			}
			out[f.Name] = g.jsonValue(ft, depth+1)
		}
		return out
	case def.Kind == ast.Enum:
		return def.EnumValues[g.r.IntN(len(def.EnumValues))].Name
	}
	switch typ.Name() {
	case "Int":
		return g.r.IntN(200) - 20
	case "Float":
		return []any{1.5, 2, -0.25}[g.r.IntN(3)]
	case "Boolean":
		return g.chance(0.5)
	case "ID":
		return []any{"id1", 7}[g.r.IntN(2)]
	}
	return []any{"s", "é \n", ""}[g.r.IntN(3)]
}

// genEdit is one change of a valid text: [start, end) becomes with.
type genEdit struct {
	start, end int
	with       string
}

// genMutant is a one-rule change of a valid case, by class.
type genMutant struct {
	class string
	edits []genEdit
	// vars, when not nil, replaces the variables.
	vars     map[string]any
	opName   string
	variable string
	// anonymous: no operationName (the operation is left unnamed)
	anonymous bool
}

func (m genMutant) apply(valid diffCase) diffCase {
	c := valid
	c.Class, c.Variable = m.class, m.variable
	edits := slices.Clone(m.edits)
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	q := valid.Query
	for _, e := range edits {
		q = q[:e.start] + e.with + q[e.end:]
	}
	c.Query = q
	if m.vars != nil {
		c.Variables = m.vars
	}
	if m.opName != "" {
		c.OperationName = m.opName
	}
	if m.anonymous {
		c.OperationName = ""
	}
	return c
}

// mutants are the one-rule mutants of a valid case, at most one of each
// class (drawn at random among the places it fits).
func (g *diffGenerator) mutants(valid diffCase, t *genText) []diffCase {
	byClass := map[string][]genMutant{}
	add := func(m genMutant) { byClass[m.class] = append(byClass[m.class], m) }
	for _, s := range t.slots {
		g.slotMutants(valid, t, s, add)
	}
	g.documentMutants(valid, t, add)
	g.variableMutants(valid, add)
	classes := make([]string, 0, len(byClass))
	for class := range byClass {
		classes = append(classes, class)
	}
	sort.Strings(classes)
	var out []diffCase
	for _, class := range classes {
		ms := byClass[class]
		out = append(out, ms[g.r.IntN(len(ms))].apply(valid))
	}
	return out
}

// genWrongLeaves are literals of the wrong kind for each built-in scalar,
// by the class of mistake; the JSON ones are the same mistakes in
// variables.
var genWrongLeaves = map[string][][2]string{
	"String":  {{"number", "5"}, {"boolean", "true"}},
	"ID":      {{"float", "1.5"}, {"boolean", "true"}},
	"Int":     {{"string", `"5"`}, {"float", "1.5"}, {"beyond-32-bits", "2147483648"}, {"below-32-bits", "-2147483649"}, {"boolean", "true"}},
	"Float":   {{"string", `"5"`}, {"boolean", "true"}},
	"Boolean": {{"string", `"true"`}, {"number", "1"}},
}

var genBuiltinScalars = map[string]bool{"String": true, "ID": true, "Int": true, "Float": true, "Boolean": true}

func (g *diffGenerator) slotMutants(valid diffCase, t *genText, s genSlot, add func(genMutant)) {
	replace := func(class, with string) {
		add(genMutant{class: class, edits: []genEdit{{s.start, s.end, with}}})
	}
	insert := func(class string, at int, with string) {
		add(genMutant{class: class, edits: []genEdit{{at, at, with}}})
	}
	switch s.kind {
	case slotValue, slotObject:
		for _, c := range g.wrongFor(s.typ, s.def, s.first) {
			if c.insertAfterBrace {
				insert(genLiteralClass(c.class), s.start+1, c.text)
			} else {
				replace(genLiteralClass(c.class), c.text)
			}
		}
	case slotArgument:
		if genRequired(s.arg.Type, s.arg.DefaultValue) {
			if s.groupCount == 1 {
				add(genMutant{class: "document/missing-argument", edits: []genEdit{{s.group[0], s.group[1], ""}}})
			} else {
				replace("document/missing-argument", "")
			}
		}
		insert("document/duplicate-argument", s.end, ", "+valid.Query[s.start:s.end])
	case slotArguments:
		if s.open {
			insert("document/unknown-argument", s.start, "nope: 1, ")
		} else {
			insert("document/unknown-argument", s.start, "(nope: 1)")
		}
	case slotSelections:
		insert("document/unknown-field", s.start, " nopeField")
		insert("document/typename-argument", s.start, " __typename(x: 1)")
		insert("document/typename-selection", s.start, " __typename { x }")
		// Valid where the schema declares @defer (synthetic does), else
		// an unknown directive.
		insert("document/defer", s.start, " ... @defer { __typename }")
		switch {
		case s.root && s.def == g.s.Query:
			insert("valid/introspection", s.start, ` zzS: __schema { queryType { name } } zzT: __type(name: "`+s.def.Name+`") { name kind }`)
			insert("document/introspection-missing-argument", s.start, ` zzT: __type { name }`)
		case s.root:
			insert("document/introspection-off-query", s.start, ` zzT: __type(name: "`+s.def.Name+`") { name }`)
		default:
			insert("document/introspection-off-root", s.start, ` zzT: __type(name: "`+s.def.Name+`") { name }`)
		}
		insert("document/unknown-fragment", s.start, " ...NopeFragment")
		insert("document/unknown-type", s.start, " ... on NopeType { __typename }")
		insert("document/fragment-on-scalar", s.start, " ... on Boolean { __typename }")
		if other := g.unrelatedObject(s.def); other != "" {
			insert("document/impossible-fragment", s.start, " ... on "+other+" { __typename }")
			end := len(valid.Query)
			add(genMutant{class: "document/impossible-named-fragment", edits: []genEdit{{s.start, s.start, " ...Impossible"}, {end, end, "\nfragment Impossible on " + other + " { __typename }"}}})
		}
		if a, b := g.twoLeaves(s.def); a != "" {
			insert("document/overlap-different-fields", s.start, " zz: "+a+" zz: "+b)
		}
		if f := g.differentArguments(s.def); f != "" {
			insert("document/overlap-different-arguments", s.start, f)
		}
		if a, fa, b, fb := g.differentShapes(s.def); a != "" {
			insert("document/overlap-different-types", s.start, " ... on "+a+" { zz: "+fa+" } ... on "+b+" { zz: "+fb+" }")
		}
		if s.def.Kind == ast.Union {
			for _, m := range g.possible(s.def) {
				if fs := g.fields(m); len(fs) > 0 {
					insert("document/field-on-union", s.start, " "+fs[0].Name)
					break
				}
			}
		}
	case slotLeaf:
		insert("document/leaf-selection", s.start, " { nope }")
	case slotSubselection:
		replace("document/missing-selection", "")
	case slotDirectives:
		insert("document/unknown-directive", s.start, " @nope")
		insert("document/misplaced-directive", s.start, " @deprecated")
		insert("document/duplicate-directive", s.start, " @skip(if: false) @skip(if: false)")
		insert("document/directive-missing-argument", s.start, " @include")
		insert("document/directive-argument-type", s.start, ` @include(if: "yes")`)
		insert("document/directive-unknown-argument", s.start, " @skip(if: false, nope: 1)")
		if d := g.customDirective(ast.LocationField); d != "" {
			insert("valid/custom-directive", s.start, " @"+d)
		}
	case slotOperationDirectives:
		if d := g.customDirective(ast.LocationField); d != "" {
			insert("document/custom-directive-misplaced", s.start, " @"+d)
		}
		insert("document/unknown-directive-on-operation", s.start, " @nope")
		insert("document/misplaced-directive-on-operation", s.start, " @include(if: true)")
	case slotVariableDefs:
		if s.open {
			insert("document/unused-variable", s.start, ", $unused: Int")
			insert("document/duplicate-variable", s.start, ", "+g.firstVariableDef(valid, t))
		} else {
			insert("document/unused-variable", s.start, "($unused: Int)")
		}
	case slotVariableDef:
		vars := genCloneMap(valid.Variables)
		delete(vars, s.name)
		m := genMutant{class: "document/undefined-variable", vars: vars}
		if s.groupCount == 1 {
			m.edits = []genEdit{{s.group[0], s.group[1], ""}}
		} else {
			m.edits = []genEdit{{s.start, s.end, ""}}
		}
		add(m)
	case slotVariableType:
		vars := genCloneMap(valid.Variables)
		delete(vars, s.name)
		if genBuiltinScalars[s.typ.Name()] && s.typ.Elem == nil {
			other := "String"
			if s.typ.Name() == "String" || s.typ.Name() == "ID" {
				other = "Boolean"
			}
			add(genMutant{class: "document/variable-type-mismatch", vars: vars, edits: []genEdit{{s.start, s.end, other}}})
		}
		// Type variance: a variable fits where its type is the same or
		// stricter, never a sibling scalar, never its list's item type.
		siblings := map[string]string{"Int": "Float", "Float": "Int", "String": "ID", "ID": "String"}
		if other, ok := siblings[genInnermost(s.typ).NamedType]; ok {
			swapped := genCopyType(s.typ)
			genInnermost(swapped).NamedType = other
			add(genMutant{class: "document/variable-sibling-scalar", edits: []genEdit{{s.start, s.end, swapped.String()}}})
		}
		if s.typ.Elem != nil && !s.oneOf {
			add(genMutant{class: "document/variable-item-type-for-list", edits: []genEdit{{s.start, s.end, s.typ.Elem.String()}}})
			items := genCopyType(s.typ)
			items.Elem.NonNull = !items.Elem.NonNull
			class := "document/variable-nullable-items"
			if items.Elem.NonNull {
				class = "document/variable-non-null-items"
			}
			add(genMutant{class: class, edits: []genEdit{{s.start, s.end, items.String()}}})
		}
		add(genMutant{class: "document/variable-of-output-type", vars: vars, edits: []genEdit{{s.start, s.end, g.s.Query.Name}}})
		add(genMutant{class: "document/variable-of-unknown-type", vars: vars, edits: []genEdit{{s.start, s.end, "NopeType"}}})
		nullable := strings.TrimSuffix(s.typ.String(), "!")
		switch {
		case s.oneOf:
			add(genMutant{class: "document/oneOf-nullable-variable", edits: []genEdit{{s.start, s.end, nullable}}})
		case s.typ.NonNull:
			// Its one use is where its type is non-null: a nullable
			// variable may go there only with a default of its own or
			// of the place.
			if s.placeDefault {
				add(genMutant{class: "valid/nullable-variable-where-place-has-default", edits: []genEdit{{s.start, s.end, nullable}}})
			} else {
				add(genMutant{class: "document/nullable-variable-in-non-null-position", edits: []genEdit{{s.start, s.end, nullable}}})
			}
			lit := &genText{}
			g.literal(lit, &ast.Type{NamedType: s.typ.NamedType, Elem: s.typ.Elem, NonNull: true}, 1, false)
			add(genMutant{class: "valid/defaulted-variable-in-non-null-position", vars: vars, edits: []genEdit{{s.start, s.end, nullable + " = " + lit.b.String()}}})
			add(genMutant{class: "valid/non-null-variable-with-default", vars: vars, edits: []genEdit{{s.start, s.end, s.typ.String() + " = " + lit.b.String()}}})
			if _, given := valid.Variables[s.name]; given {
				withNull := genCloneMap(valid.Variables)
				withNull[s.name] = nil
				add(genMutant{class: "variable/null-for-non-null-with-default", vars: withNull, edits: []genEdit{{s.start, s.end, s.typ.String() + " = " + lit.b.String()}}})
			}
		}
	case slotFragmentBody:
		insert("document/fragment-cycle", s.start, " ..."+s.name)
	}
}

func genCloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (g *diffGenerator) firstVariableDef(valid diffCase, t *genText) string {
	for _, s := range t.slots {
		if s.kind == slotVariableDef {
			return valid.Query[s.start:s.end]
		}
	}
	return "$unused: Int"
}

// documentMutants change the document as a whole.
func (g *diffGenerator) documentMutants(valid diffCase, t *genText, add func(genMutant)) {
	end := len(valid.Query)
	// The operation unnamed, and (without variables) in the shorthand
	// form of a query.
	keyword, _, _ := strings.Cut(valid.Query, " ")
	named := len(keyword) + 1 + len(valid.OperationName)
	add(genMutant{class: "valid/anonymous-operation", anonymous: true, edits: []genEdit{{len(keyword), named, ""}}})
	if keyword == "query" && strings.HasPrefix(valid.Query[named:], " {") {
		add(genMutant{class: "valid/query-shorthand", anonymous: true, edits: []genEdit{{0, named + 1, ""}}})
	}
	for _, s := range t.slots {
		if s.kind == slotFragmentBody {
			add(genMutant{class: "document/duplicate-fragment", edits: []genEdit{{end, end, "\nfragment " + s.name + " on " + g.s.Query.Name + " { __typename }"}}})
		}
	}
	add(genMutant{class: "document/unused-fragment", edits: []genEdit{{end, end, "\nfragment Unused on " + g.s.Query.Name + " { __typename }"}}})
	extra := genCloneMap(valid.Variables)
	extra["extraVariable"] = 1
	add(genMutant{class: "valid/extra-variable", vars: extra})
	// Ignored tokens: commas, a byte order mark, carriage returns.
	add(genMutant{class: "valid/extra-commas", edits: genReplaceAll(valid.Query, ", ", " ,,, ")})
	add(genMutant{class: "valid/byte-order-mark", edits: []genEdit{{0, 0, "\ufeff"}}})
	add(genMutant{class: "valid/carriage-returns", edits: genReplaceAll(valid.Query, "\n", "\r")})
	add(genMutant{class: "valid/comment-control-character", edits: []genEdit{{end, end, "\n# a\x07b"}}})
	add(genMutant{class: "valid/another-operation", edits: []genEdit{{end, end, "\nquery Other { __typename }"}}})
	add(genMutant{class: "document/invalid-other-operation", edits: []genEdit{{end, end, "\nquery Other { nopeField }"}}})
	add(genMutant{class: "document/duplicate-operation-name", edits: []genEdit{{end, end, "\nquery " + valid.OperationName + " { __typename }"}}})
	add(genMutant{class: "document/anonymous-beside-another", edits: []genEdit{{end, end, "\n{ __typename }"}}})
	add(genMutant{class: "document/no-such-operation", opName: "Nope"})
	if strings.HasPrefix(valid.Query, "query ") {
		add(genMutant{class: "document/subscription", edits: []genEdit{{0, len("query"), "subscription"}}})
	}
}

// variableMutants change one variable's value to one that does not fit
// its type.
func (g *diffGenerator) variableMutants(valid diffCase, add func(genMutant)) {
	for _, v := range g.vars {
		if !v.given {
			continue
		}
		if v.typ.NonNull && v.deflt == "" {
			vars := genCloneMap(valid.Variables)
			delete(vars, v.name)
			add(genMutant{class: "variable/missing-required", vars: vars, variable: v.name})
		}
		g.valueMutants(v.typ, valid.Variables[v.name], func(class string, wrong any) {
			vars := genCloneMap(valid.Variables)
			vars[v.name] = wrong
			if !strings.HasPrefix(class, "valid/") {
				class = "variable/" + class
			}
			add(genMutant{class: class, vars: vars, variable: v.name})
		}, func(inner any) any { return inner })
	}
}

// valueMutants calls found for each wrong value that can replace a part
// of value (of typ); wrap puts the wrong part back in its place in a copy
// of the whole.
func (g *diffGenerator) valueMutants(typ *ast.Type, value any, found func(class string, wrong any), wrap func(any) any) {
	def := g.s.Types[typ.Name()]
	if value == nil {
		return
	}
	if typ.NonNull {
		found("non-null/null", wrap(nil))
	}
	if typ.Elem != nil {
		if genInnerLeaf(g.s, typ) != "" {
			found("list/extra-nesting", wrap([]any{[]any{g.jsonValue(genInnermost(typ), 1)}}))
		}
		list, ok := value.([]any)
		if !ok {
			return
		}
		for i, item := range list {
			g.valueMutants(typ.Elem, item, found, func(inner any) any {
				c := slices.Clone(list)
				c[i] = inner
				return wrap(c)
			})
		}
		return
	}
	switch def.Kind {
	case ast.Scalar:
		for _, w := range genWrongLeaves[def.Name] {
			var v any
			if err := json.Unmarshal([]byte(w[1]), &v); err != nil {
				panic(err)
			}
			if w[0] == "beyond-32-bits" || w[0] == "below-32-bits" {
				v = json.Number(w[1])
			}
			found(def.Name+"/"+w[0], wrap(v))
		}
		if genBuiltinScalars[def.Name] {
			found("list/for-scalar", wrap([]any{value}))
		}
		if def.Name == "Int" || def.Name == "Float" {
			// Whole numbers written as JSON floats are Ints: graphql-js
			// reads JSON into numbers, which do not keep the spelling.
			found("valid/variable-"+def.Name+"-whole-float", wrap(json.Number("5.0")))
			found("valid/variable-"+def.Name+"-exponent", wrap(json.Number("1e3")))
			// Beyond float64: JSON.parse makes it Infinity, which no
			// number type takes.
			found(def.Name+"/overflow", wrap(json.Number("1e309")))
		}
		if def.Name == "ID" {
			found("valid/variable-ID-large-integer", wrap(json.Number("100000000000000000000")))
			found("valid/variable-ID-whole-float", wrap(json.Number("5.0")))
		}
		if def.Name == "Int" {
			found("valid/variable-Int-negative-zero", wrap(json.Number("-0")))
			found("valid/variable-Int-bounds", wrap(json.Number([]string{"2147483647", "-2147483648"}[g.r.IntN(2)])))
		}
		if !genBuiltinScalars[def.Name] {
			found("valid/variable-custom-scalar-object", wrap(map[string]any{"a": []any{1, "x", nil}, "b": map[string]any{"c": true}}))
		}
	case ast.Enum:
		s, _ := value.(string)
		if lower := strings.ToLower(s); lower != s {
			found("enum/case", wrap(lower))
		}
		found("enum/unknown", wrap("NOPE_VALUE"))
		found("enum/number", wrap(1))
	case ast.InputObject:
		obj, ok := value.(map[string]any)
		if !ok {
			return
		}
		with := func(k string, v any) map[string]any {
			c := genCloneMap(obj)
			c[k] = v
			return c
		}
		found("input/__typename", wrap(with("__typename", def.Name)))
		found("input/unknown-field", wrap(with("nopeField", 1)))
		found("input/string", wrap("x"))
		found("input/list", wrap([]any{obj}))
		if genIsOneOf(def) {
			found("oneOf/zero", wrap(map[string]any{}))
			for _, f := range def.Fields {
				if _, ok := obj[f.Name]; !ok {
					found("oneOf/two", wrap(with(f.Name, g.jsonValue(&ast.Type{NamedType: f.Type.NamedType, Elem: f.Type.Elem, NonNull: true}, 1))))
					break
				}
			}
			for _, k := range slices.Sorted(maps.Keys(obj)) {
				found("oneOf/null-member", wrap(with(k, nil)))
			}
		}
		for _, f := range def.Fields {
			if _, ok := obj[f.Name]; ok && genRequired(f.Type, f.DefaultValue) {
				c := genCloneMap(obj)
				delete(c, f.Name)
				found("input/missing-required", wrap(c))
				break
			}
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			f := def.Fields.ForName(k)
			if f == nil {
				continue
			}
			ft := f.Type
			if genIsOneOf(def) {
				ft = &ast.Type{NamedType: ft.NamedType, Elem: ft.Elem, NonNull: true}
			}
			g.valueMutants(ft, obj[k], found, func(inner any) any { return wrap(with(k, inner)) })
		}
	}
}

func genInnermost(typ *ast.Type) *ast.Type {
	for typ.Elem != nil {
		typ = typ.Elem
	}
	return typ
}

// genInnerLeaf is the named type of typ's innermost item when it is not a
// custom scalar (which takes a list as well as anything else), else "".
func genInnerLeaf(s *ast.Schema, typ *ast.Type) string {
	in := genInnermost(typ)
	def := s.Types[in.Name()]
	if def == nil || (def.Kind == ast.Scalar && !genBuiltinScalars[def.Name]) {
		return ""
	}
	return def.Name
}

// genWrongLiteral is a literal that does not fit where it is, with the class
// of its mistake; insertAfterBrace adds text just inside an object's "{".
type genWrongLiteral struct {
	class            string
	text             string
	insertAfterBrace bool
}

func (g *diffGenerator) wrongFor(typ *ast.Type, def *ast.Definition, first string) []genWrongLiteral {
	var out []genWrongLiteral
	if typ.NonNull {
		out = append(out, genWrongLiteral{class: "non-null/null", text: "null"})
	}
	if typ.Elem != nil {
		if genInnerLeaf(g.s, typ) != "" {
			lit := &genText{}
			g.literal(lit, genInnermost(typ), 1, false)
			nested := lit.b.String()
			for t := typ; t != nil; t = t.Elem {
				nested = "[" + nested + "]"
			}
			out = append(out, genWrongLiteral{class: "list/extra-nesting", text: nested})
		}
		return out
	}
	if def == nil {
		return out
	}
	switch def.Kind {
	case ast.Scalar:
		for _, w := range genWrongLeaves[def.Name] {
			out = append(out, genWrongLiteral{class: def.Name + "/" + w[0], text: w[1]})
		}
		if genBuiltinScalars[def.Name] {
			out = append(out, genWrongLiteral{class: "list/for-scalar", text: "[" + g.leafLiteral(def.Name) + "]"})
		} else {
			// A custom scalar takes any literal, an object or a list too.
			out = append(out, genWrongLiteral{class: "valid/literal-custom-scalar-object", text: `{a: [1, "x", null], b: {c: ENUM}}`})
		}
		switch def.Name {
		case "Int":
			// An Int is an IntValue within 32 bits: 2.0 and 1e3 are
			// FloatValues, whatever number they stand for.
			out = append(out, genWrongLiteral{class: "Int/whole-float", text: "2.0"}, genWrongLiteral{class: "Int/exponent", text: "1e3"},
				genWrongLiteral{class: "valid/literal-Int-bounds", text: []string{"2147483647", "-2147483648"}[g.r.IntN(2)]})
		case "String":
			out = append(out, genWrongLiteral{class: "valid/literal-block-string", text: "\"\"\"a \\\"\"\" b\n  c\"\"\""},
				// The lexer's rules for strings: escapes, surrogates,
				// control characters.
				genWrongLiteral{class: "valid/literal-braced-unicode-escape", text: `"\u{1F600}"`},
				genWrongLiteral{class: "valid/literal-surrogate-pair-escape", text: `"\uD83D\uDE00"`},
				genWrongLiteral{class: "String/lone-surrogate-escape", text: `"\uD800"`},
				genWrongLiteral{class: "String/unknown-escape", text: `"\x41"`},
				// The spec's SourceCharacter is any Unicode scalar value:
				// a control character may be in a string as it is.
				genWrongLiteral{class: "valid/literal-string-control-character", text: "\"a\x07b\""},
				genWrongLiteral{class: "valid/literal-block-string-control-character", text: "\"\"\"a\x07b\"\"\""})
		case "Float":
			out = append(out, genWrongLiteral{class: "Float/leading-dot", text: ".5"}, genWrongLiteral{class: "Float/exponent-without-digits", text: "1e"})
		}
		if def.Name == "Int" {
			// The lexer's rules for numbers.
			out = append(out, genWrongLiteral{class: "Int/leading-zero", text: "007"}, genWrongLiteral{class: "Int/trailing-dot", text: "1."},
				genWrongLiteral{class: "valid/literal-number-forms", text: "-0"})
		}
		if def.Name == "Float" {
			out = append(out, genWrongLiteral{class: "valid/literal-number-forms", text: []string{"1E+3", "-0.0", "1e-3"}[g.r.IntN(3)]})
		}
	case ast.Enum:
		v := def.EnumValues[0].Name
		if lower := strings.ToLower(v); lower != v {
			out = append(out, genWrongLiteral{class: "enum/case", text: lower})
		}
		out = append(out, genWrongLiteral{class: "enum/string", text: `"` + v + `"`}, genWrongLiteral{class: "enum/unknown", text: "NOPE_VALUE"})
	case ast.InputObject:
		out = append(out, genWrongLiteral{class: "input/unknown-field", text: "nopeField: 1, ", insertAfterBrace: true},
			genWrongLiteral{class: "input/string", text: `"x"`}, genWrongLiteral{class: "input/list", text: "[{" + first + "}]"},
			genWrongLiteral{class: "input/__typename", text: `__typename: "` + def.Name + `", `, insertAfterBrace: true})
		if first != "" {
			out = append(out, genWrongLiteral{class: "input/duplicate-field", text: first + ", ", insertAfterBrace: true})
		}
		if genIsOneOf(def) {
			out = append(out, genWrongLiteral{class: "oneOf/zero", text: "{}"})
			if len(def.Fields) >= 2 {
				parts := make([]string, 2)
				for i, f := range def.Fields[:2] {
					lit := &genText{}
					g.literal(lit, &ast.Type{NamedType: f.Type.NamedType, Elem: f.Type.Elem, NonNull: true}, 1, false)
					parts[i] = f.Name + ": " + lit.b.String()
				}
				out = append(out, genWrongLiteral{class: "oneOf/two", text: "{" + strings.Join(parts, ", ") + "}"})
			}
			out = append(out, genWrongLiteral{class: "oneOf/null-member", text: "{" + def.Fields[0].Name + ": null}"})
		} else {
			for _, f := range def.Fields {
				if genRequired(f.Type, f.DefaultValue) {
					out = append(out, genWrongLiteral{class: "input/missing-required", text: "{}"})
					break
				}
			}
		}
	}
	return out
}

// unrelatedObject is an object type that can never be def, or "".
func (g *diffGenerator) unrelatedObject(def *ast.Definition) string {
	possible := map[string]bool{}
	for _, p := range g.possible(def) {
		possible[p.Name] = true
	}
	names := make([]string, 0, len(g.s.Types))
	for name, t := range g.s.Types {
		if t.Kind == ast.Object && !possible[name] && !strings.HasPrefix(name, "__") && !t.BuiltIn {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	return names[g.r.IntN(len(names))]
}

// leafFields are def's fields of a leaf type that take no required
// argument.
func (g *diffGenerator) leafFields(def *ast.Definition) []*ast.FieldDefinition {
	var out []*ast.FieldDefinition
	for _, f := range g.fields(def) {
		t := g.s.Types[f.Type.Name()]
		if t == nil || !t.IsLeafType() {
			continue
		}
		ok := true
		for _, a := range f.Arguments {
			if genRequired(a.Type, a.DefaultValue) {
				ok = false
			}
		}
		if ok {
			out = append(out, f)
		}
	}
	return out
}

// twoLeaves are two fields of def that cannot share a response name.
func (g *diffGenerator) twoLeaves(def *ast.Definition) (string, string) {
	leaves := g.leafFields(def)
	if len(leaves) < 2 {
		return "", ""
	}
	i := g.r.IntN(len(leaves) - 1)
	return leaves[i].Name, leaves[i+1].Name
}

// differentShapes are two possible types of def with a leaf field each,
// of different types: under one response name they conflict even though
// no object is both.
func (g *diffGenerator) differentShapes(def *ast.Definition) (a, fa, b, fb string) {
	if def.Kind == ast.Object {
		return
	}
	possible := g.possible(def)
	for i := 0; i < len(possible); i++ {
		for j := i + 1; j < len(possible); j++ {
			for _, x := range g.leafFields(possible[i]) {
				for _, y := range g.leafFields(possible[j]) {
					if x.Type.String() != y.Type.String() {
						return possible[i].Name, x.Name, possible[j].Name, y.Name
					}
				}
			}
		}
	}
	return
}

// differentArguments is a selection of two fields of def under one
// response name, with different values of one argument: they conflict.
// "" when def has no field with an optional argument of a leaf type.
func (g *diffGenerator) differentArguments(def *ast.Definition) string {
	for _, f := range g.fields(def) {
		for _, a := range f.Arguments {
			if a.Type.NonNull || a.Type.Elem != nil || (a.Type.Name() != "Int" && a.Type.Name() != "String" && a.Type.Name() != "Boolean") {
				continue
			}
			ok := true
			for _, other := range f.Arguments {
				if genRequired(other.Type, other.DefaultValue) {
					ok = false
				}
			}
			if !ok {
				continue
			}
			sub := ""
			if t := g.s.Types[f.Type.Name()]; t != nil && !t.IsLeafType() {
				sub = " { __typename }"
			}
			two := map[string][2]string{"Int": {"1", "2"}, "String": {`"a"`, `"b"`}, "Boolean": {"true", "false"}}[a.Type.Name()]
			return fmt.Sprintf(" zz: %s(%s: %s)%s zz: %s(%s: %s)%s", f.Name, a.Name, two[0], sub, f.Name, a.Name, two[1], sub)
		}
	}
	return ""
}

// possible are the object types def may be, by name: gqlparser gathers
// them from a map, in an order that changes from run to run.
func (g *diffGenerator) possible(def *ast.Definition) []*ast.Definition {
	out := slices.Clone(g.s.GetPossibleTypes(def))
	slices.SortFunc(out, func(a, b *ast.Definition) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// genLiteralClass is the class of a literal's mutant: its mistake, under
// literal/, or a valid variant's own class.
func genLiteralClass(class string) string {
	if strings.HasPrefix(class, "valid/") {
		return class
	}
	return "literal/" + class
}

// genReplaceAll is the edits that replace every old in text with new.
func genReplaceAll(text, old, new string) []genEdit {
	var out []genEdit
	for at := 0; ; {
		i := strings.Index(text[at:], old)
		if i < 0 {
			return out
		}
		out = append(out, genEdit{at + i, at + i + len(old), new})
		at += i + len(old)
	}
}

// genCopyType is a deep copy of typ.
func genCopyType(typ *ast.Type) *ast.Type {
	c := *typ
	if typ.Elem != nil {
		c.Elem = genCopyType(typ.Elem)
	}
	return &c
}

// genNonNull is typ, non-null.
func genNonNull(typ *ast.Type) *ast.Type {
	c := *typ
	c.NonNull = true
	return &c
}

// customDirective is a directive the schema declares (not a built-in one)
// that goes at location and needs no argument, by name; "" when none.
func (g *diffGenerator) customDirective(location ast.DirectiveLocation) string {
	for _, name := range slices.Sorted(maps.Keys(g.s.Directives)) {
		d := g.s.Directives[name]
		if d.Position != nil && d.Position.Src != nil && d.Position.Src.BuiltIn {
			continue
		}
		if name == "include" || name == "skip" || name == "deprecated" || name == "specifiedBy" || name == "oneOf" || name == "defer" {
			continue
		}
		if !slices.Contains(d.Locations, location) {
			continue
		}
		if slices.ContainsFunc(d.Arguments, func(a *ast.ArgumentDefinition) bool { return genRequired(a.Type, a.DefaultValue) }) {
			continue
		}
		return name
	}
	return ""
}
