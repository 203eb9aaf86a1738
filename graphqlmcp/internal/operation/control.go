package operation

import (
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// The GraphQL spec (September 2025) and graphql-js read any Unicode scalar
// value inside a string, a block string or a comment, control characters
// such as U+0007 included; gqlparser's lexer follows the older SourceCharacter
// and refuses them, so an operation every reference server runs would be
// refused here. Before parsing, each such character inside a string becomes
// a stand-in from a private-use plane (one rune for one, so line and column
// positions do not move), and inside a comment a space; after parsing the
// stand-ins in string values become the characters again. The printer then
// sends them escaped (\u0007). Outside strings and comments a control
// character is refused, as graphql-js refuses it.
//
// The 32 stand-ins are a block of planes 15 and 16 (private use) of which
// the query neither writes nor escapes any rune: a private-use character
// the query gives is sent as it is, never turned into a control character
// (TestControlCharacters).
const (
	standInFirst = 0xF0000
	standInLast  = 0x10FFFF
	standInBlock = 0x20
)

// isControl is a character gqlparser refuses where graphql-js reads it.
func isControl(b byte) bool {
	return b < 0x20 && b != '\t' && b != '\n' && b != '\r'
}

// standInBase is the first rune of a block of stand-ins that neither query
// nor escaped (the runes its escapes stand for) holds, or 0 when every
// block holds one.
func standInBase(query string, escaped []rune) rune {
	used := make([]bool, (standInLast-standInFirst+1)/standInBlock)
	mark := func(r rune) {
		if r >= standInFirst && r <= standInLast {
			used[(r-standInFirst)/standInBlock] = true
		}
	}
	for _, r := range query {
		mark(r)
	}
	for _, r := range escaped {
		mark(r)
	}
	for i, u := range used {
		if !u {
			return standInFirst + rune(i)*standInBlock
		}
	}
	return 0
}

// standIns returns the text gqlparser parses in place of query: every
// control character inside a string replaced by a stand-in, and the first
// stand-in when any was (else 0); inside a comment, a space. escaped are
// the private-use runes the query's escapes stand for; no stand-in is one
// of them or a rune of the query, so no rune of the query is ever changed
// into another. When there is no such block, control characters in strings
// are left as they are (gqlparser then refuses them).
//
// The CR of each CRLF outside strings becomes a space too: gqlparser starts
// the next line after the CR, not after the LF, so it placed everything on
// that line a column too far (TestRefusedAsGraphQLJS "a parse error after
// CRLFs"). Runes and lines are as many as before, so positions stay those of
// the query as given.
func standIns(query string, escaped []rune) (string, rune) {
	hasControl := strings.ContainsFunc(query, func(r rune) bool { return r < 0x20 && isControl(byte(r)) })
	if !hasControl && !strings.Contains(query, "\r\n") {
		return query, 0
	}
	var base rune
	if hasControl {
		base = standInBase(query, escaped)
	}
	var b strings.Builder
	b.Grow(len(query) + 3*16)
	inString := false
	const (
		normal = iota
		comment
		quoted
		block
	)
	state := normal
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch state {
		case normal:
			switch {
			case c == '#':
				state = comment
			case strings.HasPrefix(query[i:], `"""`):
				b.WriteString(`"""`)
				i += 2
				state = block
				continue
			case c == '"':
				state = quoted
			}
		case comment:
			if c == '\n' || c == '\r' {
				state = normal
			} else if isControl(c) {
				c = ' '
			}
		case quoted:
			switch {
			case c == '\\' && i+1 < len(query) && query[i+1] != '\n' && query[i+1] != '\r':
				// An escape's second character is never the closing quote.
				b.WriteByte(c)
				i++
				c = query[i]
			case c == '"' || c == '\n' || c == '\r':
				// A line terminator ends an unterminated string; the
				// parser refuses it.
				state = normal
			case isControl(c) && base != 0:
				b.WriteRune(base + rune(c))
				inString = true
				continue
			}
		case block:
			switch {
			case strings.HasPrefix(query[i:], `\"""`):
				b.WriteString(`\"""`)
				i += 3
				continue
			case strings.HasPrefix(query[i:], `"""`):
				b.WriteString(`"""`)
				i += 2
				state = normal
				continue
			case isControl(c) && base != 0:
				b.WriteRune(base + rune(c))
				inString = true
				continue
			}
		}
		if c == '\r' && state == normal && i+1 < len(query) && query[i+1] == '\n' {
			c = ' '
		}
		b.WriteByte(c)
	}
	if !inString {
		base = 0
	}
	return b.String(), base
}

// restoreControls puts the control characters back into every string value
// of doc that holds a stand-in of the block at base.
func restoreControls(doc *ast.QueryDocument, base rune) {
	isStandIn := func(r rune) bool { return r >= base && r < base+standInBlock }
	eachValue(doc, func(v *ast.Value, _ bool) {
		if (v.Kind == ast.StringValue || v.Kind == ast.BlockValue) && strings.ContainsFunc(v.Raw, isStandIn) {
			v.Raw = strings.Map(func(r rune) rune {
				if isStandIn(r) {
					return r - base
				}
				return r
			}, v.Raw)
		}
	})
}

// eachValue calls f for every value in doc, lists' and objects' members
// included, operations before fragments, each with whether it is in a
// variable definition's directive (where graphql-js allows only constants).
func eachValue(doc *ast.QueryDocument, f func(v *ast.Value, varDirective bool)) {
	var value func(v *ast.Value, varDirective bool)
	value = func(v *ast.Value, varDirective bool) {
		if v == nil {
			return
		}
		f(v, varDirective)
		for _, child := range v.Children {
			value(child.Value, varDirective)
		}
	}
	arguments := func(args ast.ArgumentList, varDirective bool) {
		for _, arg := range args {
			value(arg.Value, varDirective)
		}
	}
	directives := func(list ast.DirectiveList, varDirective bool) {
		for _, d := range list {
			arguments(d.Arguments, varDirective)
		}
	}
	var selections func(set ast.SelectionSet)
	selections = func(set ast.SelectionSet) {
		for _, sel := range set {
			switch sel := sel.(type) {
			case *ast.Field:
				arguments(sel.Arguments, false)
				directives(sel.Directives, false)
				selections(sel.SelectionSet)
			case *ast.InlineFragment:
				directives(sel.Directives, false)
				selections(sel.SelectionSet)
			case *ast.FragmentSpread:
				directives(sel.Directives, false)
			}
		}
	}
	for _, op := range doc.Operations {
		for _, def := range op.VariableDefinitions {
			value(def.DefaultValue, false)
			directives(def.Directives, true)
		}
		directives(op.Directives, false)
		selections(op.SelectionSet)
	}
	for _, def := range doc.Fragments {
		directives(def.Directives, false)
		selections(def.SelectionSet)
	}
}
