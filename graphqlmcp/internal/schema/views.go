package schema

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// MaxViewBytes is the largest text a view returns: about 25k tokens, under the
// tool-output limits of common assistants.
const MaxViewBytes = 100_000

// maxSearchLines bounds a search answer; a broader term should be narrowed.
const maxSearchLines = 200

// Schema is an endpoint's schema, deprecated members included, with its two
// views: every member, and the default one that hides what is deprecated.
type Schema struct {
	result  *Result
	types   map[string]*fullType
	all     *View
	current *View
	loaded  time.Time // when a schema file was read; zero otherwise
	// pathWeight is what the two views' path indexes will hold, counted
	// ahead: the cache weighs a schema once, when it is put in.
	pathWeight int

	// validator builds, once, the schema as gqlparser's validator takes
	// it, and keeps it with the error of building it.
	validator func() (*ast.Schema, error)
}

// Validator returns the schema, deprecated members included, as gqlparser's
// validator takes it, or why gqlparser cannot load it. It is built from the
// SDL on first use, by the call that needs it (graphql_introspect builds it
// before answering, so that the query after it does not wait), and kept.
func (s *Schema) Validator() (*ast.Schema, error) {
	return s.validator()
}

// loadValidator loads the SDL in gqlparser. A panic of gqlparser's is an
// error: the schema came from an endpoint.
func (s *Schema) loadValidator() (checker *ast.Schema, err error) {
	defer func() {
		if p := recover(); p != nil {
			checker, err = nil, fmt.Errorf("gqlparser failed loading the schema: %v", p)
		}
	}()
	doc, err := parser.ParseSchemas(validator.Prelude, &ast.Source{Name: "schema", Input: s.all.SDL})
	if err != nil {
		return nil, gqlerror.WrapIfUnwrapped(err)
	}
	if err := checkPairs(doc); err != nil {
		return nil, err
	}
	checker, err = validator.ValidateSchemaDocument(doc)
	if err != nil {
		return nil, gqlerror.WrapIfUnwrapped(err)
	}
	return checker, nil
}

// maxValidatorPairs bounds the pairs of members gqlparser compares while
// it loads a schema: each of a type's fields with every other (enum
// values, union members, a field's arguments alike), and an interface's
// fields with each implementing type's. That is quadratic and cannot be
// stopped: an endpoint that answers a type of 100,000 fields would hold a
// call for minutes. The bound is about a second of comparisons; GitHub's
// schema is within it.
const maxValidatorPairs = 50_000_000

// checkPairs refuses a schema whose loading would compare more pairs than
// maxValidatorPairs, naming the largest list.
func checkPairs(doc *ast.SchemaDocument) error {
	pairs, worst, worstPairs := 0, func() string { return "" }, 0
	count := func(n int, label func() string) {
		p := n * (n - 1) / 2
		pairs += p
		if p > worstPairs {
			worst, worstPairs = label, p
		}
	}
	fieldsOf := map[string]int{}
	for _, defs := range []ast.DefinitionList{doc.Definitions, doc.Extensions} {
		for _, def := range defs {
			fieldsOf[def.Name] += len(def.Fields)
		}
	}
	for _, defs := range []ast.DefinitionList{doc.Definitions, doc.Extensions} {
		for _, def := range defs {
			count(len(def.Fields), func() string { return fmt.Sprintf("type %s has %d fields", def.Name, len(def.Fields)) })
			count(len(def.EnumValues), func() string { return fmt.Sprintf("type %s has %d enum values", def.Name, len(def.EnumValues)) })
			count(len(def.Types), func() string { return fmt.Sprintf("union %s has %d members", def.Name, len(def.Types)) })
			for _, field := range def.Fields {
				count(len(field.Arguments), func() string {
					return fmt.Sprintf("field %s.%s has %d arguments", def.Name, field.Name, len(field.Arguments))
				})
			}
			for _, intf := range def.Interfaces {
				pairs += len(def.Fields) * fieldsOf[intf]
			}
		}
	}
	if pairs <= maxValidatorPairs {
		return nil
	}
	return fmt.Errorf("its %s, too many for the validator to check in time (it compares each member with every other: %d comparisons in all here, over the %d it takes)",
		httpx.Snippet([]byte(worst()), 300), pairs, maxValidatorPairs)
}

