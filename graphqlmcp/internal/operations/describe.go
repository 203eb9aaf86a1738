package operations

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// Description is the tool's description: the comment above the operation
// when it has one, else one naming what it runs and the root fields it
// asks for.
func (o *Operation) Description() string {
	if o.Comment != "" {
		return cut(o.Comment, 2000)
	}
	fields := rootFields(o.Chosen.Sent, o.Chosen.Op)
	what := "asks for"
	if o.Type == ast.Mutation {
		what = "changes data through"
	}
	return fmt.Sprintf("Runs the saved GraphQL %s %s (%s), which %s %s.", o.Type, o.Name, filepath.Base(o.File), what, strings.Join(fields, ", "))
}

// rootFields names the fields an operation selects at its root, through
// fragments, each once.
func rootFields(doc *ast.QueryDocument, op *ast.OperationDefinition) []string {
	var names []string
	seen := map[string]bool{}
	var visit func(set ast.SelectionSet)
	visit = func(set ast.SelectionSet) {
		for _, sel := range set {
			switch sel := sel.(type) {
			case *ast.Field:
				if !slices.Contains(names, sel.Name) {
					names = append(names, sel.Name)
				}
			case *ast.InlineFragment:
				visit(sel.SelectionSet)
			case *ast.FragmentSpread:
				if f := doc.Fragments.ForName(sel.Name); f != nil && !seen[sel.Name] {
					seen[sel.Name] = true
					visit(f.SelectionSet)
				}
			}
		}
	}
	visit(op.SelectionSet)
	if len(names) > 8 {
		names = append(names[:8], fmt.Sprintf("and %d more", len(names)-8))
	}
	return names
}
