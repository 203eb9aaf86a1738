package operation

import (
	"fmt"

	"github.com/vektah/gqlparser/v2/ast"
)

// The bounds a document must keep before any validation rule sees it.
// gqlparser's rules are not cancellable, and some do work that grows faster
// than the document: OverlappingFieldsCanBeMerged compares every pair of
// fields that share a response name (3,000 "x:" aliases in 35 KB made
// millions of conflicts, 1.5 GiB), and every fragment spread brings its
// fields into the comparison again. Under these bounds every rule's work
// stays small, whatever the text (BenchmarkWorstDocuments in
// graphqlmcp/internal/tools measures the worst shapes they let through).
const (
	// MaxQueryBytes is the longest query text accepted.
	MaxQueryBytes = 256 << 10
	// MaxTokens bounds the parser's work: names, punctuation and values.
	MaxTokens = 100_000
	// MaxFields is the most field selections a document's operation may
	// make, once every fragment spread is expanded where it is spread.
	MaxFields = 1000
	// MaxSameName is the most fields one selection set may give one
	// response name, counting those its fragments and inline fragments
	// bring in: each pair of them is compared.
	MaxSameName = 100
	// MaxAliases is the most aliased fields, fragments expanded.
	MaxAliases = 500
	// MaxDepth is the deepest nesting of selections, through fragments.
	MaxDepth = 100
	// MaxArguments is the most arguments one field or directive may have,
	// and MaxAllArguments the most in all, fragments expanded: comparing
	// two fields of one name compares each argument of one with each of
	// the other's.
	MaxArguments    = 100
	MaxAllArguments = 2000
	// MaxSpreads is the most fragment spreads, each counted wherever its
	// fragment is spread: the rules follow every spread.
	MaxSpreads = 1000
	// MaxSelectionSpreads is the most fragments one selection set may
	// spread, through its inline fragments and the fragments they spread:
	// the overlap rule compares every pair of them.
	MaxSelectionSpreads = 100
	// maxSteps bounds checkBounds' own work, whatever the shape of the
	// document's fragments: well over what any document within the other
	// bounds needs.
	maxSteps = 200_000
)

// BoundsError is a document outside one of the bounds. Limit names the
// bound ("fields", "aliases", …) for tests and logs.
type BoundsError struct {
	Limit   string
	message string
}

func (e *BoundsError) Error() string { return e.message }

func boundsError(limit, format string, args ...any) error {
	return &BoundsError{Limit: limit, message: fmt.Sprintf(format, args...) +
		"; it was not checked or sent: split it into several smaller operations"}
}

// checkBounds walks what is sent, op and the fragments it spreads, and
// refuses it at the first bound it passes. Its own work is bounded: a
// fragment's counts are computed once and added at each spread, so that
// fragments spreading fragments cannot make the walk exponential, a cycle
// (which the validator reports) is not followed, and every step counts
// against maxSteps.
func checkBounds(doc *ast.QueryDocument, op *ast.OperationDefinition) error {
	b := &bounder{fragments: map[string]*ast.FragmentDefinition{}, memo: map[string]counts{}, active: map[string]bool{}}
	for _, def := range doc.Fragments {
		if _, ok := b.fragments[def.Name]; !ok {
			b.fragments[def.Name] = def
		}
	}
	n, err := b.arguments(op.Directives)
	if err != nil {
		return err
	}
	c, err := b.set(op.SelectionSet, 0)
	if err != nil {
		return err
	}
	return b.check(c.plus(counts{arguments: n}), 0)
}

// counts are what a selection set adds to the operation: its fields and
// aliases, and how many levels of fields it nests.
type counts struct {
	fields, aliases, arguments, spreads, depth int
}

func (c counts) plus(d counts) counts {
	return counts{fields: c.fields + d.fields, aliases: c.aliases + d.aliases, arguments: c.arguments + d.arguments,
		spreads: c.spreads + d.spreads, depth: max(c.depth, d.depth)}
}

type bounder struct {
	// fragments finds a definition by name (ast's ForName scans the
	// list: with thousands of fragments, a walk that looks each up
	// becomes quadratic).
	fragments map[string]*ast.FragmentDefinition
	memo      map[string]counts // each fragment's counts, once walked
	active    map[string]bool   // the fragments being walked, to stop at a cycle
	steps     int               // the work done, against maxSteps
}

// step counts one unit of checkBounds' work and refuses a document that
// needs more than maxSteps: only one whose fragments spread each other
// over and over can.
func (b *bounder) step() error {
	b.steps++
	if b.steps > maxSteps {
		return spreadsError()
	}
	return nil
}

func spreadsError() error {
	return boundsError("fragment spreads", "query spreads fragments more than %d times (fragment spreads), counting a spread inside a fragment at each spread of that fragment", MaxSpreads)
}

// check refuses c, the counts of what sits level fields deep, when it
// passes a bound. Fields and aliases are checked against the whole
// operation's bound: a part over it makes the whole over it too.
func (b *bounder) check(c counts, level int) error {
	switch {
	case level+c.depth > MaxDepth:
		return boundsError("depth", "query nests selections more than %d levels deep (depth), through fragments too", MaxDepth)
	case c.fields > MaxFields:
		return boundsError("fields", "query selects more than %d fields (fields), counting a fragment's fields at each of its spreads, aliases included", MaxFields)
	case c.aliases > MaxAliases:
		return boundsError("aliases", "query has more than %d aliased fields (aliases), counting a fragment's at each of its spreads", MaxAliases)
	case c.spreads > MaxSpreads:
		return spreadsError()
	case c.arguments > MaxAllArguments:
		return boundsError("arguments", "query passes more than %d arguments in all (arguments), to fields and directives, counting a fragment's at each of its spreads", MaxAllArguments)
	}
	return nil
}

