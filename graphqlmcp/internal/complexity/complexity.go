// Package complexity prices a GraphQL operation before it is sent, so that a
// server can refuse operations that would fetch too much.
//
// The price of an operation is the number of list items it can return,
// each list nested in other lists counted once per enclosing item (the model
// GitHub documents for its node limit), and at least 1. A list's size is the
// largest of its slicing arguments (first, last, limit, ..., and size when
// the schema says the field is a list; a negative one by its magnitude),
// else its schema default, else, for a list that takes no slicing argument, the
// number of ids it is given (nodes(ids: [...])), or of other scalars or of
// those inside an input object (where: {ids: [...]}) when more than
// AssumedListSize (they may filter), else AssumedListSize; each list's
// Cost says which. A Relay connection (an
// object with edges or nodes) takes its size from its own slicing argument;
// its edges, nodes and lists of its node type that take no argument
// (FriendsConnection.friends) carry that size without multiplying again,
// and its other fields, lists that take arguments of their own included,
// are its own, counted once per connection. Singular objects and scalars count
// nothing, but an operation may select at most MaxSelections fields.
//
// With the endpoint's schema, a field is a list when its type is one.
// Without it, a field is a list when it has a slicing argument.
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

	"github.com/mcpforge/servers/shared/mcptool"
)

// MaxDepth is the deepest selection nesting an operation may have. Real
// operations nest a dozen levels; deeper ones are refused before pricing.
const MaxDepth = 100

// MaxSelections is the most field selections an operation may make, after
// fragments are expanded and aliases included, so that a flood of aliases
// of one cheap field is refused.
const MaxSelections = 1000

// AssumedListSize is the size of a list whose size no argument or default
// gives.
const AssumedListSize = 10

// Sizing says where a list's size comes from, so that a refusal can say
// which sizes the operation chose and which were assumed.
type Sizing int

const (
	// SizeGiven is a slicing argument the operation gives (first: 50).
	SizeGiven Sizing = iota
	// SizeDefault is the schema's default of a slicing argument.
	SizeDefault
	// SizeListLength is the length of the lists of scalars given to a list
	// that takes no slicing argument (nodes(ids: ["a", "b"])).
	SizeListLength
	// SizeSchemaCount is an introspection list's, counted in the schema.
	SizeSchemaCount
	// SizeAssumed is AssumedListSize: nothing in the operation or the
	// schema gives the size.
	SizeAssumed
)

// Cost is what one list contributes, its sublists included.
type Cost struct {
	Path   string // response path, dotted: "viewer.repositories"
	Size   int    // its size per enclosing item
	Items  int    // the items it and its sublists can return
	Sizing Sizing // where Size comes from
	// Argument is the argument that gives Size ("first",
	// "pagination.pageSize", "ids"); for SizeAssumed, the slicing arguments
	// the field takes and was not given ("first/last"), "" when it takes
	// none.
	Argument string
}

// Result is an operation's price.
type Result struct {
	Score int
	// Costliest are the lists that contribute most, costliest first (at
	// most 5).
	Costliest []Cost
}

// TooDeepError reports an operation nested deeper than MaxDepth.
type TooDeepError struct{ Depth int }

func (e *TooDeepError) Error() string {
	return fmt.Sprintf("query nests selections more than %d levels deep (at least %d), so it was not priced or sent; "+
		"real operations need far fewer: flatten it, or split it into several queries", MaxDepth, e.Depth)
}

// TooManySelectionsError reports an operation that selects more than
// MaxSelections fields.
type TooManySelectionsError struct{}

func (e *TooManySelectionsError) Error() string {
	return fmt.Sprintf("query selects more than %d fields once its fragments are expanded (aliases included), so it was not sent: "+
		"select fewer fields, or split it into several queries", MaxSelections)
}

