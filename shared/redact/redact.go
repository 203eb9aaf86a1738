// Package redact removes secrets (API keys, credential headers) from anything
// a server hands back or logs: an upstream may echo a credential into its
// answer or its error page, and it must never reach the assistant from there,
// in any encoding.
package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpforge/servers/shared/jsonx"
)

// Redacted replaces a secret wherever it appears.
const Redacted = "[REDACTED]"

// minSecretLen keeps short values ("1", "yes") from being redacted out of
// ordinary text; credentials are longer.
const minSecretLen = 6

// Redactor replaces a fixed set of secrets. The zero value redacts nothing.
type Redactor struct {
	// forms are the byte strings to replace: each secret as it is and in the
	// encodings an echo may carry it in, longest first.
	forms []form
	// secrets are the secrets themselves in ASCII lower case, longest
	// first, for spellings with some characters escaped (escapes.go).
	secrets [][]byte
	// starts are the bytes an escaped spelling can start with (escapes.go).
	starts *[256]bool
	// quoteEdge: a form or secret starts or ends with '"', so a string
	// literal can hold one its text does not (one that takes in a quote).
	quoteEdge bool
	// pairs are the pairs of bytes a form or spelling can start with, and
	// shortest the fewest bytes one takes (search.go).
	pairs    *pairTable
	shortest int
}

// scratch is what one Bytes call reuses from string to string of a JSON
// document, so that redacting a page makes no garbage in proportion to it
// (hookmcp redacts every page of a 15 MB resource read).
type scratch struct {
	decoded []byte // a string literal's text, decoded
	// escapes: the literal holds an escape; and when ready, decoded is
	// its text, decoded as the literal was found (stringAt).
	escapes, ready bool
}

// form is one spelling of a secret. A folded form matches in any ASCII
// case: an echo may change a secret's case (Go rewrites header names, a
// service may print a UUID key in capitals), and a secret in other case is
// still the secret. A base64 form is matched exactly: its case is its value.
type form struct {
	bytes  []byte // ASCII lower case when folded
	folded bool
}

// New redacts each secret of at least minSecretLen bytes: as it is, and in
// the forms an upstream that echoes it would use: JSON-escaped (with or
// without HTML escaping), URL-encoded (query and path), and base64 (standard
// and URL alphabets, padded or not). Escapes of any other shape inside a JSON
// document (\/, \u0041) are caught by Bytes, which reads JSON strings decoded;
// a secret with some characters written as JSON, percent or HTML escapes is
// caught anywhere (escapes.go).
func New(secrets ...string) Redactor {
	var r Redactor
	seen := map[string]bool{}
	add := func(spelling string, folded bool) {
		key := "exact:" + spelling
		if folded {
			spelling = string(lowerASCII([]byte(spelling)))
			key = "folded:" + spelling
		}
		if len(spelling) >= minSecretLen && !seen[key] {
			seen[key] = true
			r.forms = append(r.forms, form{bytes: []byte(spelling), folded: folded})
		}
	}
	for _, s := range secrets {
		if len(s) < minSecretLen {
			continue
		}
		add(s, true)
		r.secrets = append(r.secrets, lowerASCII([]byte(s)))
		for _, marshal := range []func(any) ([]byte, error){json.Marshal, jsonx.Marshal} {
			if escaped, err := marshal(s); err == nil {
				add(string(escaped[1:len(escaped)-1]), true)
			}
		}
		add(url.QueryEscape(s), true)
		add(url.PathEscape(s), true)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			add(enc.EncodeToString([]byte(s)), false)
		}
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			for offset := range 3 {
				add(base64Inside(enc, s, offset), false)
			}
		}
	}
	// Longest first, so a whole value goes before a part of it.
	slices.SortStableFunc(r.forms, func(a, b form) int { return len(b.bytes) - len(a.bytes) })
	slices.SortStableFunc(r.secrets, func(a, b []byte) int { return len(b) - len(a) })
	if len(r.secrets) > 0 {
		r.starts = startsOf(r.secrets)
		r.pairs = pairsOf(r.forms, r.secrets)
		// No spelling is shorter than its secret, and the forms are
		// longest first.
		r.shortest = min(len(r.forms[len(r.forms)-1].bytes), len(r.secrets[len(r.secrets)-1]))
	}
	quoted := func(b []byte) bool { return len(b) > 0 && (b[0] == '"' || b[len(b)-1] == '"') }
	for _, f := range r.forms {
		r.quoteEdge = r.quoteEdge || quoted(f.bytes)
	}
	for _, secret := range r.secrets {
		r.quoteEdge = r.quoteEdge || quoted(secret)
	}
	return r
}