// set counts set, whose fields sit level fields deep, and refuses a
// response name given too often in it.
func (b *bounder) set(set ast.SelectionSet, level int) (counts, error) {
	if level >= MaxDepth && len(set) > 0 {
		return counts{}, b.check(counts{depth: 1}, level)
	}
	spread := map[string]bool{}
	if err := b.names(set, map[string]int{}, spread); err != nil {
		return counts{}, err
	}
	if len(spread) > MaxSelectionSpreads {
		return counts{}, boundsError("fragment spreads per selection", "query spreads more than %d fragments into one selection (fragment spreads per selection), counting those its fragments spread", MaxSelectionSpreads)
	}
	var total counts
	for _, sel := range set {
		if err := b.step(); err != nil {
			return counts{}, err
		}
		var c counts
		var err error
		switch sel := sel.(type) {
		case *ast.Field:
			c, err = b.field(sel, level)
		case *ast.InlineFragment:
			var n int
			if n, err = b.arguments(sel.Directives); err == nil {
				c, err = b.set(sel.SelectionSet, level)
				c.arguments += n
			}
		case *ast.FragmentSpread:
			c, err = b.spread(sel, level)
		}
		if err != nil {
			return counts{}, err
		}
		total = total.plus(c)
		if err := b.check(total, level); err != nil {
			return counts{}, err
		}
	}
	return total, nil
}

func (b *bounder) field(f *ast.Field, level int) (counts, error) {
	if len(f.Arguments) > MaxArguments {
		return counts{}, boundsError("arguments", "field %s has more than %d arguments (arguments)", shortName(f.Name), MaxArguments)
	}
	n, err := b.arguments(f.Directives)
	if err != nil {
		return counts{}, err
	}
	inner, err := b.set(f.SelectionSet, level+1)
	if err != nil {
		return counts{}, err
	}
	c := counts{fields: 1 + inner.fields, aliases: inner.aliases, arguments: len(f.Arguments) + n + inner.arguments, spreads: inner.spreads, depth: 1 + inner.depth}
	if f.Alias != "" && f.Alias != f.Name {
		c.aliases++
	}
	return c, nil
}

func (b *bounder) spread(s *ast.FragmentSpread, level int) (counts, error) {
	n, err := b.arguments(s.Directives)
	if err != nil {
		return counts{}, err
	}
	if c, ok := b.memo[s.Name]; ok {
		c.arguments += n
		c.spreads++
		return c, b.check(c, level)
	}
	def := b.fragments[s.Name]
	if def == nil || b.active[s.Name] {
		return counts{arguments: n, spreads: 1}, nil // the validator names the missing fragment, or the cycle
	}
	defined, err := b.arguments(def.Directives)
	if err != nil {
		return counts{}, err
	}
	b.active[s.Name] = true
	c, err := b.set(def.SelectionSet, level)
	delete(b.active, s.Name)
	if err != nil {
		return counts{}, err
	}
	c.arguments += defined
	b.memo[s.Name] = c
	c.arguments += n
	c.spreads++
	return c, b.check(c, level)
}

// names counts the response names set gives, through its inline fragments
// and the fragments it spreads (each fragment once, as the validator
// collects them), and refuses one given more than MaxSameName times.
func (b *bounder) names(set ast.SelectionSet, seen map[string]int, spread map[string]bool) error {
	for _, sel := range set {
		if err := b.step(); err != nil {
			return err
		}
		switch sel := sel.(type) {
		case *ast.Field:
			name := sel.Alias
			if name == "" {
				name = sel.Name
			}
			seen[name]++
			if seen[name] > MaxSameName {
				return boundsError("fields per response name", "query gives the response name %q to more than %d fields of one selection (fields per response name), fragments included", shortName(name), MaxSameName)
			}
		case *ast.InlineFragment:
			if err := b.names(sel.SelectionSet, seen, spread); err != nil {
				return err
			}
		case *ast.FragmentSpread:
			if spread[sel.Name] {
				continue
			}
			spread[sel.Name] = true
			if len(spread) > MaxSelectionSpreads {
				return nil // the caller refuses it; no need to walk on
			}
			if def := b.fragments[sel.Name]; def != nil {
				if err := b.names(def.SelectionSet, seen, spread); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// arguments counts the arguments of directives, and refuses too many
// directives, or a directive with too many arguments.
func (b *bounder) arguments(directives ast.DirectiveList) (int, error) {
	if len(directives) > MaxArguments {
		return 0, boundsError("directives", "query puts more than %d directives in one place (directives)", MaxArguments)
	}
	n := 0
	for _, d := range directives {
		if len(d.Arguments) > MaxArguments {
			return 0, boundsError("arguments", "directive @%s has more than %d arguments (arguments)", shortName(d.Name), MaxArguments)
		}
		n += len(d.Arguments)
	}
	return n, nil
}

// shortName is a name as an error shows it: GraphQL names are ASCII, but
// one may be long.
func shortName(name string) string {
	if len(name) > 40 {
		return name[:40] + "…"
	}
	return name
}
