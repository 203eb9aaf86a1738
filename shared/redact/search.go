package redact

// A page of 100 captured requests is tens of thousands of strings, each of
// which contains must search for every form of every secret (a dozen for
// one key) and for its escaped spellings. Searching each form in turn, over
// a lowered copy, cost more than all the rest of a resource read. candidates
// finds, in one pass over a string, the places where any of them can start:
// a match starts with one of few pairs of bytes, and a table of them (8
// KiB) leaves a clean string's bytes at one lookup each.

// pairTable marks the pairs of bytes (first<<8 | second) a form or a
// spelling of a secret can start with.
// firsts marks the first bytes of those pairs: a lookup a byte that
// starts none (most) passes with.
type pairTable struct {
	bits   [1 << 16 / 8]byte
	firsts [256]bool
}

func (t *pairTable) set(a, b byte) {
	k := uint(a)<<8 | uint(b)
	t.bits[k>>3] |= 1 << (k & 7)
	t.firsts[a] = true
}

// cases is c and, for a lower-case ASCII letter, its capital: the bytes a
// folded (lower-case) byte matches.
func cases(c byte) []byte {
	if 'a' <= c && c <= 'z' {
		return []byte{c, c - 'a' + 'A'}
	}
	return []byte{c}
}

// escapeSeconds are the bytes after a backslash that make a JSON escape
// (decodeUnit), with what each decodes to; 'u' decodes to anything.
var escapeSeconds = map[byte]byte{'/': '/', '\\': '\\', '"': '"', '\'': '\'', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'u': 0}

// pairsOf marks every pair of bytes a match of contains can start with: a
// superset, since each place it marks is then checked in full. Every form
// and secret is at least two bytes long (minSecretLen), and no spelling is
// shorter than its secret, so a match always has a second byte.
func pairsOf(forms []form, secrets [][]byte) *pairTable {
	var t pairTable
	for _, f := range forms {
		first, second := []byte{f.bytes[0]}, []byte{f.bytes[1]}
		if f.folded {
			first, second = cases(f.bytes[0]), cases(f.bytes[1])
		}
		for _, a := range first {
			for _, b := range second {
				t.set(a, b)
			}
		}
	}
	all := func(a byte) {
		for b := range 256 {
			t.set(a, byte(b))
		}
	}
	for _, secret := range secrets {
		// The first character as it is (in either case), and the second
		// as it is or escaped.
		for _, a := range cases(secret[0]) {
			for _, b := range append(cases(secret[1]), '\\', '%', '&') {
				t.set(a, b)
			}
		}
		// The first character escaped. An escape's first byte that starts
		// no escape is a character as it is, which the line above covers
		// when it is the secret's first.
		for b, decoded := range escapeSeconds {
			if b == 'u' || decoded == secret[0] {
				t.set('\\', b)
			}
		}
		for _, b := range []byte("0123456789abcdefABCDEF") {
			t.set('%', b)
		}
		for _, b := range []byte("#alqg") {
			t.set('&', b)
		}
		switch secret[0] {
		case '\\', '%', '&':
			// A secret that starts with an escape's first byte: that byte
			// as it is can be followed by anything an escape of its second
			// character starts with, too.
			all(secret[0])
		}
	}
	return &t
}

// foldedAt reports whether s holds lower (ASCII lower case) at i, in any
// ASCII case.
func foldedAt(s []byte, i int, lower []byte) bool {
	if len(s)-i < len(lower) {
		return false
	}
	for k, c := range lower {
		b := s[i+k]
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if b != c {
			return false
		}
	}
	return true
}

// exactAt reports whether s holds want at i.
func exactAt(s []byte, i int, want []byte) bool {
	return len(s)-i >= len(want) && string(s[i:i+len(want)]) == string(want)
}

// search reports whether s holds any form of a secret, or any spelling of
// one with characters escaped (spelledAt): what containsEach finds, in one
// pass over s.
func (r Redactor) search(s []byte) bool {
	if r.pairs == nil || len(s) < r.shortest {
		return false
	}
	pairs, firsts := r.pairs, &r.pairs.firsts
	last := len(s) - 1
	for i := 0; i < last; i++ {
		if !firsts[s[i]] {
			continue
		}
		k := uint(s[i])<<8 | uint(s[i+1])
		if pairs.bits[k>>3]&(1<<(k&7)) == 0 {
			continue
		}
		for _, f := range r.forms {
			if f.folded && foldedAt(s, i, f.bytes) || !f.folded && exactAt(s, i, f.bytes) {
				return true
			}
		}
		for _, secret := range r.secrets {
			if _, ok := spelledAt(s, i, secret); ok {
				return true
			}
		}
	}
	return false
}