// View is a schema as one setting of includeDeprecated shows it.
type View struct {
	s    *Schema
	show *filter
	// SDL is the whole schema as SDL.
	SDL string
	// Hidden counts the deprecated members this view leaves out.
	Hidden int
	// paths builds, on the first search, how each type is reached from
	// the roots through the members this view shows, and keeps it.
	paths func() *pathIndex
}

// New builds a schema from an introspection result and prints both views.
func New(r *Result) (*Schema, error) {
	idx := newIndex(r)
	s := &Schema{result: r, types: idx.types}
	s.validator = sync.OnceValues(s.loadValidator)
	coerceDefaults(r, idx)
	s.all = s.newView(&filter{all: true}, r.sdlSize)
	// The default view is the other one less what it hides.
	s.current = s.newView(&filter{kept: keptDeprecated(r, idx)}, len(s.all.SDL))
	s.pathWeight = 2 * pathIndexWeight(r, idx)
	return s, nil
}

func (s *Schema) newView(show *filter, sizeHint int) *View {
	v := &View{s: s, show: show}
	v.paths = sync.OnceValue(v.buildPaths)
	r := s.result
	// One builder takes the whole text, definitions set apart by a blank
	// line.
	p := &printer{show: show}
	p.b.Grow(sizeHint)
	separate := func() {
		if p.b.Len() > 0 {
			p.b.WriteString("\n\n")
		}
	}
	p.schemaDefinition(r)
	for i := range r.Schema.Directives {
		if d := &r.Schema.Directives[i]; !isSpecifiedDirective(d.Name) {
			separate()
			p.directive(d)
		}
	}
	for i := range r.Schema.Types {
		if t := &r.Schema.Types[i]; isShownType(t.Name) {
			separate()
			p.definition(t)
			v.Hidden += v.hiddenIn(t)
		}
	}
	for i := range r.Schema.Directives {
		d := &r.Schema.Directives[i]
		v.Hidden += len(d.Args) - len(show.args("@"+d.Name, "", d.Args))
	}
	p.b.WriteString("\n")
	v.SDL = p.b.String()
	if waste := p.b.Cap() - p.b.Len(); waste > p.b.Len()/8 {
		// The size was guessed high, or outgrown and doubled: the text
		// is kept as long as the schema is cached, so not its slack.
		v.SDL = strings.Clone(v.SDL)
	}
	return v
}

// print renders one type or directive.
func (v *View) print(t *fullType, d *directive) string {
	p := &printer{show: v.show}
	if t != nil {
		p.definition(t)
	} else {
		p.directive(d)
	}
	return p.b.String()
}

// hiddenIn counts the deprecated members of t that v leaves out.
func (v *View) hiddenIn(t *fullType) int {
	hidden := len(t.EnumValues) - len(v.show.enumValues(t.Name, t.EnumValues)) +
		len(t.InputFields) - len(v.show.inputFields(t.Name, t.InputFields)) +
		len(t.Fields)
	for _, f := range v.show.fields(t.Name, t.Fields) {
		hidden += len(f.Args) - len(v.show.args(t.Name, f.Name, f.Args)) - 1
	}
	return hidden
}

// View returns the view for a setting of includeDeprecated.
func (s *Schema) View(includeDeprecated bool) *View {
	if includeDeprecated {
		return s.all
	}
	return s.current
}

// TypeCount is the number of named types, built-ins left out.
func (s *Schema) TypeCount() int {
	n := 0
	for _, t := range s.result.Schema.Types {
		if isShownType(t.Name) {
			n++
		}
	}
	return n
}

// Weight estimates the memory s holds, in bytes: its two SDL texts, the
// introspection result they are printed from, and the validator's schema
// once built, which weigh about three and four times the SDL (GitHub's
// schema: 1.1 MB of SDL, 5.7 MB retained, 4.9 MB more with the validator),
// and the path indexes of its views once built (GitHub's: 0.22 MB each).
func (s *Schema) Weight() int {
	return 8*len(s.all.SDL) + len(s.current.SDL) + s.pathWeight + 1024
}

