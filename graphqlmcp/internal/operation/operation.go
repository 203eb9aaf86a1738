// Package operation parses a GraphQL document and picks the operation a call
// runs, with errors that say where the text is wrong and how to fix it.
package operation

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/mcpforge/servers/shared/mcptool"
)

// Chosen is a parsed document and the operation selected from it.
type Chosen struct {
	Doc *ast.QueryDocument
	Op  *ast.OperationDefinition
	// Text is what to send upstream: the chosen operation and the fragments
	// it uses, printed again from the parsed document, and nothing else:
	// no comment, no other operation, no byte of the query as given that
	// the parser skipped. An endpoint that reads the body another way than
	// as JSON (a form, with & and = in a comment) finds only what was
	// judged here.
	Text string
	// Sent is the document Text holds: the operation and the fragments it
	// uses, with positions in the query as given.
	Sent *ast.QueryDocument
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
	if len(query) > MaxQueryBytes {
		return Chosen{}, boundsError("query size", "query is %d bytes, over the limit of %d bytes (query size)", len(query), MaxQueryBytes)
	}
	read, lexErr := lex(query)
	input, base := standIns(query, read.escaped)
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Name: "query", Input: input}, MaxTokens)
	if lexErr != nil {
		// graphql-js lexes as it parses, so a parse error before the
		// lexer's is the one it reports.
		if before(err, lexErr, read.lines) {
			return Chosen{}, syntaxError(err, query, read.lines)
		}
		return Chosen{}, lexErr
	}
	if err != nil {
		if strings.Contains(err.Error(), "exceeded token limit") {
			return Chosen{}, boundsError("tokens", "query has more than %d tokens (tokens), counting names, punctuation and values", MaxTokens)
		}
		return Chosen{}, syntaxError(err, query, read.lines)
	}
	if base != 0 {
		restoreControls(doc, base)
	}
	placeStrings(doc, read.lines)
	if err := read.apply(doc); err != nil {
		return Chosen{}, err
	}
	if len(doc.Operations) == 0 && len(doc.Fragments) == 0 {
		// Only comments, commas and white space: graphql-js's parser
		// expects a definition and finds the end.
		line, column := read.lines.location(len([]rune(query)))
		return Chosen{}, &lexError{line: line, column: column, message: "Syntax Error: Unexpected <EOF>."}
	}
	if len(doc.Operations) == 0 {
		return Chosen{}, errors.New("query contains no operation, only fragments; add one such as query { __typename }")
	}
	if err := checkOperationNames(doc.Operations); err != nil {
		return Chosen{}, err
	}
	if err := checkFragmentNames(doc.Fragments); err != nil {
		return Chosen{}, err
	}
	var op *ast.OperationDefinition
	switch {
	case operationName != "":
		if op = doc.Operations.ForName(operationName); op == nil {
			return Chosen{}, fmt.Errorf("operationName %s names no operation in query; it contains %s", mcptool.Quote(operationName), names(doc.Operations))
		}
	case len(doc.Operations) > 1:
		return Chosen{}, fmt.Errorf("query contains %d operations (%s); pass operationName to choose the one to run", len(doc.Operations), names(doc.Operations))
	default:
		op = doc.Operations[0]
	}
	text, sent := textToSend(doc, op)
	if err := checkBounds(sent, op); err != nil {
		return Chosen{}, err
	}
	return Chosen{Doc: doc, Op: op, Text: text, Sent: sent}, nil
}

// checkOperationNames applies the GraphQL spec's Operation Name Uniqueness
// and Lone Anonymous Operation rules. An endpoint that does not validate may
// run another operation of a repeated name than the one judged here (graphql-js
// execute takes the last), so such a document is refused whole.
func checkOperationNames(ops ast.OperationList) error {
	seen := map[string]bool{}
	for _, op := range ops {
		if op.Name == "" {
			if len(ops) > 1 {
				return fmt.Errorf("query holds an anonymous %s beside other operations (%s); GraphQL allows an anonymous operation only alone: name it, or send it alone", op.Operation, names(ops))
			}
			continue
		}
		if seen[op.Name] {
			return fmt.Errorf("query holds more than one operation named %s; GraphQL requires operation names to be unique: rename or remove the others", mcptool.Quote(op.Name))
		}
		seen[op.Name] = true
	}
	return nil
}

// checkFragmentNames applies the spec's Fragment Name Uniqueness: with
// two definitions of a name, what is judged (or bounded) and what an
// endpoint runs could be different ones, so such a document is refused
// whole.
func checkFragmentNames(fragments ast.FragmentDefinitionList) error {
	seen := make(map[string]bool, len(fragments))
	for _, def := range fragments {
		if seen[def.Name] {
			return fmt.Errorf("query defines more than one fragment named %s; GraphQL requires fragment names to be unique: rename or remove the others", mcptool.Quote(def.Name))
		}
		seen[def.Name] = true
	}
	return nil
}