// base64Inside is what any base64 text holding secret at a byte offset of
// offset (mod 3) from the start of the encoded bytes spells, whatever comes
// before and after it: the characters whose six bits all come from the
// secret. Basic auth encodes "user:" + key, so a key is rarely at offset 0.
func base64Inside(enc *base64.Encoding, secret string, offset int) string {
	encoded := enc.EncodeToString(append(make([]byte, offset), secret...))
	first := (8*offset + 5) / 6            // the first character past the filler's bits
	last := (8*offset + 8*len(secret)) / 6 // the characters that end within the secret
	if first >= last {
		return ""
	}
	return encoded[first:last]
}

// Empty reports whether r redacts nothing.
func (r Redactor) Empty() bool { return len(r.forms) == 0 }

// Bytes returns b with every secret replaced; b itself is not changed. A
// valid JSON document stays valid, and its strings are judged decoded, so an
// escape (\/, \u0053) cannot hide a secret; anything else is replaced as
// bytes.
func (r Redactor) Bytes(b []byte) []byte {
	if r.Empty() {
		return b
	}
	if json.Valid(b) {
		return r.jsonDocument(b)
	}
	return r.raw(b)
}

// ValidJSON is Bytes for b that the caller found to be valid JSON (it
// decoded it), without Bytes' own check of it, which is most of what
// redacting a clean page costs. b that may not be valid JSON goes to
// Bytes: taken for JSON, it would be searched by its strings only.
func (r Redactor) ValidJSON(b []byte) []byte {
	if r.Empty() {
		return b
	}
	return r.jsonDocument(b)
}

// String is Bytes for text.
func (r Redactor) String(s string) string {
	if r.Empty() {
		return s
	}
	return string(r.Bytes([]byte(s)))
}

func (r Redactor) raw(b []byte) []byte {
	var lower []byte // b in ASCII lower case, for the folded forms
	for _, f := range r.forms {
		if !f.folded {
			if bytes.Contains(b, f.bytes) {
				b, lower = bytes.ReplaceAll(b, f.bytes, []byte(Redacted)), nil
			}
			continue
		}
		if lower == nil {
			lower = lowerASCII(slices.Clone(b))
		}
		if !bytes.Contains(lower, f.bytes) {
			continue
		}
		// Lowering keeps every byte where it was, so a match found in
		// lower is at the same place in b.
		var out []byte
		last := 0
		for {
			i := bytes.Index(lower[last:], f.bytes)
			if i < 0 {
				break
			}
			out = append(append(out, b[last:last+i]...), Redacted...)
			last += i + len(f.bytes)
		}
		b, lower = append(out, b[last:]...), nil
	}
	return r.escaped(b)
}

// lowerASCII lowers A-Z in place and returns b.
func lowerASCII(b []byte) []byte {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return b
}

// Contains reports whether s holds a secret in any form Bytes would redact
// (a JSON document's escaped strings included), so that a caller can refuse
// to send it anywhere. Bytes leaves text without a secret unchanged.
func (r Redactor) Contains(s string) bool { return !r.Empty() && r.String(s) != s }

// contains reports whether s holds any form of a secret, or a spelling of
// one with some characters escaped: one pass over s (search.go).
func (r Redactor) contains(s []byte) bool { return r.search(s) }