// HiddenNote is the header line of a view that leaves deprecated members
// out, or "" when it leaves none out.
func HiddenNote(hidden int, of string) string {
	if hidden == 0 {
		return ""
	}
	what := "deprecated members are"
	if hidden == 1 {
		what = "deprecated member is"
	}
	return fmt.Sprintf("# %d %s hidden%s (fields, arguments, input fields, enum values); includeDeprecated: true shows them.\n", hidden, what, of)
}

// rootNames returns the query, mutation and subscription type names.
func (s *Schema) rootNames() []string {
	var names []string
	for _, root := range []*named{s.result.Schema.QueryType, s.result.Schema.MutationType, s.result.Schema.SubscriptionType} {
		if root != nil {
			names = append(names, root.Name)
		}
	}
	return names
}

// Overview summarises a schema too large to return whole: the root types'
// fields with arguments and return types, every type name grouped by kind,
// and how to ask for more. It fits in MaxViewBytes, giving up detail (first
// the root fields' arguments, then names) when it must.
func (v *View) Overview() (text string, truncated bool) {
	for _, detail := range []overviewDetail{fullRoots, bareRoots} {
		text = v.overview(detail)
		if len(text) <= MaxViewBytes {
			return text, detail != fullRoots
		}
	}
	return cut(text, MaxViewBytes, "the overview was cut here; use search to find what you need"), true
}

type overviewDetail int

const (
	fullRoots overviewDetail = iota // root fields with arguments
	bareRoots                       // root fields with return types only
)

func (v *View) overview(detail overviewDetail) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Schema overview: %d types; the full SDL is %d bytes, more than the %d a call returns.\n",
		v.s.TypeCount(), len(v.SDL), MaxViewBytes)
	b.WriteString(HiddenNote(v.Hidden, ""))
	b.WriteString("# For more, call graphql_introspect again with types: [\"TypeName\", ...] for full definitions,\n")
	b.WriteString("# or search: \"word\" for the types, fields and arguments whose names match it, with paths from the root.\n\n")
	for _, name := range v.s.rootNames() {
		t := v.s.types[name]
		if t == nil {
			continue
		}
		fmt.Fprintf(&b, "type %s {\n", t.Name)
		for _, f := range v.show.fields(t.Name, t.Fields) {
			if detail == fullRoots {
				fmt.Fprintf(&b, "  %s\n", v.fieldSignature(t.Name, f))
			} else {
				fmt.Fprintf(&b, "  %s: %s\n", f.Name, f.Type.String())
			}
		}
		b.WriteString("}\n\n")
	}
	b.WriteString("# Types by kind\n")
	byKind := map[string][]string{}
	for _, t := range v.s.result.Schema.Types {
		if isShownType(t.Name) {
			byKind[t.Kind] = append(byKind[t.Kind], t.Name)
		}
	}
	for _, kind := range []string{"OBJECT", "INTERFACE", "UNION", "ENUM", "INPUT_OBJECT", "SCALAR"} {
		names := byKind[kind]
		if len(names) == 0 {
			continue
		}
		slices.Sort(names)
		fmt.Fprintf(&b, "%s (%d): %s\n", kind, len(names), strings.Join(names, ", "))
	}
	return b.String()
}

// Lookup is the answer to graphql_introspect's types and search.
type Lookup struct {
	Text      string
	Truncated bool
	// NoneFound reports that types were asked for and none of them is a
	// type or directive of the schema, and that a search asked with them,
	// if any, found nothing either: the call found nothing at all. (An
	// error's text is cut short: one that holds a search's answer would
	// lose it.)
	NoneFound bool
}