// Score prices op from doc, reading variable values from vars and falling
// back to the variables' defaults. schema, when not nil, tells which fields
// are lists and gives arguments' defaults. Its time and memory are linear in
// the size of the document: a fragment is walked once per context, and a
// path is built only for the few costliest lists.
func Score(doc *ast.QueryDocument, op *ast.OperationDefinition, vars map[string]any, schema *ast.Schema) (Result, error) {
	s := &scorer{doc: doc, op: op, vars: vars, schema: schema, fragments: map[fragmentKey]cost{}, active: map[string]bool{}, counted: map[*ast.Definition]counts{},
		fieldFacts: map[*ast.FieldDefinition]*fieldFacts{}, inputFacts: map[*ast.Definition]*inputFacts{}}
	c, err := s.selectionSet(op.SelectionSet, scope{typ: s.rootType(), parent: -1, outer: 1})
	if err != nil {
		return Result{}, err
	}
	return Result{Score: max(1, c.items), Costliest: s.costliest(5)}, nil
}

type scorer struct {
	doc    *ast.QueryDocument
	op     *ast.OperationDefinition
	vars   map[string]any
	schema *ast.Schema
	// fragments memoises each fragment's cost per context: a spread
	// counts at every use, but a fragment is walked once per context, so
	// nested reuse cannot make pricing itself exponential.
	fragments  map[fragmentKey]cost
	active     map[string]bool // fragments being walked, to find cycles
	selections int
	// introspected is the type __type(name: "X") names, while its
	// selection is walked; its lists are priced by X's own counts.
	introspected *ast.Definition
	// most holds the largest counts of the schema's types, computed for
	// the first introspection list priced without a named type.
	most    *counts
	counted map[*ast.Definition]counts // countsOf's, per type
	// fieldFacts and inputFacts are factsOf's and inputFactsOf's.
	fieldFacts map[*ast.FieldDefinition]*fieldFacts
	inputFacts map[*ast.Definition]*inputFacts
	// fields records every field walked with the index of its parent field
	// (-1 at the root), from which a list's path is built on demand.
	fields []walkedField
	lists  []pricedList
}

type walkedField struct {
	name   string // alias, else name
	parent int
}

// connectionKind tells how a selection set under a list or connection is
// counted.
type connectionKind int8

const (
	// notConnection: a list's items, or no list at all; every field counts
	// per item.
	notConnection connectionKind = iota
	// knownConnection: the schema says the field's type is a connection.
	// Its edges, nodes and lists of its node type are its items; its other
	// fields (pageInfo, counts by state) are its own, once per connection.
	knownConnection
	// guessedConnection: a field with a slicing argument, without a schema.
	// Its edges and nodes are its items; as it may be a plain list, every
	// other field counts per item too.
	guessedConnection
)

// scope is where a selection set is walked.
type scope struct {
	typ        *ast.Definition // the type it selects on; nil when unknown
	connection connectionKind
	parent     int // index of the enclosing field, -1 at the root
	outer      int // the items enclosing each item the set selects, for the costliest lists' whole counts
	ownOuter   int // in a connection's selection, the items enclosing the connection itself
	level      int
}

// cost is what a selection set costs per enclosing item.
type cost struct {
	items int
	// own is, in a known connection's selection, the items of the
	// connection's own fields, counted once per connection, not per item.
	own               int
	depth, selections int
}

// fragmentKey is a fragment in a context: under a connection, its edges
// and nodes carry the connection's size, and under __type(name: "X"), its
// introspection lists are X's.
type fragmentKey struct {
	name         string
	connection   connectionKind
	introspected *ast.Definition
}

type pricedList struct {
	field int // index in fields
	size  sizing
	items int
}

func (s *scorer) rootType() *ast.Definition {
	if s.schema == nil {
		return nil
	}
	switch s.op.Operation {
	case ast.Mutation:
		return s.schema.Mutation
	case ast.Subscription:
		return s.schema.Subscription
	}
	return s.schema.Query
}

