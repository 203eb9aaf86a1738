package coerce

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator/core"
)

// EscapeRule refuses a string literal with a \u escape of a lone surrogate
// (\uD800 not followed by a \uDC00–\uDFFF escape, or a \uDC00–\uDFFF
// alone), as graphql-js's lexer does ("Invalid Unicode escape sequence").
// gqlparser's lexer reads it as U+FFFD, so the operation sent would carry
// a character the query did not hold. The escapes are read from the query
// as given, which each value's position points into.
func EscapeRule() core.Rule {
	return core.Rule{Name: "StringEscapes", RuleFunc: func(observers *core.Events, addError core.AddErrFunc) {
		seen := map[*ast.Value]bool{}
		// source is the query as runes, which positions count; made once,
		// for the first string that needs it.
		var source []rune
		observers.OnValue(func(_ *core.Walker, v *ast.Value) {
			// A lone surrogate decodes to U+FFFD: only such a string needs
			// its escapes read.
			if v.Kind != ast.StringValue || !strings.ContainsRune(v.Raw, utf8.RuneError) || seen[v] {
				return
			}
			seen[v] = true
			pos := v.Position
			if pos == nil || pos.Src == nil {
				return
			}
			if source == nil {
				source = []rune(pos.Src.Input)
			}
			if pos.Start < 0 || pos.End > len(source) || pos.Start >= pos.End {
				return
			}
			token := source[pos.Start:pos.End]
			if at, escape, ok := loneSurrogate(token); ok {
				// gqlparser's column of a string is its first character's,
				// one past the opening quote at which the token starts.
				where := *pos
				where.Column += at - 1
				addError(core.Message(`Syntax Error: Invalid Unicode escape sequence: "%s".`, escape), core.At(&where))
			}
		})
	}}
}

// loneSurrogate finds the first \u escape of a lone surrogate in the
// runes of a quoted string token: its offset in the token and its text.
func loneSurrogate(token []rune) (at int, escape string, ok bool) {
	for i := 0; i < len(token); i++ {
		if token[i] != '\\' || i+1 >= len(token) {
			continue
		}
		if token[i+1] != 'u' {
			i++ // an escaped character: \" \\ \n …
			continue
		}
		code, isFixed := hex4(token, i+2)
		if !isFixed {
			i++ // \u{…}, which gqlparser already holds to the spec
			continue
		}
		switch {
		case code >= 0xD800 && code <= 0xDBFF:
			if i+7 < len(token) && token[i+6] == '\\' && token[i+7] == 'u' {
				if trail, ok := hex4(token, i+8); ok && trail >= 0xDC00 && trail <= 0xDFFF {
					i += 11
					continue
				}
			}
			return i, string(token[i : i+6]), true
		case code >= 0xDC00 && code <= 0xDFFF:
			return i, string(token[i : i+6]), true
		}
		i += 5
	}
	return 0, "", false
}

// hex4 reads four hexadecimal digits at token[i:].
func hex4(token []rune, i int) (rune, bool) {
	if i+4 > len(token) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(token[i:i+4]), 16, 16)
	return rune(n), err == nil
}