// Lookup answers types and search, either or both, within MaxViewBytes
// between them: beside types, the search answer, short as a rule, keeps up
// to half of it, and the types have the rest. Each name counts once,
// however often it is given.
func (v *View) Lookup(names []string, term string) Lookup {
	var out Lookup
	budget := MaxViewBytes
	var searchText string
	search := strings.TrimSpace(term) != ""
	searchFound := 0
	if search {
		searchBudget := MaxViewBytes
		if len(names) > 0 {
			searchBudget /= 2
		}
		searchText, out.Truncated, searchFound = v.search(term, searchBudget)
		budget -= len(searchText) + 1
	}
	var parts []string
	if len(names) > 0 {
		text, truncated, noneFound := v.Types(names, budget)
		parts = append(parts, text)
		out.Truncated = out.Truncated || truncated
		out.NoneFound = noneFound && searchFound == 0
	}
	if search {
		parts = append(parts, searchText)
	}
	out.Text = strings.Join(parts, "\n")
	return out
}

// Types returns the SDL of the named types and directives ("@name"), each
// once, within budget bytes, with a note for each name the schema does not
// have and the nearest names it does. When they do not all fit, the answer
// ends with the ones it cut short or left out and the call that gets them.
// noneFound reports that no name given is in the schema.
func (v *View) Types(names []string, budget int) (text string, truncated, noneFound bool) {
	var notes, found, texts []string
	hidden, unnoted := 0, 0
	seen := make(map[string]bool, len(names))
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		if t := v.s.types[name]; t != nil && isShownType(name) {
			found, texts = append(found, name), append(texts, v.print(t, nil))
			hidden += v.hiddenIn(t)
			continue
		}
		if d := v.s.directiveNamed(strings.TrimPrefix(name, "@")); d != nil {
			// "cached" and "@cached" name one directive.
			if at := "@" + d.Name; at == name || !seen[at] {
				seen[at] = true
				found, texts = append(found, name), append(texts, v.print(nil, d))
			}
			continue
		}
		if len(notes) >= maxMissingNoted {
			unnoted++
			continue
		}
		note := fmt.Sprintf("# No type named %s.", mcptool.Quote(name))
		// Suggestions cost a pass over every type: the first few unknown
		// names get them, so a long list of them stays cheap.
		if len(notes) < maxSuggested {
			if similar := v.s.similarNames(name, 5); len(similar) > 0 {
				note += " Similar: " + strings.Join(similar, ", ") + "."
			}
		}
		notes = append(notes, note)
	}
	noneFound = len(found) == 0 && len(seen) > 0
	head := ""
	if len(notes) > 0 {
		head = strings.Join(notes, "\n") + "\n"
	}
	if unnoted > 0 {
		head += fmt.Sprintf("# %d more names are not types of this schema either.\n", unnoted)
	}
	head += HiddenNote(hidden, " in these types")
	if len(head) > budget {
		return cut(head, budget, "cut here: ask for fewer names at a time"), true, noneFound
	}
	whole := head + strings.Join(texts, "\n\n")
	if len(texts) > 0 {
		whole += "\n"
	}
	if len(whole) <= budget {
		return whole, false, noneFound
	}
	return fitTypes(head, found, texts, budget), true, noneFound
}

// maxMissingNoted is the most names not found that Types notes one by one:
// a list of thousands would make a long error of notes.
const maxMissingNoted = 20