// selectionSet prices set in sc. It returns the items per enclosing item
// (and a connection's own), the depth and the selections made.
func (s *scorer) selectionSet(set ast.SelectionSet, sc scope) (cost, error) {
	if sc.level >= MaxDepth && len(set) > 0 {
		return cost{}, &TooDeepError{Depth: sc.level + 1}
	}
	var total cost
	for _, sel := range set {
		var c cost
		var err error
		switch sel := sel.(type) {
		case *ast.Field:
			if s.skipped(sel.Directives) {
				continue
			}
			c, err = s.field(sel, sc)
		case *ast.InlineFragment:
			if s.skipped(sel.Directives) {
				continue
			}
			inner := sc
			inner.typ = s.typeNamed(sel.TypeCondition, sc.typ)
			c, err = s.selectionSet(sel.SelectionSet, inner)
		case *ast.FragmentSpread:
			if s.skipped(sel.Directives) {
				continue
			}
			c, err = s.spread(sel, sc)
		}
		if err != nil {
			return cost{}, err
		}
		total = cost{items: add(total.items, c.items), own: add(total.own, c.own), depth: max(total.depth, c.depth), selections: add(total.selections, c.selections)}
	}
	return total, nil
}

func (s *scorer) field(f *ast.Field, sc scope) (cost, error) {
	s.selections++
	if s.selections > MaxSelections {
		return cost{}, &TooManySelectionsError{}
	}
	if f.Name == "__typename" {
		return cost{depth: 1, selections: 1}, nil
	}
	if strings.HasPrefix(f.Name, "__") && s.schema == nil {
		return cost{}, fmt.Errorf("query selects %s, an introspection field, whose answer (megabytes on a large API) cannot be priced without the endpoint's schema, "+
			"so it was not sent: read the schema with graphql_introspect instead (types: [\"Name\"] for definitions, search: \"word\" to find names)", f.Name)
	}
	name := f.Alias
	if name == "" {
		name = f.Name
	}
	idx := len(s.fields)
	s.fields = append(s.fields, walkedField{name: name, parent: sc.parent})
	def, fieldType := s.fieldDefinition(sc.typ, f.Name)
	size := s.size(f, def)
	if sc.typ != nil && strings.HasPrefix(sc.typ.Name, "__") {
		size = s.introspectionSize(sc.typ.Name, f.Name)
	}
	if fieldType != nil && fieldType.Name == "__Type" {
		// The lists under __type(name: "X") are X's own, and its fields'
		// arguments are theirs; any other type met below is unknown.
		outerType := s.introspected
		s.introspected = nil
		if f.Name == "__type" {
			s.introspected = s.typeNamed(s.stringArgument(f, "name"), nil)
		}
		defer func() { s.introspected = outerType }()
	}
	carried := s.carried(f, def, sc)
	// A known connection's own field counts once per connection, so it is
	// enclosed by the connection's enclosing items, not its items.
	own := sc.connection == knownConnection && !carried
	outer := sc.outer
	if own {
		outer = sc.ownOuter
	}
	isList, connection := false, notConnection
	switch {
	case carried: // the connection counted these items
	case def != nil && isListType(def.Type):
		isList = true
	case def != nil:
		if isConnection(fieldType) {
			connection = knownConnection
		}
	case size.how == SizeGiven: // no schema: a field with a slicing argument is a list, connection or not
		connection = guessedConnection
	}
	var c cost
	if !isList && connection == notConnection {
		children, err := s.selectionSet(f.SelectionSet, scope{typ: fieldType, parent: idx, outer: outer, level: sc.level + 1})
		if err != nil {
			return cost{}, err
		}
		c = children
	} else {
		// A list or a connection: size items per enclosing item.
		list := len(s.lists)
		s.lists = append(s.lists, pricedList{field: idx, size: size})
		children, err := s.selectionSet(f.SelectionSet, scope{typ: fieldType, connection: connection, parent: idx, outer: mul(outer, size.n), ownOuter: outer, level: sc.level + 1})
		if err != nil {
			return cost{}, err
		}
		c = cost{items: add(add(size.n, mul(size.n, children.items)), children.own), depth: children.depth, selections: children.selections}
		s.lists[list].items = mul(outer, c.items)
	}
	c.depth++
	c.selections++
	if own {
		c.own, c.items = add(c.own, c.items), 0
	}
	return c, nil
}