// jsonDocument redacts the strings and numbers of a valid JSON document one
// literal at a time, leaving every other byte as it was. A literal with no
// secret in it is copied unchanged, so a clean document comes back equal.
func (r Redactor) jsonDocument(b []byte) []byte {
	var out []byte // nil until the first change
	// Sized for most strings of a page, so that they seldom grow.
	sc := scratch{decoded: make([]byte, 0, 2048)}
	copied := 0
	for i := 0; i < len(b); {
		c := b[i]
		var end int
		var replacement []byte
		switch {
		case c == '"':
			end = r.stringAt(b, i, &sc)
			replacement = r.jsonString(b[i:end], &sc)
		case c == '-' || (c >= '0' && c <= '9'):
			end = i + 1
			for end < len(b) && strings.IndexByte("0123456789.eE+-", b[end]) >= 0 {
				end++
			}
			if r.contains(b[i:end]) {
				// A number that holds a secret becomes a string: the
				// document stays valid, and the secret goes.
				replacement = []byte(`"` + Redacted + `"`)
			}
		default:
			i++
			continue
		}
		if replacement != nil {
			if out == nil {
				out = make([]byte, 0, len(b)+len(Redacted))
			}
			out = append(append(out, b[copied:i]...), replacement...)
			copied = end
		}
		i = end
	}
	if out == nil {
		return b
	}
	return append(out, b[copied:]...)
}

// stringEnd returns the index just past the JSON string literal starting at
// b[start], which is '"'. b is valid JSON, so the literal is closed: its
// end is the first quote after an even run of backslashes.
func stringEnd(b []byte, start int) int {
	for i := start + 1; i < len(b); {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return len(b)
		}
		q += i
		backslashes := 0
		for j := q - 1; j > start && b[j] == '\\'; j-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return q + 1
		}
		i = q + 1
	}
	return len(b)
}

// stringAt returns the index just past the JSON string literal starting at
// b[start], as stringEnd, and notes in sc whether it holds an escape. One
// with escapes is decoded while its end is looked for (a request's body is
// a string of kilobytes with an escaped quote every few bytes, each of which
// stringEnd would search past again): sc.decoded is then its text.
func (r Redactor) stringAt(b []byte, start int, sc *scratch) int {
	sc.ready = false
	q := bytes.IndexByte(b[start+1:], '"')
	if q < 0 {
		// Unclosed, so not JSON: what jsonString takes for its text.
		sc.escapes = bytes.IndexByte(b[start+1:max(start+1, len(b)-1)], '\\') >= 0
		return len(b)
	}
	end := start + 1 + q
	if sc.escapes = bytes.IndexByte(b[start+1:end], '\\') >= 0; !sc.escapes {
		return end + 1
	}
	var ok bool
	if sc.decoded, end, ok = decodeUntilQuote(sc.decoded[:0], b, start+1); ok {
		sc.ready = true
		return end
	}
	// Not a string literal as encoding/json reads one: jsonString decodes
	// it again, fails, and replaces it whole.
	return stringEnd(b, start)
}

// jsonString returns the redacted literal of a JSON string literal, or nil
// when it holds no secret. sc says whether it holds an escape, and may
// hold its text decoded (stringAt).
func (r Redactor) jsonString(literal []byte, sc *scratch) []byte {
	decoded := literal[1 : len(literal)-1]
	escapes := sc.escapes
	if escapes {
		if !sc.ready {
			var ok bool
			if sc.decoded, ok = appendUnquote(sc.decoded[:0], literal); !ok {
				return []byte(`"` + Redacted + `"`)
			}
		}
		decoded = sc.decoded
	}
	if r.contains(decoded) {
		encoded, err := jsonx.Marshal(string(r.raw(slices.Clone(decoded))))
		if err != nil {
			return []byte(`"` + Redacted + `"`)
		}
		return encoded
	}
	// Without an escape the literal is its text in quotes, which only a
	// form or secret with a quote at an end can take in.
	if (!escapes && !r.quoteEdge) || !r.contains(literal) {
		return nil
	}
	// An escaped form of a secret (or one that takes in the quotes) with
	// no plain form when decoded: replace it in the literal, or replace
	// the whole literal when that would break it.
	redacted := r.raw(slices.Clone(literal))
	if len(redacted) < 2 || redacted[0] != '"' || !json.Valid(redacted) {
		return []byte(`"` + Redacted + `"`)
	}
	return redacted
}