// fitTypes lays out as many whole definitions as fit in budget after head,
// then as much of the next as fits, and ends with a note naming the
// definition cut short, every one left out, and the call that gets them.
// Room for the note is kept free as the definitions are laid out: what it
// takes to name the definitions after the one being placed, at least
// `least` bytes, at most half the budget.
func fitTypes(head string, names, texts []string, budget int) string {
	const least = 2000 // the least worth starting a definition in
	// after[i] is what naming names[i:] in the note takes.
	after := make([]int, len(names)+1)
	for i := len(names) - 1; i >= 0; i-- {
		after[i] = after[i+1] + noteCost(names[i])
	}
	reserve := func(i int) int { return min(budget/2, max(least, noteFixed+after[i])) }
	var b strings.Builder
	b.WriteString(head)
	var cutShort string
	var leftOut []string
	for i, text := range texts {
		sep := ""
		if i > 0 {
			sep = "\n"
		}
		switch {
		case cutShort != "" || len(leftOut) > 0:
			leftOut = append(leftOut, names[i])
		case b.Len()+len(sep)+len(text)+1+reserve(i+1) <= budget:
			b.WriteString(sep + text + "\n")
		case i == 0 || budget-b.Len() > reserve(i)+least:
			part := text[:max(0, budget-b.Len()-reserve(i)-len(sep)-1)]
			if end := strings.LastIndexByte(part, '\n'); end > 0 {
				part = part[:end]
			}
			b.WriteString(sep + part + "\n")
			cutShort = names[i]
		default:
			leftOut = append(leftOut, names[i])
		}
	}
	b.WriteString(cutNote(cutShort, len(names) > 0 && names[0] == cutShort, leftOut, budget-b.Len()))
	if b.Len() > budget {
		// Only a name longer than any schema's would do this.
		return cut(b.String(), budget, "cut here: ask for fewer names at a time")
	}
	return b.String()
}

// noteFixed bounds the words of a cut note, all but the names it lists;
// noteCost is what listing one name takes (in the list and in the call).
const noteFixed = 400

func noteCost(name string) int { return 2*len(name) + 8 }

// cutNote is the last line of a cut types answer, within room bytes. It
// names the definition cut short and those left out, and gives the call
// that gets them; when the names left out cannot all be listed in room, it
// lists as many as fit, in the order asked, says how many more there are,
// and that they are the names after the last one listed.
func cutNote(cutShort string, alone bool, leftOut []string, room int) string {
	listed := len(leftOut)
	if need := noteFixed + len(cutShort) + 2*len(cutShort); need < room {
		spent := need
		for i, name := range leftOut {
			if spent += noteCost(name); spent > room {
				listed = i
				break
			}
		}
	} else {
		listed = 0
	}
	for ; ; listed-- {
		note := writeCutNote(cutShort, alone, leftOut, listed)
		if len(note) <= room || listed == 0 {
			return note
		}
	}
}

// writeCutNote writes a cut note that lists the first listed of leftOut.
func writeCutNote(cutShort string, alone bool, leftOut []string, listed int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Cut to fit the %d-byte limit.", MaxViewBytes)
	var again []string
	if cutShort != "" {
		fmt.Fprintf(&b, " Cut short: %s", cutShort)
		if alone {
			b.WriteString(" (over the limit on its own: search: \"word\" finds its fields by name)")
		} else {
			again = append(again, cutShort)
		}
		b.WriteString(".")
	}
	more := len(leftOut) - listed
	if len(leftOut) > 0 {
		b.WriteString(" Left out: ")
		b.WriteString(strings.Join(leftOut[:listed], ", "))
		switch {
		case more > 0 && listed > 0:
			fmt.Fprintf(&b, " and %d more, the names after %s in this call's types", more, leftOut[listed-1])
		case more > 0:
			fmt.Fprintf(&b, "the last %d names of this call's types that the schema has", more)
		}
		b.WriteString(".")
		again = append(again, leftOut[:listed]...)
	}
	if len(again) > 0 {
		quoted := make([]string, len(again))
		for i, name := range again {
			quoted[i] = strconv.Quote(name)
		}
		fmt.Fprintf(&b, " Ask for them in another call: types: [%s]", strings.Join(quoted, ", "))
		if more > 0 {
			fmt.Fprintf(&b, ", then the %d after %s", more, strconv.Quote(again[len(again)-1]))
		}
		b.WriteString(".")
	} else if more > 0 {
		b.WriteString(" Ask for them in another call.")
	}
	return b.String() + "\n"
}

func (s *Schema) directiveNamed(name string) *directive {
	for i := range s.result.Schema.Directives {
		if d := &s.result.Schema.Directives[i]; d.Name == name && !isSpecifiedDirective(name) {
			return d
		}
	}
	return nil
}

// Bounds of the work of suggesting type names.
const (
	maxSuggested    = 10  // unknown names per call that get suggestions
	maxSuggestedLen = 100 // longest name measured by edit distance
)