// carried reports a field of a connection's selection that returns the
// connection's items: its edges, its nodes, and, when the schema is known,
// a list of its node type beside them that takes no argument
// (FriendsConnection.friends). A field that takes a slicing argument sizes
// itself, and a list of the node type that takes any argument
// (admins(first:), blocked(status:)) may be another list than the page, so
// each is priced as a list of its own: counting it at the connection's
// size would let first: 1 price a thousand admins as one.
func (s *scorer) carried(f *ast.Field, def *ast.FieldDefinition, sc scope) bool {
	switch {
	case sc.connection == notConnection:
		return false
	case def != nil && s.factsOf(def).takes != "",
		def == nil && slices.ContainsFunc(f.Arguments, func(arg *ast.Argument) bool { return isSlicingArgument(arg.Name) }):
		return false
	case f.Name == "edges" || f.Name == "nodes":
		return true
	case sc.connection != knownConnection || def == nil || !isListType(def.Type) || len(def.Arguments) > 0:
		return false
	}
	node := s.nodeType(sc.typ)
	return node != "" && def.Type.Name() == node
}

// nodeType names the type of a connection's items: its nodes' type, else
// its edges' node's type; "" when it has neither.
func (s *scorer) nodeType(connection *ast.Definition) string {
	if connection == nil {
		return ""
	}
	if nodes := connection.Fields.ForName("nodes"); nodes != nil {
		return nodes.Type.Name()
	}
	edges := connection.Fields.ForName("edges")
	if edges == nil {
		return ""
	}
	if edge := s.schema.Types[edges.Type.Name()]; edge != nil {
		if node := edge.Fields.ForName("node"); node != nil {
			return node.Type.Name()
		}
	}
	return ""
}

func (s *scorer) spread(spread *ast.FragmentSpread, sc scope) (cost, error) {
	key := fragmentKey{spread.Name, sc.connection, s.introspected}
	if memo, ok := s.fragments[key]; ok {
		if sc.level+memo.depth > MaxDepth {
			return cost{}, &TooDeepError{Depth: sc.level + memo.depth}
		}
		s.selections = add(s.selections, memo.selections)
		if s.selections > MaxSelections {
			return cost{}, &TooManySelectionsError{}
		}
		return memo, nil
	}
	def := s.doc.Fragments.ForName(spread.Name)
	if def == nil {
		return cost{}, fmt.Errorf("query spreads fragment %s, which it does not define; define it or remove the spread of it", mcptool.Quote(spread.Name))
	}
	if s.active[spread.Name] {
		return cost{}, fmt.Errorf("fragment %s spreads itself, directly or through other fragments; GraphQL forbids fragment cycles", mcptool.Quote(spread.Name))
	}
	s.active[spread.Name] = true
	inner := sc
	inner.typ = s.typeNamed(def.TypeCondition, sc.typ)
	c, err := s.selectionSet(def.SelectionSet, inner)
	delete(s.active, spread.Name)
	if err != nil {
		return cost{}, err
	}
	s.fragments[key] = c
	return c, nil
}

// fieldDefinition returns the schema's definition of field name on
// parentType and the definition of its named type; nils when either is
// unknown.
func (s *scorer) fieldDefinition(parentType *ast.Definition, name string) (*ast.FieldDefinition, *ast.Definition) {
	if s.schema == nil || parentType == nil {
		return nil, nil
	}
	def := parentType.Fields.ForName(name)
	if def == nil {
		return nil, nil
	}
	return def, s.schema.Types[def.Type.Name()]
}

func (s *scorer) typeNamed(name string, otherwise *ast.Definition) *ast.Definition {
	if s.schema == nil || name == "" {
		return otherwise
	}
	return s.schema.Types[name]
}

func isListType(t *ast.Type) bool { return t != nil && t.Elem != nil }

// isConnection reports a Relay connection type: an object or interface
// with edges or nodes.
func isConnection(def *ast.Definition) bool {
	if def == nil || (def.Kind != ast.Object && def.Kind != ast.Interface) {
		return false
	}
	return def.Fields.ForName("edges") != nil || def.Fields.ForName("nodes") != nil
}

