// Package complexity scores a GraphQL operation before it is sent, so that a
// server can refuse operations that would fetch too much.
//
// A field costs 1 plus its multiplier times the summed cost of its children.
// The multiplier is the value of the field's first pagination argument (first,
// last, limit, take, top, pageSize, perPage, per_page or count) when that is an
// integer of at least 1, else 1. So { users(first: 10) { id name } } costs
// 1 + 10 × 2 = 21. The scoring needs no schema: it reads the document alone.
package complexity

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// MaxDepth is the deepest selection nesting an operation may have. Real
// operations nest a dozen levels; deeper ones are refused before scoring, so
// scoring's own work stays small.
const MaxDepth = 100

// Cost is the cost of one field at one path.
type Cost struct {
	Path       string // response path, dotted: "viewer.repositories.nodes"
	Multiplier int    // its pagination multiplier (1 when it has none)
	Total      int    // the field's cost, its subtree included
}

// Result is an operation's score.
type Result struct {
	Score int
	// Costliest are the most expensive fields, costliest first (at most 5).
	Costliest []Cost
}

// TooDeepError reports an operation nested deeper than MaxDepth.
type TooDeepError struct{ Depth int }

func (e *TooDeepError) Error() string {
	return fmt.Sprintf("query nests selections more than %d levels deep (at least %d), so it was not scored or sent; "+
		"real operations need far fewer: flatten it, or split it into several queries", MaxDepth, e.Depth)
}

// Score scores op from doc, reading variable values from vars and falling back
// to the variables' defaults. Its time and memory are linear in the size of
// the document: a field's response path is built only for the few costliest.
func Score(doc *ast.QueryDocument, op *ast.OperationDefinition, vars map[string]any) (Result, error) {
	s := &scorer{doc: doc, op: op, vars: vars, fragments: map[string]fragmentCost{}, active: map[string]bool{}}
	total, _, err := s.selectionSet(op.SelectionSet, -1, 0)
	if err != nil {
		return Result{}, err
	}
	return Result{Score: total, Costliest: s.costliest(5)}, nil
}

// maxTies bounds how many fields tied with the n-th costliest are compared
// by path, so that a document of thousands of equal fields stays cheap.
const maxTies = 1000

// costliest returns the n costliest fields, ties broken by path, building
// paths only for the candidates.
func (s *scorer) costliest(n int) []Cost {
	order := make([]int, len(s.fields))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(s.fields[b].total, s.fields[a].total) })
	candidates := order
	if len(order) > n {
		cut := n
		for cut < len(order) && cut < n+maxTies && s.fields[order[cut]].total == s.fields[order[n-1]].total {
			cut++
		}
		candidates = order[:cut]
	}
	costs := make([]Cost, len(candidates))
	for i, idx := range candidates {
		f := s.fields[idx]
		costs[i] = Cost{Path: s.path(idx), Multiplier: f.multiplier, Total: f.total}
	}
	slices.SortStableFunc(costs, func(a, b Cost) int {
		return cmp.Or(cmp.Compare(b.Total, a.Total), strings.Compare(a.Path, b.Path))
	})
	return costs[:min(len(costs), n)]
}

type scorer struct {
	doc  *ast.QueryDocument
	op   *ast.OperationDefinition
	vars map[string]any
	// fragments memoises each fragment's cost and depth: a spread counts at
	// every use, but a fragment is walked once, so nested reuse cannot make
	// scoring itself exponential.
	fragments map[string]fragmentCost
	active    map[string]bool // fragments being walked, to find cycles
	// fields records every field scored, with the index of its parent
	// field (-1 at the root), from which a path is built on demand.
	fields []scoredField
}

type fragmentCost struct{ cost, depth int }

type scoredField struct {
	name       string // alias, else name
	parent     int
	multiplier int
	total      int
}

// maxPathBytes bounds a path shown in a message: names are the client's and
// may be long.
const maxPathBytes = 200

// path builds the dotted response path of field idx, from the field up,
// keeping at most maxPathBytes of its end.
func (s *scorer) path(idx int) string {
	var names []string
	size := 0
	for i := idx; i >= 0 && size <= maxPathBytes; i = s.fields[i].parent {
		names = append(names, s.fields[i].name)
		size += len(s.fields[i].name) + 1
	}
	slices.Reverse(names)
	path := strings.Join(names, ".")
	if size > maxPathBytes {
		path = "…" + strings.ToValidUTF8(path[max(0, len(path)-maxPathBytes):], "")
	}
	return path
}

// selectionSet returns the cost of set and its depth (the longest chain of
// nested fields in it). parent is the index of the enclosing field, level the
// nesting level of set's fields.
func (s *scorer) selectionSet(set ast.SelectionSet, parent, level int) (cost, depth int, err error) {
	if level >= MaxDepth && len(set) > 0 {
		return 0, 0, &TooDeepError{Depth: level + 1}
	}
	for _, sel := range set {
		var c, d int
		switch sel := sel.(type) {
		case *ast.Field:
			c, d, err = s.field(sel, parent, level)
		case *ast.InlineFragment:
			if s.skipped(sel.Directives) {
				continue
			}
			c, d, err = s.selectionSet(sel.SelectionSet, parent, level)
		case *ast.FragmentSpread:
			if s.skipped(sel.Directives) {
				continue
			}
			c, d, err = s.spread(sel, parent, level)
		}
		if err != nil {
			return 0, 0, err
		}
		cost = add(cost, c)
		depth = max(depth, d)
	}
	return cost, depth, nil
}

