package httpx

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// HeaderName names a header for a message without showing what may be a
// secret: the name, quoted, when it reads as a header name (letters, digits
// and dashes, starting with a letter, no part between dashes over 20
// characters, at most 40 in all); else only its length. A name given by
// mistake is often a whole header line ("Authorization: Bearer …") or a
// token pasted in the wrong place.
func HeaderName(name string) string {
	if ReadsAsHeaderName(name) {
		return fmt.Sprintf("%q", name)
	}
	return fmt.Sprintf("<a %d-character name, not shown: it may hold a secret>", utf8.RuneCountInString(name))
}

// ReadsAsHeaderName reports whether name looks like a header name and so may
// be shown. An underscore or a long run of letters and digits is more likely
// a token (ghp_…, sk-…) than a name.
func ReadsAsHeaderName(name string) bool {
	if name == "" || len(name) > 40 || !isLetter(name[0]) {
		return false
	}
	for _, part := range strings.Split(name, "-") {
		if len(part) > 20 {
			return false
		}
		for i := 0; i < len(part); i++ {
			if !isLetter(part[i]) && !(part[i] >= '0' && part[i] <= '9') {
				return false
			}
		}
	}
	return true
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// ValidHeaderName reports whether name is an HTTP token, as a header name
// must be.
func ValidHeaderName(name string) bool { return name != "" && badHeaderRune(name) < 0 }

// badHeaderRune is the index of name's first character that a header name
// may not hold, or -1.
func badHeaderRune(name string) int {
	return strings.IndexFunc(name, func(r rune) bool {
		return r >= 0x7f || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
	})
}

// InvalidHeaderName explains why name, which ValidHeaderName refused, is
// not a header name: which character, and where, never the name itself,
// which may hold a secret.
func InvalidHeaderName(name string) string {
	if name == "" {
		return "a header name is empty"
	}
	at := badHeaderRune(name)
	r, _ := utf8.DecodeRuneInString(name[at:])
	text := fmt.Sprintf("header name %s is not a valid HTTP header name: it holds %s at character %d; a name is letters, digits and !#$%%&'*+-.^_`|~ only",
		HeaderName(name), describeRune(r), utf8.RuneCountInString(name[:at])+1)
	if strings.Contains(name, ":") {
		text += `. A name with a colon reads as a whole header line ("Name: value"): give the name and the value apart, {"Name":"value"}`
	}
	return text
}

// describeRune names a character for a message: one character of a name
// shows nothing of a secret.
func describeRune(r rune) string {
	switch {
	case r == ' ':
		return "a space"
	case r == ':':
		return "a colon"
	case r == '\t':
		return "a tab"
	case r == '\r' || r == '\n':
		return "a line break"
	case r < ' ' || r == 0x7f:
		return fmt.Sprintf("the control character U+%04X", r)
	case r > 0x7f:
		return fmt.Sprintf("the non-ASCII character U+%04X", r)
	}
	return fmt.Sprintf("%q", string(r))
}
