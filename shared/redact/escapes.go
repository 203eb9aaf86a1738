package redact

import (
	"bytes"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// An echo may write some characters of a secret as escapes and leave the
// rest as they are: a JSON encoder that escapes "/" or non-ASCII (\/,
// \u0073), a URL encoder that escapes more than Go's does (%73), an HTML
// page that writes character references (&#115;, &#x73;, &amp;). Inside a
// valid JSON document Bytes reads strings decoded; everywhere else (an error
// page, a broken part, plain text) escaped finds the secret with each of its
// characters written either way.

// startsOf is the bytes a spelling can start with: an escape's first byte,
// or a secret's first byte in either ASCII case. New computes it once.
func startsOf(secrets [][]byte) *[256]bool {
	var t [256]bool
	for _, c := range []byte(`\%&`) {
		t[c] = true
	}
	for _, secret := range secrets {
		c := secret[0]
		t[c] = true
		if 'a' <= c && c <= 'z' {
			t[c-'a'+'A'] = true
		}
	}
	return &t
}

// escaped returns b with every spelling of a secret in which characters are
// written as JSON, percent or HTML escapes replaced.
func (r Redactor) escaped(b []byte) []byte {
	if len(r.secrets) == 0 || !hasEscapeByte(b) {
		return b
	}
	starts := r.starts
	var out []byte // nil until the first change
	copied := 0
	for i := 0; i < len(b); {
		if !starts[b[i]] {
			i++
			continue
		}
		end := -1
		for _, secret := range r.secrets {
			if e, ok := spelledAt(b, i, secret); ok {
				end = e
				break
			}
		}
		if end < 0 {
			i++
			continue
		}
		out = append(append(out, b[copied:i]...), Redacted...)
		copied, i = end, end
	}
	if out == nil {
		return b
	}
	return append(out, b[copied:]...)
}

// hasEscapeByte reports whether b holds a byte an escape starts with: \,
// % or &. Three vector searches beat IndexAny's byte-by-byte loop over the
// strings of a page, most of which hold none.
func hasEscapeByte(b []byte) bool {
	return bytes.IndexByte(b, '\\') >= 0 || bytes.IndexByte(b, '%') >= 0 || bytes.IndexByte(b, '&') >= 0
}

// hasEscaped reports whether b holds a spelling escaped would replace.
// No escape is shorter than what it decodes to, so a spelling takes at
// least as many bytes as its secret.
func (r Redactor) hasEscaped(b []byte) bool {
	if len(r.secrets) == 0 || len(b) < len(r.secrets[len(r.secrets)-1]) || !hasEscapeByte(b) {
		return false
	}
	starts := r.starts
	for i, c := range b {
		if !starts[c] {
			continue
		}
		for _, secret := range r.secrets {
			if _, ok := spelledAt(b, i, secret); ok {
				return true
			}
		}
	}
	return false
}

// spelledAt reports whether b spells secret (ASCII lower case) from start,
// each character as it is, in another ASCII case, or escaped, and where the
// spelling ends.
func spelledAt(b []byte, start int, secret []byte) (int, bool) {
	p := start
	var unit [utf8.UTFMax]byte
	for j := 0; j < len(secret); {
		if p >= len(b) {
			return 0, false
		}
		n, width := decodeUnit(b, p, &unit)
		if j+n > len(secret) {
			return 0, false
		}
		for k := range n {
			c := unit[k]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != secret[j+k] {
				return 0, false
			}
		}
		j += n
		p += width
	}
	return p, true
}

// decodeUnit decodes the character or escape at b[p] into unit, returning
// how many bytes it decodes to and how many of b it takes. Anything that is
// not a whole escape is one byte as it is.
func decodeUnit(b []byte, p int, unit *[utf8.UTFMax]byte) (n, width int) {
	rest := b[p:]
	switch {
	case rest[0] == '\\' && len(rest) >= 2:
		switch c := rest[1]; c {
		case '/', '\\', '"', '\'':
			unit[0] = c
			return 1, 2
		case 'b', 'f', 'n', 'r', 't':
			unit[0] = "\b\f\n\r\t"[strings.IndexByte("bfnrt", c)]
			return 1, 2
		case 'u':
			r, ok := hexRune(rest[2:], 4)
			if !ok {
				break
			}
			width = 6
			if utf16.IsSurrogate(r) {
				if len(rest) >= 12 && rest[6] == '\\' && rest[7] == 'u' {
					if low, ok := hexRune(rest[8:], 4); ok {
						r, width = utf16.DecodeRune(r, low), 12
					}
				}
			}
			return utf8.EncodeRune(unit[:], r), width
		}
	case rest[0] == '%' && len(rest) >= 3:
		if v, ok := hexRune(rest[1:], 2); ok {
			unit[0] = byte(v)
			return 1, 3
		}
	case rest[0] == '&':
		for _, named := range []struct {
			text string
			c    byte
		}{{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}} {
			if bytes.HasPrefix(rest, []byte(named.text)) {
				unit[0] = named.c
				return 1, len(named.text)
			}
		}
		if r, w, ok := numericReference(rest); ok {
			return utf8.EncodeRune(unit[:], r), w
		}
	}
	unit[0] = rest[0]
	return 1, 1
}

// numericReference reads an HTML numeric character reference (&#115; or
// &#x73;, at most 7 digits) at the start of b.
func numericReference(b []byte) (rune, int, bool) {
	if len(b) < 4 || b[1] != '#' {
		return 0, 0, false
	}
	base, i := rune(10), 2
	if b[2] == 'x' || b[2] == 'X' {
		base, i = 16, 3
	}
	var r rune
	digits := 0
	for ; i < len(b) && digits < 8; i++ {
		d, ok := digit(b[i], base)
		if !ok {
			break
		}
		r = r*base + d
		digits++
	}
	if digits == 0 || digits > 7 || i >= len(b) || b[i] != ';' || r > utf8.MaxRune {
		return 0, 0, false
	}
	return r, i + 1, true
}

// hexRune reads n hex digits at the start of b.
func hexRune(b []byte, n int) (rune, bool) {
	if len(b) < n {
		return 0, false
	}
	var r rune
	for _, c := range b[:n] {
		d, ok := digit(c, 16)
		if !ok {
			return 0, false
		}
		r = r*16 + d
	}
	return r, true
}

func digit(c byte, base rune) (rune, bool) {
	var d rune
	switch {
	case '0' <= c && c <= '9':
		d = rune(c - '0')
	case 'a' <= c && c <= 'f':
		d = rune(c-'a') + 10
	case 'A' <= c && c <= 'F':
		d = rune(c-'A') + 10
	default:
		return 0, false
	}
	return d, d < base
}
