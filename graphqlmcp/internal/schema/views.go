package schema

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// MaxViewBytes is the largest text a view returns: about 25k tokens, under the
// tool-output limits of common assistants.
const MaxViewBytes = 100_000

// maxSearchLines bounds a search answer; a broader term should be narrowed.
const maxSearchLines = 200

// Schema is a converted schema with what its views need.
type Schema struct {
	Doc *ast.SchemaDocument
	SDL string
}

// Weight estimates the memory s holds, in bytes: its SDL and its syntax
// tree, which measures about three times the SDL (GitHub's schema: 1.2 MB
// of SDL, 3.8 MB retained).
func (s *Schema) Weight() int {
	return 4*len(s.SDL) + 1024
}

// New converts an introspection result.
func New(r *Result) (*Schema, error) {
	doc, err := ToDocument(r)
	if err != nil {
		return nil, err
	}
	return &Schema{Doc: doc, SDL: Format(doc)}, nil
}

// rootNames returns the query, mutation and subscription type names.
func (s *Schema) rootNames() []string {
	names := []string{"Query", "Mutation", "Subscription"}
	for _, schemaDef := range s.Doc.Schema {
		names = names[:0]
		for _, op := range schemaDef.OperationTypes {
			names = append(names, op.Type)
		}
	}
	return names
}

// Overview summarises a schema too large to return whole: the root types'
// fields with arguments and return types, every type name grouped by kind,
// and how to ask for more. It fits in MaxViewBytes, giving up detail (first
// the root fields' arguments, then names) when it must.
func (s *Schema) Overview() (text string, truncated bool) {
	for _, detail := range []overviewDetail{fullRoots, bareRoots} {
		text = s.overview(detail)
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

func (s *Schema) overview(detail overviewDetail) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Schema overview: %d types; the full SDL is %d bytes, more than the %d a call returns.\n",
		len(s.Doc.Definitions), len(s.SDL), MaxViewBytes)
	b.WriteString("# For more, call graphql_introspect again with types: [\"TypeName\", ...] for full definitions,\n")
	b.WriteString("# or search: \"word\" for the types, fields and arguments whose names contain it.\n\n")
	for _, name := range s.rootNames() {
		def := s.Doc.Definitions.ForName(name)
		if def == nil {
			continue
		}
		fmt.Fprintf(&b, "type %s {\n", def.Name)
		for _, f := range def.Fields {
			if detail == fullRoots {
				fmt.Fprintf(&b, "  %s\n", fieldSignature(f))
			} else {
				fmt.Fprintf(&b, "  %s: %s\n", f.Name, f.Type.String())
			}
		}
		b.WriteString("}\n\n")
	}
	b.WriteString("# Types by kind\n")
	byKind := map[ast.DefinitionKind][]string{}
	for _, def := range s.Doc.Definitions {
		byKind[def.Kind] = append(byKind[def.Kind], def.Name)
	}
	for _, kind := range []ast.DefinitionKind{ast.Object, ast.Interface, ast.Union, ast.Enum, ast.InputObject, ast.Scalar} {
		names := byKind[kind]
		if len(names) == 0 {
			continue
		}
		slices.Sort(names)
		fmt.Fprintf(&b, "%s (%d): %s\n", kind, len(names), strings.Join(names, ", "))
	}
	return b.String()
}