// isSlicingArgument reports the argument names that give a list's size.
func isSlicingArgument(name string) bool {
	switch name {
	case "first", "last", "limit", "take", "top", "pageSize", "perPage", "per_page", "count":
		return true
	}
	return false
}

// isListSizeArgument reports the names that give the size of a field the
// schema says is a list or connection: the slicing arguments, and size
// (Artsy's artworks(size: 100)). Without the schema, size does not make a
// field a list, as it sizes images (avatarUrl(size: 400)) more often.
func isListSizeArgument(name string) bool {
	return isSlicingArgument(name) || name == "size"
}

// sizing is a list's size and where it comes from.
type sizing struct {
	n        int
	how      Sizing
	argument string // see Cost.Argument
}

// size is the largest of f's slicing arguments (also one level inside an
// input object: pagination: {pageSize: 100}), else the largest slicing
// argument's default in the schema, else, for a list that takes no slicing
// argument, the length of the lists of scalars it is given (see
// listArguments), else AssumedListSize.
func (s *scorer) size(f *ast.Field, def *ast.FieldDefinition) sizing {
	best := sizing{n: -1, how: SizeGiven}
	slicing := isSlicingArgument
	if def != nil {
		slicing = isListSizeArgument
	}
	consider := func(name string, n int) {
		// Ties go to the first name in byte order, so that a variable's
		// members, read in random order, name the same one every time.
		if n > best.n || (n == best.n && name < best.argument) {
			best.n, best.argument = n, name
		}
	}
	for _, arg := range f.Arguments {
		if n, ok := s.intValue(arg.Value); ok && slicing(arg.Name) {
			consider(arg.Name, n)
		}
		literal, value, ok := s.resolve(arg.Value)
		switch {
		case !ok:
		case literal != nil && literal.Kind == ast.ObjectValue:
			for _, child := range literal.Children {
				if n, ok := s.intValue(child.Value); ok && slicing(child.Name) {
					consider(arg.Name+"."+child.Name, n)
				}
			}
		case literal == nil:
			if object, isObject := value.(map[string]any); isObject {
				for name, v := range object {
					if n, ok := intOf(v); ok && slicing(name) {
						consider(arg.Name+"."+name, n)
					}
				}
			}
		}
	}
	if best.n >= 0 {
		best.n = max(0, best.n)
		return best
	}
	if def == nil {
		return sizing{n: AssumedListSize, how: SizeAssumed}
	}
	facts := s.factsOf(def)
	best.how = SizeDefault
	for _, arg := range facts.sizeArguments {
		if n, ok := intDefault(arg.DefaultValue); ok {
			consider(arg.Name, n)
		}
	}
	for _, arg := range facts.inputArguments {
		s.inputObjectDefaults(f, arg, consider)
	}
	if best.n >= 0 {
		best.n = max(0, best.n)
		return best
	}
	if facts.takes == "" && isListType(def.Type) {
		if n, names, exact := s.listArguments(f, facts); n > 0 && (exact || n > AssumedListSize) {
			return sizing{n: n, how: SizeListLength, argument: names}
		}
	}
	return sizing{n: AssumedListSize, how: SizeAssumed, argument: facts.takes}
}

// fieldFacts is what a field definition's arguments say about its size,
// found once per pricing: a hostile schema's field may take thousands of
// arguments, of input types of thousands of fields, and a query may
// select it a thousand times.
type fieldFacts struct {
	sizeArguments  []*ast.ArgumentDefinition // named as a slicing argument
	inputArguments []inputArgument           // of input types with size fields or lists of scalars
	listArguments  []*ast.ArgumentDefinition // lists of scalars
	// takes names the slicing arguments it takes, "/" between them
	// ("first/last", "pagination.pageSize"), for SizeAssumed.
	takes string
}

type inputArgument struct {
	*ast.ArgumentDefinition
	*inputFacts
}

// inputFacts is what an input object type says about sizes.
type inputFacts struct {
	sizeFields []*ast.FieldDefinition // named as a slicing argument: at most ten
	lists      map[string]bool        // its lists of scalars, by name
}