// similarNames suggests type names for a misspelt one, as graphql-js's
// suggestionList does: those within an edit distance of 40% of its length
// (a transposition counts one, a change of case alone counts one), closest
// first; then those that contain it or that it contains.
func (s *Schema) similarNames(name string, limit int) []string {
	lower := strings.ToLower(name)
	threshold := len(name)*4/10 + 1
	// The distance is at least the difference in length, so a name far
	// longer or shorter than a candidate is never measured: the cost stays
	// that of names of like length, and a name past maxSuggestedLen (no
	// GraphQL type is named so) is matched on substrings alone.
	measure := func(candidate string) bool {
		return len(name) <= maxSuggestedLen && abs(len(candidate)-len(name)) <= threshold
	}
	type candidate struct {
		name     string
		distance int
	}
	var similar []candidate
	for _, t := range s.result.Schema.Types {
		if !isShownType(t.Name) {
			continue
		}
		lowerDef := strings.ToLower(t.Name)
		d := threshold + 1
		if measure(t.Name) {
			d = lexicalDistance(name, t.Name)
		}
		switch {
		case d <= threshold:
			similar = append(similar, candidate{t.Name, d})
		case strings.Contains(lowerDef, lower) || strings.Contains(lower, lowerDef):
			similar = append(similar, candidate{t.Name, threshold + 1 + abs(len(t.Name)-len(name))})
		}
	}
	slices.SortFunc(similar, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(a.distance, b.distance), strings.Compare(a.name, b.name))
	})
	names := make([]string, 0, min(len(similar), limit))
	for _, c := range similar[:min(len(similar), limit)] {
		names = append(names, c.name)
	}
	return names
}