func (s *scorer) field(f *ast.Field, parent, level int) (int, int, error) {
	if s.skipped(f.Directives) {
		return 0, 0, nil
	}
	switch f.Name {
	case "__typename", "__schema", "__type":
		return 0, 1, nil
	}
	name := f.Alias
	if name == "" {
		name = f.Name
	}
	idx := len(s.fields)
	s.fields = append(s.fields, scoredField{name: name, parent: parent})
	children, depth, err := s.selectionSet(f.SelectionSet, idx, level+1)
	if err != nil {
		return 0, 0, err
	}
	m := s.multiplier(f.Arguments)
	total := add(1, mul(m, children))
	s.fields[idx].multiplier, s.fields[idx].total = m, total
	return total, depth + 1, nil
}

func (s *scorer) spread(spread *ast.FragmentSpread, parent, level int) (int, int, error) {
	if memo, ok := s.fragments[spread.Name]; ok {
		if level+memo.depth > MaxDepth {
			return 0, 0, &TooDeepError{Depth: level + memo.depth}
		}
		return memo.cost, memo.depth, nil
	}
	def := s.doc.Fragments.ForName(spread.Name)
	if def == nil {
		return 0, 0, fmt.Errorf("query spreads fragment %q, which it does not define; define it or remove ...%s", spread.Name, spread.Name)
	}
	if s.active[spread.Name] {
		return 0, 0, fmt.Errorf("fragment %q spreads itself, directly or through other fragments; GraphQL forbids fragment cycles", spread.Name)
	}
	s.active[spread.Name] = true
	cost, depth, err := s.selectionSet(def.SelectionSet, parent, level)
	delete(s.active, spread.Name)
	if err != nil {
		return 0, 0, err
	}
	s.fragments[spread.Name] = fragmentCost{cost: cost, depth: depth}
	return cost, depth, nil
}

// isPaginationArgument reports the argument names that multiply a field.
func isPaginationArgument(name string) bool {
	switch name {
	case "first", "last", "limit", "take", "top", "pageSize", "perPage", "per_page", "count":
		return true
	}
	return false
}

func (s *scorer) multiplier(args ast.ArgumentList) int {
	for _, arg := range args {
		if !isPaginationArgument(arg.Name) {
			continue
		}
		if n, ok := s.intValue(arg.Value); ok && n >= 1 {
			return n
		}
		return 1
	}
	return 1
}

// skipped reports whether @skip(if: true) or @include(if: false) removes a
// selection.
func (s *scorer) skipped(directives ast.DirectiveList) bool {
	for _, d := range directives {
		arg := d.Arguments.ForName("if")
		if arg == nil {
			continue
		}
		value, ok := s.boolValue(arg.Value)
		if !ok {
			continue
		}
		if (d.Name == "skip" && value) || (d.Name == "include" && !value) {
			return true
		}
	}
	return false
}

// resolve returns a literal value as is and a variable's value from the call,
// else from its default; ok is false when there is neither.
func (s *scorer) resolve(v *ast.Value) (literal *ast.Value, given any, ok bool) {
	if v == nil {
		return nil, nil, false
	}
	if v.Kind != ast.Variable {
		return v, nil, true
	}
	if value, found := s.vars[v.Raw]; found {
		return nil, value, true
	}
	if def := s.op.VariableDefinitions.ForName(v.Raw); def != nil && def.DefaultValue != nil {
		return def.DefaultValue, nil, true
	}
	return nil, nil, false
}

func (s *scorer) intValue(v *ast.Value) (int, bool) {
	literal, given, ok := s.resolve(v)
	if !ok {
		return 0, false
	}
	if literal != nil {
		if literal.Kind != ast.IntValue {
			return 0, false
		}
		n, err := strconv.ParseInt(literal.Raw, 10, 64)
		if errors.Is(err, strconv.ErrRange) {
			return math.MaxInt, true
		}
		return int(n), err == nil
	}
	return intOf(given)
}

func (s *scorer) boolValue(v *ast.Value) (bool, bool) {
	literal, given, ok := s.resolve(v)
	if !ok {
		return false, false
	}
	if literal != nil {
		return literal.Raw == "true", literal.Kind == ast.BooleanValue
	}
	b, isBool := given.(bool)
	return b, isBool
}

// intOf reads an integer from a decoded JSON variable value.
func intOf(v any) (int, bool) {
	var f float64
	switch v := v.(type) {
	case int:
		return v, true
	case int64:
		return int(v), true
	case float64:
		f = v
	case interface{ Float64() (float64, error) }: // json.Number
		var err error
		if f, err = v.Float64(); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	if f != math.Trunc(f) {
		return 0, false
	}
	if f >= math.MaxInt64 {
		return math.MaxInt, true
	}
	return int(f), true
}

// add and mul saturate at math.MaxInt instead of overflowing.
func add(a, b int) int {
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

func mul(a, b int) int {
	if a != 0 && b > math.MaxInt/a {
		return math.MaxInt
	}
	return a * b
}