func (s *scorer) factsOf(def *ast.FieldDefinition) *fieldFacts {
	if facts, ok := s.fieldFacts[def]; ok {
		return facts
	}
	facts := &fieldFacts{}
	var takes []string
	for _, arg := range def.Arguments {
		switch input := s.inputFactsOf(arg.Type); {
		case isListSizeArgument(arg.Name):
			facts.sizeArguments = append(facts.sizeArguments, arg)
			takes = append(takes, arg.Name)
		case s.isScalarList(arg.Type):
			facts.listArguments = append(facts.listArguments, arg)
		case input != nil && (len(input.sizeFields) > 0 || len(input.lists) > 0):
			facts.inputArguments = append(facts.inputArguments, inputArgument{arg, input})
			for _, field := range input.sizeFields {
				takes = append(takes, arg.Name+"."+field.Name)
			}
		}
	}
	facts.takes = strings.Join(takes, "/")
	s.fieldFacts[def] = facts
	return facts
}

// inputFactsOf returns the facts of t's input object type, nil when t is
// a list or not an input object.
func (s *scorer) inputFactsOf(t *ast.Type) *inputFacts {
	input := s.schema.Types[t.Name()]
	if isListType(t) || input == nil || input.Kind != ast.InputObject {
		return nil
	}
	if facts, ok := s.inputFacts[input]; ok {
		return facts
	}
	facts := &inputFacts{lists: map[string]bool{}}
	for _, field := range input.Fields {
		if isListSizeArgument(field.Name) {
			facts.sizeFields = append(facts.sizeFields, field)
		}
		if s.isScalarList(field.Type) {
			facts.lists[field.Name] = true
		}
	}
	s.inputFacts[input] = facts
	return facts
}

// inputObjectDefaults considers the sizes that defaults give through an
// input object argument: the object the argument defaults to when it is
// not given (pagination: Page = {pageSize: 50}), and the defaults of the
// input type's slicing fields that the object used leaves out (input Page
// { pageSize: Int = 50 }). A null or absent object has no fields, so its
// type's defaults do not apply.
func (s *scorer) inputObjectDefaults(f *ast.Field, arg inputArgument, consider func(string, int)) {
	var present func(name string) bool
	if given := f.Arguments.ForName(arg.Name); given != nil {
		literal, value, ok := s.resolve(given.Value)
		switch {
		case !ok:
		case literal != nil && literal.Kind == ast.ObjectValue:
			// A field whose variable has no value is left out, as if not
			// written, and takes its default (CoerceInputValues).
			present = func(name string) bool { _, _, ok := s.resolve(literal.Children.ForName(name)); return ok }
		case literal == nil:
			if object, isObject := value.(map[string]any); isObject {
				present = func(name string) bool { _, ok := object[name]; return ok }
			}
		}
	} else if object := arg.DefaultValue; object != nil && object.Kind == ast.ObjectValue {
		for _, field := range arg.sizeFields {
			if n, ok := intDefault(object.Children.ForName(field.Name)); ok {
				consider(arg.Name+"."+field.Name, n)
			}
		}
		present = func(name string) bool { return object.Children.ForName(name) != nil }
	}
	if present == nil {
		return
	}
	for _, field := range arg.sizeFields {
		if present(field.Name) {
			continue
		}
		if n, ok := intDefault(field.DefaultValue); ok {
			consider(arg.Name+"."+field.Name, n)
		}
	}
}

// intDefault reads the size an integer literal gives: its magnitude (see
// intOf), saturated.
func intDefault(v *ast.Value) (int, bool) {
	if v == nil || v.Kind != ast.IntValue {
		return 0, false
	}
	n, err := strconv.ParseInt(v.Raw, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange), n == math.MinInt64:
		return math.MaxInt, true
	case err != nil:
		return 0, false
	}
	return int(max(n, -n)), true
}