// lexicalDistance is graphql-js's: 0 for equal names, 1 for names equal but
// for case, else the optimal-string-alignment distance of the lower-cased
// names.
func lexicalDistance(a, b string) int {
	if a == b {
		return 0
	}
	a, b = strings.ToLower(a), strings.ToLower(b)
	if a == b {
		return 1
	}
	x, y := []rune(a), []rune(b)
	rows := make([][]int, len(x)+1)
	for i := range rows {
		rows[i] = make([]int, len(y)+1)
		rows[i][0] = i
	}
	for j := range rows[0] {
		rows[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			rows[i][j] = min(rows[i-1][j]+1, rows[i][j-1]+1, rows[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				rows[i][j] = min(rows[i][j], rows[i-2][j-2]+1)
			}
		}
	}
	return rows[len(x)][len(y)]
}

func abs(n int) int { return max(n, -n) }

// Search lists, one per line, the types, fields, arguments, input fields and
// enum values whose names match term, whole or by word parts (see matcher):
// "type PullRequest", "Repository.pullRequest(number: Int!): PullRequest".
// Under each type and field that a query can reach it gives the shortest
// paths from the root, with the arguments needed on the way (see
// pathIndex). Exact names come first, then names that start with term, then
// those that have all its words, then the rest (those with more of its
// words first); within each, types, then fields, then the rest, the shorter
// name first, then the one a query reaches sooner, then schema order: the
// likeliest answers survive the cut to maxSearchLines and to budget bytes.
// Paths give way before matches do: when the answer does not fit, each
// match keeps one path, then the last matches are left out.
func (v *View) Search(term string, budget int) (text string, truncated bool) {
	text, truncated, _ = v.search(term, budget)
	return text, truncated
}

// search is Search, and says how many names matched.
func (v *View) search(term string, budget int) (text string, truncated bool, found int) {
	m := newMatcher(term)
	hits, hidden := v.searchHits(m)
	if len(hits) == 0 && len(m.words) > 1 {
		// No name has every word: those with some of them, most first.
		m.someWords = true
		hits, hidden = v.searchHits(m)
	}
	hiddenNote := ""
	if hidden > 0 {
		hiddenNote = fmt.Sprintf("# %d deprecated %s also match; includeDeprecated: true shows them.\n", hidden, plural(hidden, "member", "members"))
	}
	found = len(hits)
	if found == 0 {
		return fmt.Sprintf("# Nothing in the schema has a name matching %s, whole or by its words. Try a shorter or different word.\n", mcptool.Quote(term)) + hiddenNote, false, 0
	}
	var p *pathIndex
	if slices.ContainsFunc(hits, func(h searchHit) bool { return h.paths }) {
		p = v.paths()
		for i := range hits {
			if hits[i].paths {
				hits[i].far = p.distance(hits[i].owner)
			}
		}
	}
	slices.SortStableFunc(hits, func(a, b searchHit) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.lacking, b.lacking), cmp.Compare(a.kind(), b.kind()),
			cmp.Compare(a.length, b.length), cmp.Compare(a.far, b.far))
	})
	header := fmt.Sprintf("# %s %s:\n", namesMatch(len(hits)), mcptool.Quote(term))
	if len(hits) > maxSearchLines {
		header = fmt.Sprintf("# %s %s; the %d closest follow. Use a longer word to narrow the search.\n", namesMatch(len(hits)), mcptool.Quote(term), maxSearchLines)
		hits, truncated = hits[:maxSearchLines], true
	}
	head := header + hiddenNote
	if slices.ContainsFunc(hits, func(h searchHit) bool { return h.paths }) {
		head += pathLegend
	}
	var blocks []string
	for _, limits := range []struct{ types, fields int }{{3, 2}, {1, 1}} {
		blocks = v.searchBlocks(p, hits, limits.types, limits.fields)
		if limits.types == 1 {
			head += "# One path each, to fit the limit; a narrower search shows up to three.\n"
		}
		size := len(head)
		for _, block := range blocks {
			size += len(block)
		}
		if size <= budget {
			return head + strings.Join(blocks, ""), truncated || limits.types == 1, found
		}
	}
	// One path each is still too long: the last matches are left out.
	var b strings.Builder
	b.WriteString(head)
	for i, block := range blocks {
		note := fmt.Sprintf("# Cut here to fit the limit: %d more %s; use a longer word to narrow the search.\n", len(blocks)-i, plural(len(blocks)-i, "match", "matches"))
		if b.Len()+len(block)+len(note) > budget {
			if b.Len()+len(note) > budget {
				return cut(b.String(), budget, "cut here: use a longer word to narrow the search"), true, found
			}
			b.WriteString(note)
			break
		}
		b.WriteString(block)
	}
	return b.String(), true, found
}

// pathLegend heads a search answer that shows paths.
const pathLegend = "# Under a type or field, \"path:\" is a shortest way from the root: arg! is an argument a query must give, first (or last, limit) sizes a page, (on T) is a fragment on T, (as I) an object taken as its interface I.\n"

// searchBlocks renders each hit as its line and, under it, up to typePaths
// paths to a type and fieldPaths to a field.
func (v *View) searchBlocks(p *pathIndex, hits []searchHit, typePaths, fieldPaths int) []string {
	blocks := make([]string, len(hits))
	for i, hit := range hits {
		block := hit.line + "\n"
		if hit.paths {
			limit := typePaths
			if hit.field != nil {
				limit = fieldPaths
			}
			if node, ok := p.node[hit.owner]; ok {
				for _, line := range v.pathLines(p, pathTarget{node: node, field: hit.field}, limit) {
					block += line + "\n"
				}
			}
		}
		blocks[i] = block
	}
	return blocks
}

type searchHit struct {
	rank    int
	lacking int // words of the term the name lacks (a partial match by words)
	length  int // the name's, words run together: the shorter, the closer
	line    string
	// paths is set for a hit a query can reach: a type that fields
	// return (owner) or a field of one.
	paths bool
	owner string
	field *field
	// far is how far owner is from the roots: of two hits alike, the one
	// a query reaches sooner comes first (Repository.issue before
	// CreateIssuePayload.issue, which only a mutation returns).
	far int
}

// kind orders the hits of a rank: types first, then fields, then the rest.
func (h *searchHit) kind() int {
	switch {
	case h.paths && h.field == nil:
		return 0
	case h.field != nil:
		return 1
	}
	return 2
}