// textToSend is op and the fragments it spreads, directly or through other
// fragments, printed from the parsed document (the formatter prints no
// comments), and that document.
func textToSend(doc *ast.QueryDocument, op *ast.OperationDefinition) (string, *ast.QueryDocument) {
	used := map[string]bool{}
	walk(doc, op, func(*ast.Field) {}, func(name string) { used[name] = true })
	minimal := &ast.QueryDocument{Operations: ast.OperationList{op}}
	for _, def := range doc.Fragments {
		if used[def.Name] {
			minimal.Fragments = append(minimal.Fragments, def)
		}
	}
	return format(minimal, op), minimal
}

// walk calls field for every field op selects and fragment for every
// fragment it spreads, through fragments, each fragment once.
func walk(doc *ast.QueryDocument, op *ast.OperationDefinition, field func(*ast.Field), fragment func(name string)) {
	// A map, not doc.Fragments.ForName, which scans the list: thousands
	// of fragments would make the walk quadratic.
	defs := map[string]*ast.FragmentDefinition{}
	for _, def := range doc.Fragments {
		if _, ok := defs[def.Name]; !ok {
			defs[def.Name] = def
		}
	}
	spread := map[string]bool{}
	var visit func(set ast.SelectionSet)
	visit = func(set ast.SelectionSet) {
		for _, sel := range set {
			switch sel := sel.(type) {
			case *ast.Field:
				field(sel)
				visit(sel.SelectionSet)
			case *ast.InlineFragment:
				visit(sel.SelectionSet)
			case *ast.FragmentSpread:
				// A fragment seen before is not walked again, so a cycle
				// ends here; the scorer refuses it with its own message.
				if spread[sel.Name] {
					continue
				}
				spread[sel.Name] = true
				fragment(sel.Name)
				if def := defs[sel.Name]; def != nil {
					visit(def.SelectionSet)
				}
			}
		}
	}
	visit(op.SelectionSet)
}

// syntaxError is gqlparser's parse error, in graphql-js's words where they
// differ and are known: lex has already refused what graphql-js's lexer
// refuses, so what is left is the parser's.
func syntaxError(err error, query string, ls lines) error {
	if gqlErr, line, column, ok := parseErrorAt(err, ls); ok {
		message := gqlErr.Message
		if message == "Unexpected $" {
			// gqlparser's word for a variable where a constant is due (a
			// default value); graphql-js names the variable.
			if name := nameAfterDollar(query, line, column); name != "" {
				message = fmt.Sprintf(`Syntax Error: Unexpected variable "$%s" in constant value.`, name)
			}
		}
		return fmt.Errorf("query has a GraphQL syntax error at line %d, column %d: %s; fix the query text", line, column, message)
	}
	return fmt.Errorf("query has a GraphQL syntax error: %v; fix the query text", err)
}

// before is whether err is a syntax error placed before the token lexErr
// is in: graphql-js's parser has then met it before its lexer read that
// token. One placed at that token, or after, is gqlparser's reading of
// text graphql-js's lexer refuses.
func before(err error, lexErr *lexError, ls lines) bool {
	_, line, column, ok := parseErrorAt(err, ls)
	if !ok {
		return false
	}
	token := lexErr.token
	return line < token.line || line == token.line && column < token.column
}

// nameAfterDollar is the name after the $ at line and column (in runes, as
// gqlparser counts; a line ends at a CRLF, a LF or a CR), or "".
func nameAfterDollar(query string, line, column int) string {
	lf := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(query)
	lines := strings.SplitAfterN(lf, "\n", line+1)
	if line < 1 || line > len(lines) {
		return ""
	}
	text := []rune(lines[line-1])
	if column < 1 || column > len(text) || text[column-1] != '$' {
		return ""
	}
	end := column
	for end < len(text) && (isNameStart(text[end]) || end > column && isDigit(text[end])) {
		end++
	}
	return string(text[column:end])
}

func names(ops ast.OperationList) string {
	var list []string
	for _, op := range ops[:min(len(ops), maxNamesListed)] {
		name := "an anonymous " + string(op.Operation)
		if op.Name != "" {
			name = shortName(op.Name)
		}
		list = append(list, name)
	}
	if len(ops) > maxNamesListed {
		list = append(list, fmt.Sprintf("and %d more", len(ops)-maxNamesListed))
	}
	return strings.Join(list, ", ")
}

// maxNamesListed is the most operation names an error lists: a query may
// hold thousands.
const maxNamesListed = 10