// listArguments sums the lengths of the lists of scalars f gives to
// arguments that take them (ids: ["a", "b"], directly, through a variable
// or by the argument's default), and to the fields of input object
// arguments that take them (where: {ids: [...]}), and names those
// arguments. A list field with no slicing argument that is handed ids looks
// its items up by them, one item each, as nodes(ids:) does, so their count
// is its size. Other scalars (names, labels), and any list inside an input
// object, may filter, one matching many, so with any of them the sum is
// only a lower bound (exact is false). An empty list gives nothing: a
// filter of none is often no filter at all. Lists of enum values or input
// objects filter by kind and are not read.
func (s *scorer) listArguments(f *ast.Field, facts *fieldFacts) (n int, names string, exact bool) {
	var given []string
	exact = true
	count := func(name string, length int, ok, lookup bool) {
		if ok && length > 0 {
			n = add(n, length)
			given = append(given, name)
			exact = exact && lookup
		}
	}
	valueOf := func(arg *ast.ArgumentDefinition) *ast.Value {
		if given := f.Arguments.ForName(arg.Name); given != nil {
			return given.Value
		}
		return arg.DefaultValue
	}
	for _, arg := range facts.listArguments {
		length, ok := s.listLength(valueOf(arg))
		count(arg.Name, length, ok, arg.Type.Elem.Name() == "ID")
	}
	for _, arg := range facts.inputArguments {
		// The object's own members are walked, not the input type's
		// fields, which a hostile schema may have by the thousand; their
		// names are sorted, as a variable's come in random order.
		var lists []string
		lengths := map[string]int{}
		literal, object, _ := s.resolve(valueOf(arg.ArgumentDefinition))
		switch {
		case literal != nil && literal.Kind == ast.ObjectValue:
			for _, child := range literal.Children {
				if length, ok := s.listLength(child.Value); ok && arg.lists[child.Name] {
					lists, lengths[child.Name] = append(lists, child.Name), length
				}
			}
		case literal == nil:
			object, _ := object.(map[string]any)
			for name, v := range object {
				if length, ok := lengthOf(v); ok && arg.lists[name] {
					lists, lengths[name] = append(lists, name), length
				}
			}
		}
		slices.Sort(lists)
		for _, name := range lists {
			count(arg.Name+"."+name, lengths[name], true, false)
		}
	}
	return n, strings.Join(given, "+"), exact
}

// isScalarList reports a list of scalars (not a list of lists).
func (s *scorer) isScalarList(t *ast.Type) bool {
	if !isListType(t) || isListType(t.Elem) {
		return false
	}
	item := s.schema.Types[t.Elem.Name()]
	return item != nil && item.Kind == ast.Scalar
}

// listLength is the length of a list argument's value; a single value is
// a list of one (GraphQL's input coercion), and null or an absent variable
// gives nothing.
func (s *scorer) listLength(v *ast.Value) (int, bool) {
	literal, given, ok := s.resolve(v)
	switch {
	case !ok:
		return 0, false
	case literal == nil:
		return lengthOf(given)
	case literal.Kind == ast.NullValue:
		return 0, false
	case literal.Kind == ast.ListValue:
		return len(literal.Children), true
	}
	return 1, true
}

// lengthOf is listLength's for a decoded JSON variable value.
func lengthOf(v any) (int, bool) {
	switch v := v.(type) {
	case nil:
		return 0, false
	case []any:
		return len(v), true
	}
	return 1, true
}

// counts are the sizes of a type's introspection lists.
type counts struct{ fields, interfaces, possibleTypes, enumValues, inputFields, args, locations int }

// countsOf counts def's introspection lists once per call of Score: a
// query may select them a thousand times, on a type of many fields.
func (s *scorer) countsOf(def *ast.Definition) counts {
	if c, ok := s.counted[def]; ok {
		return c
	}
	c := counts{interfaces: len(def.Interfaces), possibleTypes: len(s.schema.PossibleTypes[def.Name]), enumValues: len(def.EnumValues)}
	if def.Kind == ast.InputObject {
		c.inputFields = len(def.Fields)
	} else {
		for _, f := range def.Fields {
			if !strings.HasPrefix(f.Name, "__") {
				c.fields++
			}
			c.args = max(c.args, len(f.Arguments))
		}
	}
	s.counted[def] = c
	return c
}

