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

// Score scores op from doc, reading variable values from vars and falling back
// to the variables' defaults.
func Score(doc *ast.QueryDocument, op *ast.OperationDefinition, vars map[string]any) (Result, error) {
	s := &scorer{doc: doc, op: op, vars: vars, fragments: map[string]int{}, active: map[string]bool{}}
	total, err := s.selectionSet(op.SelectionSet, "")
	if err != nil {
		return Result{}, err
	}
	slices.SortStableFunc(s.costs, func(a, b Cost) int {
		return cmp.Or(cmp.Compare(b.Total, a.Total), strings.Compare(a.Path, b.Path))
	})
	return Result{Score: total, Costliest: s.costs[:min(len(s.costs), 5)]}, nil
}

type scorer struct {
	doc  *ast.QueryDocument
	op   *ast.OperationDefinition
	vars map[string]any
	// fragments memoises each fragment's cost: a spread counts at every use,
	// but a fragment is walked once, so nested reuse cannot make scoring
	// itself exponential.
	fragments map[string]int
	active    map[string]bool // fragments being walked, to find cycles
	costs     []Cost
}

func (s *scorer) selectionSet(set ast.SelectionSet, path string) (int, error) {
	total := 0
	for _, sel := range set {
		var cost int
		var err error
		switch sel := sel.(type) {
		case *ast.Field:
			cost, err = s.field(sel, path)
		case *ast.InlineFragment:
			if s.skipped(sel.Directives) {
				continue
			}
			cost, err = s.selectionSet(sel.SelectionSet, path)
		case *ast.FragmentSpread:
			if s.skipped(sel.Directives) {
				continue
			}
			cost, err = s.spread(sel, path)
		}
		if err != nil {
			return 0, err
		}
		total = add(total, cost)
	}
	return total, nil
}

func (s *scorer) field(f *ast.Field, path string) (int, error) {
	if s.skipped(f.Directives) {
		return 0, nil
	}
	switch f.Name {
	case "__typename", "__schema", "__type":
		return 0, nil
	}
	name := f.Alias
	if name == "" {
		name = f.Name
	}
	if path != "" {
		name = path + "." + name
	}
	children, err := s.selectionSet(f.SelectionSet, name)
	if err != nil {
		return 0, err
	}
	m := s.multiplier(f.Arguments)
	total := add(1, mul(m, children))
	s.costs = append(s.costs, Cost{Path: name, Multiplier: m, Total: total})
	return total, nil
}

func (s *scorer) spread(spread *ast.FragmentSpread, path string) (int, error) {
	if cost, ok := s.fragments[spread.Name]; ok {
		return cost, nil
	}
	def := s.doc.Fragments.ForName(spread.Name)
	if def == nil {
		return 0, fmt.Errorf("query spreads fragment %q, which it does not define; define it or remove ...%s", spread.Name, spread.Name)
	}
	if s.active[spread.Name] {
		return 0, fmt.Errorf("fragment %q spreads itself, directly or through other fragments; GraphQL forbids fragment cycles", spread.Name)
	}
	s.active[spread.Name] = true
	cost, err := s.selectionSet(def.SelectionSet, path)
	delete(s.active, spread.Name)
	if err != nil {
		return 0, err
	}
	s.fragments[spread.Name] = cost
	return cost, nil
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
