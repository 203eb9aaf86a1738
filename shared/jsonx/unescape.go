package jsonx

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// AppendUnescape appends to dst the JSON document src with every string
// written with the fewest escapes, exactly as Unescape writes it, and
// returns the extended buffer. It allocates nothing beyond dst's growth, so
// a caller that respells many documents (a listing's requests, one by one)
// reuses one buffer for them all instead of making garbage of each.
func AppendUnescape(dst, src []byte) []byte {
	return appendSpelled(dst, src, true, false)
}

// AppendCompact appends the valid JSON document src to dst without the
// space between its tokens, as json.Compact writes it, in one pass that
// skips over strings a block at a time.
func AppendCompact(dst, src []byte) []byte {
	return appendSpelled(dst, src, false, true)
}

// AppendCompactUnescape is AppendUnescape and AppendCompact in one pass:
// the valid JSON document src, its strings with the fewest escapes, without
// space between its tokens.
func AppendCompactUnescape(dst, src []byte) []byte {
	return appendSpelled(dst, src, true, true)
}

// appendSpelled appends src to dst, its escaped strings respelled when
// respell, the space between its tokens left out when compact.
func appendSpelled(dst, src []byte, respell, compact bool) []byte {
	for i := 0; i < len(src); {
		// Everything outside a string, and a string without an escape,
		// is copied as it is (outside, without space when compact).
		quote := bytes.IndexByte(src[i:], '"')
		if quote < 0 {
			return appendOutside(dst, src[i:], compact)
		}
		quote += i
		dst = appendOutside(dst, src[i:quote], compact)
		end, escaped := stringEnd(src, quote)
		if escaped && respell {
			dst = appendRespelled(dst, src[quote:end])
		} else {
			dst = append(dst, src[quote:end]...)
		}
		i = end
	}
	return dst
}

// appendOutside appends what lies between strings, without its space
// when compact.
func appendOutside(dst, between []byte, compact bool) []byte {
	if !compact {
		return append(dst, between...)
	}
	start := 0
	for i, c := range between {
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			dst = append(dst, between[start:i]...)
			start = i + 1
		}
	}
	return append(dst, between[start:]...)
}

// appendRespelled appends the JSON string literal (quotes included) with
// the fewest escapes, as Marshal writes the text it decodes to, in one pass
// that decodes as encoding/json does and encodes as Marshal does. A literal
// that is not a valid JSON string, or whose escapes do not decode to the
// same text (see keepsReplacement), is appended as it is.
func appendRespelled(dst, literal []byte) []byte {
	mark := len(dst)
	asItIs := func() []byte { return append(dst[:mark], literal...) }
	if len(literal) < 2 || literal[len(literal)-1] != '"' {
		return asItIs()
	}
	dst = append(dst, '"')
	// replaced: the text holds U+FFFD, which a lone surrogate or a byte
	// that is not UTF-8 decodes to.
	replaced := false
	inner := literal[1 : len(literal)-1]
	for i := 0; i < len(inner); {
		c := inner[i]
		switch {
		case c < 0x20:
			return asItIs() // a control character must be escaped in JSON
		case c < utf8.RuneSelf && c != '\\':
			dst = append(dst, c)
			i++
		case c >= utf8.RuneSelf:
			// A byte that is not UTF-8 decodes to U+FFFD, as U+FFFD does.
			r, size := utf8.DecodeRune(inner[i:])
			if r == utf8.RuneError {
				replaced = true
			}
			dst = appendRune(dst, r)
			i += size
		default:
			if i+1 >= len(inner) {
				return asItIs()
			}
			switch e := inner[i+1]; e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				dst = appendRune(dst, rune(shortEscapes[e]))
				i += 2
			case 'u':
				r := hex4(inner, i+2)
				if r < 0 {
					return asItIs()
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// As encoding/json decodes: a pair is one character,
					// anything else U+FFFD, and what follows a lone
					// surrogate is read on its own.
					low := rune(-1)
					if i+1 < len(inner) && inner[i] == '\\' && inner[i+1] == 'u' {
						low = hex4(inner, i+2)
					}
					if pair := utf16.DecodeRune(r, low); pair != utf8.RuneError {
						r = pair
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				if r == utf8.RuneError {
					replaced = true
				}
				dst = appendRune(dst, r)
			default:
				return asItIs()
			}
		}
	}
	if replaced && !keepsReplacement(literal) {
		return asItIs()
	}
	return append(dst, '"')
}

// shortEscapes are the characters of JSON's two-character escapes, by the
// letter after the backslash.
var shortEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// keepsReplacement reports whether the literal says U+FFFD itself, as
// that character or (in any case) as \ufffd: Unescape's check that its
// U+FFFD are the text's own, not a lone surrogate or a byte that is not
// UTF-8 that decoding would turn into one, which it then leaves as it is.
func keepsReplacement(literal []byte) bool {
	const replacement = "\uFFFD"
	for i := range literal {
		if i+len(replacement) <= len(literal) && string(literal[i:i+len(replacement)]) == replacement {
			return true
		}
		if literal[i] == '\\' && i+6 <= len(literal) && lower(literal[i+1]) == 'u' &&
			lower(literal[i+2]) == 'f' && lower(literal[i+3]) == 'f' && lower(literal[i+4]) == 'f' && lower(literal[i+5]) == 'd' {
			return true
		}
	}
	return false
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hex4 is the value of the four hex digits at b[i:], or -1.
func hex4(b []byte, i int) rune {
	if i+4 > len(b) {
		return -1
	}
	r := rune(0)
	for _, c := range b[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// appendRune appends r as Marshal writes it in a string: escaped only
// where JSON requires it, with encoding/json's short escapes; <, >, &,
// U+2028 and U+2029 as themselves.
func appendRune(dst []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	switch {
	case r == '"' || r == '\\':
		return append(dst, '\\', byte(r))
	case r == '\b':
		return append(dst, '\\', 'b')
	case r == '\f':
		return append(dst, '\\', 'f')
	case r == '\n':
		return append(dst, '\\', 'n')
	case r == '\r':
		return append(dst, '\\', 'r')
	case r == '\t':
		return append(dst, '\\', 't')
	case r < 0x20:
		return append(dst, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
	case r < utf8.RuneSelf:
		return append(dst, byte(r))
	}
	return utf8.AppendRune(dst, r)
}