// introspectionSize prices the lists of the introspection types by what
// they return: the schema's types and directives, and a type's fields,
// values or members (the named type's under __type(name:), else the
// largest any type has), and a directive's locations (the most any has).
func (s *scorer) introspectionSize(owner, field string) sizing {
	counted := func(n int) sizing { return sizing{n: n, how: SizeSchemaCount} }
	switch owner + "." + field {
	case "__Schema.types":
		return counted(len(s.schema.Types))
	case "__Schema.directives":
		return counted(len(s.schema.Directives))
	case "__Directive.locations":
		return counted(s.largest().locations)
	}
	c := s.largest()
	if s.introspected != nil && (owner == "__Type" || owner == "__Field") {
		c = s.countsOf(s.introspected)
	}
	switch field {
	case "fields":
		return counted(c.fields)
	case "interfaces":
		return counted(c.interfaces)
	case "possibleTypes":
		return counted(c.possibleTypes)
	case "enumValues":
		return counted(c.enumValues)
	case "inputFields":
		return counted(c.inputFields)
	case "args":
		return counted(c.args)
	}
	return sizing{n: AssumedListSize, how: SizeAssumed}
}

func (s *scorer) largest() counts {
	if s.most == nil {
		most := counts{}
		for _, def := range s.schema.Types {
			c := s.countsOf(def)
			most = counts{max(most.fields, c.fields), max(most.interfaces, c.interfaces), max(most.possibleTypes, c.possibleTypes),
				max(most.enumValues, c.enumValues), max(most.inputFields, c.inputFields), max(most.args, c.args), 0}
		}
		for _, d := range s.schema.Directives {
			most.args = max(most.args, len(d.Arguments))
			most.locations = max(most.locations, len(d.Locations))
		}
		s.most = &most
	}
	return *s.most
}

// stringArgument is the value of f's string argument name, from a literal
// or the call's variables; "" when it has none.
func (s *scorer) stringArgument(f *ast.Field, name string) string {
	arg := f.Arguments.ForName(name)
	if arg == nil {
		return ""
	}
	literal, given, ok := s.resolve(arg.Value)
	switch {
	case !ok:
		return ""
	case literal != nil:
		return literal.Raw
	}
	text, _ := given.(string)
	return text
}

// maxTies bounds how many lists tied with the n-th costliest are compared
// by path, so that a document of thousands of equal lists stays cheap.
const maxTies = 1000

// costliest returns the n costliest lists, ties broken by path, building
// paths only for the candidates.
func (s *scorer) costliest(n int) []Cost {
	order := make([]int, len(s.lists))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(s.lists[b].items, s.lists[a].items) })
	candidates := order
	if len(order) > n {
		cut := n
		for cut < len(order) && cut < n+maxTies && s.lists[order[cut]].items == s.lists[order[n-1]].items {
			cut++
		}
		candidates = order[:cut]
	}
	costs := make([]Cost, len(candidates))
	for i, idx := range candidates {
		l := s.lists[idx]
		costs[i] = Cost{Path: s.path(l.field), Size: l.size.n, Items: l.items, Sizing: l.size.how, Argument: l.size.argument}
	}
	slices.SortStableFunc(costs, func(a, b Cost) int {
		return cmp.Or(cmp.Compare(b.Items, a.Items), strings.Compare(a.Path, b.Path))
	})
	return costs[:min(len(costs), n)]
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
		return intDefault(literal)
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

// intOf reads the size an integer in a decoded JSON variable value gives:
// its magnitude, as a negative size may count from the end (Prisma's take:
// -1000) and a server that refuses it loses nothing by the count.
func intOf(v any) (int, bool) {
	var f float64
	switch v := v.(type) {
	case int:
		f = float64(v)
	case int64:
		f = float64(v)
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
	if f != math.Trunc(f) { // NaN too
		return 0, false
	}
	if f = math.Abs(f); f >= math.MaxInt64 {
		return math.MaxInt, true
	}
	return int(f), true
}

// add and mul saturate at math.MaxInt instead of overflowing; their
// operands are never negative.
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
