package operation

import (
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
)

// gqlparser's formatter drops the directives of variable definitions
// (gqlparser issue 102), so an endpoint would not get a directive the
// model wrote. When op has any, the formatter prints the operation with
// one stand-in definition, whose name no printed text can hold (a NUL,
// which the formatter escapes in strings), and that is replaced by the
// definitions printed here, directives included.
const standInVariable = "\x00"

// Descriptions of operations, fragments and variable definitions are not
// printed: they change nothing that runs, gqlparser keeps neither their
// block string values (the spec's BlockStringValue, which lex computes for
// values only) nor their control characters (the stand-ins of control.go)
// as graphql-js reads them, and its formatter prints them as block
// strings, which cannot hold every value. Sent, they would be another text
// than the one given (TestDescriptionsNotSent).

// format prints doc, whose first operation is op.
func format(doc *ast.QueryDocument, op *ast.OperationDefinition) string {
	if !hasVariableDirectives(op) {
		var b strings.Builder
		formatter.NewFormatter(&b, formatter.WithoutDescription()).FormatQueryDocument(doc)
		return b.String()
	}
	standIn := *op
	standIn.VariableDefinitions = ast.VariableDefinitionList{{Variable: standInVariable, Type: ast.NamedType(standInVariable, nil)}}
	printed := *doc
	printed.Operations = ast.OperationList{&standIn}
	var b strings.Builder
	formatter.NewFormatter(&b, formatter.WithoutDescription()).FormatQueryDocument(&printed)
	return strings.Replace(b.String(), "$"+standInVariable+": "+standInVariable, variableDefinitions(op.VariableDefinitions), 1)
}

func hasVariableDirectives(op *ast.OperationDefinition) bool {
	for _, def := range op.VariableDefinitions {
		if len(def.Directives) > 0 {
			return true
		}
	}
	return false
}

// variableDefinitions prints defs as the formatter prints them, with their
// directives and without their descriptions, between the parentheses.
func variableDefinitions(defs ast.VariableDefinitionList) string {
	var b strings.Builder
	for i, def := range defs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("$" + def.Variable + ": " + def.Type.String())
		if def.DefaultValue != nil {
			b.WriteString(" = " + def.DefaultValue.String())
		}
		for _, d := range def.Directives {
			b.WriteString(" @" + d.Name)
			if len(d.Arguments) == 0 {
				continue
			}
			b.WriteString("(")
			for j, arg := range d.Arguments {
				if j > 0 {
					b.WriteString(", ")
				}
				b.WriteString(arg.Name + ": " + arg.Value.String())
			}
			b.WriteString(")")
		}
	}
	return b.String()
}
