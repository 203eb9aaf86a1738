// Package operation parses a GraphQL document and picks the operation a call
// runs, with errors that say where the text is wrong and how to fix it.
package operation

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
)

// maxTokens bounds the work of parsing one document; real operations use a
// few thousand tokens at most.
const maxTokens = 100_000

// Chosen is a parsed document and the operation selected from it.
type Chosen struct {
	Doc *ast.QueryDocument
	Op  *ast.OperationDefinition
}

// Name is the operation's name, or "(anonymous)".
func (c Chosen) Name() string {
	if c.Op.Name == "" {
		return "(anonymous)"
	}
	return c.Op.Name
}

// Choose parses query and selects the operation named operationName, or the
// only operation when operationName is empty.
func Choose(query, operationName string) (Chosen, error) {
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Name: "query", Input: query}, maxTokens)
	if err != nil {
		return Chosen{}, syntaxError(err)
	}
	if len(doc.Operations) == 0 {
		return Chosen{}, errors.New("query contains no operation, only fragments; add one such as query { __typename }")
	}
	if operationName != "" {
		op := doc.Operations.ForName(operationName)
		if op == nil {
			return Chosen{}, fmt.Errorf("operationName %q names no operation in query; it contains %s", operationName, names(doc.Operations))
		}
		return Chosen{Doc: doc, Op: op}, nil
	}
	if len(doc.Operations) > 1 {
		return Chosen{}, fmt.Errorf("query contains %d operations (%s); pass operationName to choose the one to run", len(doc.Operations), names(doc.Operations))
	}
	return Chosen{Doc: doc, Op: doc.Operations[0]}, nil
}

func syntaxError(err error) error {
	var gqlErr *gqlerror.Error
	if errors.As(err, &gqlErr) && len(gqlErr.Locations) > 0 {
		loc := gqlErr.Locations[0]
		return fmt.Errorf("query has a GraphQL syntax error at line %d, column %d: %s; fix the query text", loc.Line, loc.Column, gqlErr.Message)
	}
	return fmt.Errorf("query has a GraphQL syntax error: %v; fix the query text", err)
}

func names(ops ast.OperationList) string {
	list := make([]string, len(ops))
	for i, op := range ops {
		list[i] = op.Name
		if op.Name == "" {
			list[i] = "an anonymous " + string(op.Operation)
		}
	}
	return strings.Join(list, ", ")
}
