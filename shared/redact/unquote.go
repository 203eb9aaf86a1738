package redact

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// appendUnquote appends the text of the JSON string literal (quotes
// included) to dst, decoded exactly as encoding/json decodes it into a
// string: a lone surrogate escape, and a byte that is not UTF-8, become
// U+FFFD. It reports false for what is not a string literal. Decoding into a
// buffer the caller reuses is what keeps a page's escaped strings from
// making garbage (json.Unmarshal allocates each one).
func appendUnquote(dst, literal []byte) ([]byte, bool) {
	if len(literal) < 2 || literal[0] != '"' || literal[len(literal)-1] != '"' {
		return dst, false
	}
	dst, end, ok := decodeUntilQuote(dst, literal, 1)
	return dst, ok && end == len(literal)
}

// decodeUntilQuote appends the text of the string literal whose first
// character is b[r] (past its opening quote) to dst, decoded as
// appendUnquote decodes it, and returns the index past its closing quote.
// It reports false for a literal encoding/json refuses, or one not closed
// in b.
func decodeUntilQuote(dst, b []byte, r int) ([]byte, int, bool) {
	for r < len(b) {
		switch c := b[r]; {
		case c == '\\':
			r++
			if r >= len(b) {
				return dst, r, false
			}
			switch e := b[r]; e {
			case '"', '\\', '/', '\'':
				dst = append(dst, e)
				r++
			case 'b':
				dst = append(dst, '\b')
				r++
			case 'f':
				dst = append(dst, '\f')
				r++
			case 'n':
				dst = append(dst, '\n')
				r++
			case 'r':
				dst = append(dst, '\r')
				r++
			case 't':
				dst = append(dst, '\t')
				r++
			case 'u':
				rr := getu4(b[r-1:])
				if rr < 0 {
					return dst, r, false
				}
				r += 5
				if utf16.IsSurrogate(rr) {
					// As encoding/json: a surrogate pairs with the escape
					// after it only when the two decode to a character.
					if dec := utf16.DecodeRune(rr, getu4(b[r:])); dec != unicode.ReplacementChar {
						r += 6
						dst = utf8.AppendRune(dst, dec)
						break
					}
					rr = unicode.ReplacementChar
				}
				dst = utf8.AppendRune(dst, rr)
			default:
				return dst, r, false
			}
		case c == '"':
			return dst, r + 1, true
		case c < ' ':
			return dst, r, false
		case c < utf8.RuneSelf:
			// A run of plain ASCII, copied at once: most of a string is.
			end := r + 1
			for end < len(b) && plainASCII(b[end]) {
				end++
			}
			dst = append(dst, b[r:end]...)
			r = end
		default:
			rr, size := utf8.DecodeRune(b[r:])
			r += size
			dst = utf8.AppendRune(dst, rr)
		}
	}
	return dst, r, false
}

// plainASCII reports an ASCII byte a string literal holds as it is.
func plainASCII(c byte) bool {
	return c >= ' ' && c < utf8.RuneSelf && c != '"' && c != '\\'
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		d, ok := digit(c, 16)
		if !ok {
			return -1
		}
		r = r*16 + d
	}
	return r
}