// searchHits lists the names of v that match m, in schema order, and counts
// the deprecated members that match but v hides.
func (v *View) searchHits(m *matcher) (hits []searchHit, hidden int) {
	// line is called for a match only: rendering every field's signature
	// would cost more than the matching.
	add := func(name string, line func() string, shown bool, hit searchHit) bool {
		rank, lacking, ok := m.match(name)
		switch {
		case !ok:
			return false
		case !shown:
			hidden++
		default:
			hit.rank, hit.lacking, hit.length, hit.line = rank, lacking, len(m.name), line()
			hits = append(hits, hit)
		}
		return true
	}
	for i := range v.s.result.Schema.Types {
		t := &v.s.result.Schema.Types[i]
		if !isShownType(t.Name) {
			continue
		}
		add(t.Name, func() string { return kindKeyword(t.Kind) + " " + t.Name }, true, searchHit{paths: isComposite(t.Kind), owner: t.Name})
		for j := range t.Fields {
			f := &t.Fields[j]
			shown := v.show.field(t.Name, f)
			hit := searchHit{paths: true, owner: t.Name, field: f}
			if add(f.Name, func() string { return t.Name + "." + v.fieldSignature(t.Name, f) }, shown, hit) || !shown {
				continue
			}
			for _, a := range v.show.args(t.Name, f.Name, f.Args) {
				if m.matches(a.Name) {
					hit.rank, hit.line = rankArgument, t.Name+"."+v.fieldSignature(t.Name, f)
					hits = append(hits, hit)
					break
				}
			}
		}
		for j := range t.InputFields {
			f := &t.InputFields[j]
			add(f.Name, func() string { return t.Name + "." + inputValueText(f) }, v.show.inputField(t.Name, f), searchHit{})
		}
		for j := range t.EnumValues {
			ev := &t.EnumValues[j]
			add(ev.Name, func() string { return t.Name + "." + ev.Name }, v.show.enumValue(t.Name, ev), searchHit{})
		}
	}
	for _, d := range v.s.result.Schema.Directives {
		if !isSpecifiedDirective(d.Name) {
			add(d.Name, func() string { return "directive @" + d.Name }, true, searchHit{})
		}
	}
	return hits, hidden
}

// fieldSignature renders "name(arg: Type = default, ...): Return" with the
// arguments v shows.
func (v *View) fieldSignature(owner string, f *field) string {
	var b strings.Builder
	b.WriteString(f.Name)
	if args := v.show.args(owner, f.Name, f.Args); len(args) > 0 {
		b.WriteByte('(')
		for i, a := range args {
			if i > 0 {
				b.WriteString(", ")
			}
			writeInputValue(&b, a)
		}
		b.WriteByte(')')
	}
	b.WriteString(": " + f.Type.String())
	return b.String()
}

// inputValueText renders "name: Type = default".
func inputValueText(a *inputValue) string {
	var b strings.Builder
	writeInputValue(&b, a)
	return b.String()
}

// writeInputValue writes inputValueText(a) to b.
func writeInputValue(b *strings.Builder, a *inputValue) {
	b.WriteString(a.Name)
	b.WriteString(": ")
	a.Type.writeTo(b)
	if a.DefaultValue != nil {
		b.WriteString(" = ")
		a.writeDefault(b)
	}
}

func kindKeyword(kind string) string {
	switch kind {
	case "INPUT_OBJECT":
		return "input"
	case "OBJECT":
		return "type"
	default:
		return strings.ToLower(kind)
	}
}

// cut shortens text to at most limit bytes at a line boundary and ends it with
// a comment line saying why.
func cut(text string, limit int, why string) string {
	note := "\n# " + why + "\n"
	end := max(0, limit-len(note))
	if i := strings.LastIndexByte(text[:end], '\n'); i > 0 {
		end = i
	}
	return text[:end] + note
}

// namesMatch is "1 name matches" or "n names match".
func namesMatch(n int) string {
	return fmt.Sprintf("%d %s", n, plural(n, "name matches", "names match"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