// Types returns the SDL of the named types, with a note for each name the
// schema does not have and the nearest names it does.
func (s *Schema) Types(names []string) (text string, truncated bool, missing int) {
	found := &ast.SchemaDocument{}
	var notes []string
	for _, name := range names {
		if def := s.Doc.Definitions.ForName(name); def != nil {
			found.Definitions = append(found.Definitions, def)
			continue
		}
		if d := s.Doc.Directives.ForName(strings.TrimPrefix(name, "@")); d != nil {
			found.Directives = append(found.Directives, d)
			continue
		}
		note := fmt.Sprintf("# No type named %q.", name)
		// Suggestions cost a pass over every type: the first few unknown
		// names get them, so a long list of them stays cheap.
		if len(notes) < maxSuggested {
			if similar := s.similarNames(name, 5); len(similar) > 0 {
				note += " Similar: " + strings.Join(similar, ", ") + "."
			}
		}
		notes = append(notes, note)
	}
	text = Format(found)
	if len(notes) > 0 {
		text = strings.Join(notes, "\n") + "\n" + text
	}
	if len(text) > MaxViewBytes {
		return cut(text, MaxViewBytes, "cut here: ask for fewer types at a time"), true, len(notes)
	}
	return text, false, len(notes)
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
	for _, def := range s.Doc.Definitions {
		lowerDef := strings.ToLower(def.Name)
		d := threshold + 1
		if measure(def.Name) {
			d = lexicalDistance(name, def.Name)
		}
		switch {
		case d <= threshold:
			similar = append(similar, candidate{def.Name, d})
		case strings.Contains(lowerDef, lower) || strings.Contains(lower, lowerDef):
			similar = append(similar, candidate{def.Name, threshold + 1 + abs(len(def.Name)-len(name))})
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
// enum values whose names contain term, ignoring case: "type PullRequest",
// "Repository.pullRequest(number: Int!): PullRequest". Exact names come
// first, then names that start with term, then the rest, each in schema
// order, so the likeliest answers survive the cut to maxSearchLines.
func (s *Schema) Search(term string) (text string, truncated bool) {
	needle := strings.ToLower(strings.TrimSpace(term))
	var hits []searchHit
	add := func(name, line string) {
		if rank, ok := matchRank(name, needle); ok {
			hits = append(hits, searchHit{rank: rank, line: line})
		}
	}
	for _, def := range s.Doc.Definitions {
		add(def.Name, kindKeyword(def.Kind)+" "+def.Name)
		for _, f := range def.Fields {
			line := def.Name + "." + fieldSignature(f)
			if rank, ok := matchRank(f.Name, needle); ok {
				hits = append(hits, searchHit{rank: rank, line: line})
			} else if argumentMatches(f.Arguments, needle) {
				hits = append(hits, searchHit{rank: rankArgument, line: line})
			}
		}
		for _, v := range def.EnumValues {
			add(v.Name, def.Name+"."+v.Name)
		}
	}
	for _, d := range s.Doc.Directives {
		add(d.Name, "directive @"+d.Name)
	}
	if len(hits) == 0 {
		return fmt.Sprintf("# Nothing in the schema has a name containing %q. Try a shorter or different word.\n", term), false
	}
	slices.SortStableFunc(hits, func(a, b searchHit) int { return cmp.Compare(a.rank, b.rank) })
	header := fmt.Sprintf("# %s %q:\n", namesContain(len(hits)), term)
	if len(hits) > maxSearchLines {
		header = fmt.Sprintf("# %s %q; the %d closest matches follow. Use a longer word to narrow the search.\n", namesContain(len(hits)), term, maxSearchLines)
		hits, truncated = hits[:maxSearchLines], true
	}
	lines := make([]string, len(hits))
	for i, hit := range hits {
		lines[i] = hit.line
	}
	text = header + strings.Join(lines, "\n") + "\n"
	if len(text) > MaxViewBytes {
		return cut(text, MaxViewBytes, "cut here: use a longer word to narrow the search"), true
	}
	return text, truncated
}

type searchHit struct {
	rank int
	line string
}

// Ranks of a search hit, best first.
const (
	rankExact = iota
	rankPrefix
	rankContains
	rankArgument
)

func matchRank(name, needle string) (int, bool) {
	lower := strings.ToLower(name)
	switch {
	case lower == needle:
		return rankExact, true
	case strings.HasPrefix(lower, needle):
		return rankPrefix, true
	case strings.Contains(lower, needle):
		return rankContains, true
	}
	return 0, false
}

func argumentMatches(args ast.ArgumentDefinitionList, needle string) bool {
	for _, a := range args {
		if strings.Contains(strings.ToLower(a.Name), needle) {
			return true
		}
	}
	return false
}

// fieldSignature renders "name(arg: Type = default, ...): Return".
func fieldSignature(f *ast.FieldDefinition) string {
	var b strings.Builder
	b.WriteString(f.Name)
	if len(f.Arguments) > 0 {
		b.WriteByte('(')
		for i, a := range f.Arguments {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(a.Name + ": " + a.Type.String())
			if a.DefaultValue != nil {
				b.WriteString(" = " + a.DefaultValue.String())
			}
		}
		b.WriteByte(')')
	}
	b.WriteString(": " + f.Type.String())
	return b.String()
}

func kindKeyword(kind ast.DefinitionKind) string {
	switch kind {
	case ast.InputObject:
		return "input"
	case ast.Object:
		return "type"
	default:
		return strings.ToLower(string(kind))
	}
}

// cut shortens text to at most limit bytes at a line boundary and ends it with
// a comment line saying why.
func cut(text string, limit int, why string) string {
	note := "\n# " + why + "\n"
	end := limit - len(note)
	if i := strings.LastIndexByte(text[:end], '\n'); i > 0 {
		end = i
	}
	return text[:end] + note
}

// namesContain is "1 name contains" or "n names contain".
func namesContain(n int) string {
	if n == 1 {
		return "1 name contains"
	}
	return fmt.Sprintf("%d names contain", n)
}
