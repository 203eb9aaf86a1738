package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcpforge/servers/shared/jsonx"
)

// containsEach is what search must find, written the simple way: each form
// looked for in turn in s lowered (the folded ones) or as it is, then the
// escaped spellings from every byte they can start with.
func (r Redactor) containsEach(s []byte) bool {
	lower := lowerASCII(bytes.Clone(s))
	for _, f := range r.forms {
		if f.folded && bytes.Contains(lower, f.bytes) || !f.folded && bytes.Contains(s, f.bytes) {
			return true
		}
	}
	return r.hasEscaped(s)
}

// spell writes secret into dst with each character spelled as choice's
// next byte says: as it is, in capitals, or as a JSON, percent or HTML
// escape, as an echo may write it.
func spell(dst []byte, secret string, choice []byte) []byte {
	for i := 0; i < len(secret); i++ {
		c := secret[i]
		how := byte(0)
		if len(choice) > 0 {
			how = choice[i%len(choice)] % 9
		}
		switch how {
		case 1:
			dst = append(dst, bytes.ToUpper([]byte{c})...)
		case 2:
			dst = fmt.Appendf(dst, `\u%04x`, c)
		case 3:
			dst = fmt.Appendf(dst, `%%%02X`, c)
		case 4:
			dst = fmt.Appendf(dst, `&#%d;`, c)
		case 5:
			dst = fmt.Appendf(dst, `&#x%x;`, c)
		case 6:
			if e, ok := map[byte]string{'/': `\/`, '&': `&amp;`, '"': `\"`, '\\': `\\`, '<': `&lt;`}[c]; ok {
				dst = append(dst, e...)
				continue
			}
			dst = append(dst, c)
		case 7:
			dst = fmt.Appendf(dst, `%%%02x`, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// FuzzSearch holds search, one pass over a string, to containsEach, the
// forms and spellings looked for one at a time, for any secrets and any
// text, with a spelling of the secret planted in the text.
func FuzzSearch(f *testing.F) {
	f.Add("bench-3f9c27e1a5d84b60", "", `https:\/\/x.example\/?k=`, uint(3), []byte{0})
	f.Add("bench-3f9c27e1a5d84b60", "your/api-key/with-slashes", `{"a":"b"}`, uint(5), []byte{2, 0, 3, 4})
	f.Add(`%41bc\def&x`, "", `\u0025&#x41;`, uint(1), []byte{6, 1, 5})
	f.Add("abcdef", "\\\\\\\\\\\\", `\\\\\\\\`, uint(0), []byte{8})
	f.Add("éléphant", "", `caf\u00e9`, uint(9), []byte{2, 7})
	f.Fuzz(func(t *testing.T, secret, other, text string, at uint, choice []byte) {
		r := New(secret, other)
		for _, s := range [][]byte{[]byte(text), planted(text, at, secret, choice), planted(text, at, other, choice)} {
			if got, want := r.search(s), r.containsEach(s); got != want {
				t.Fatalf("secrets %q, %q: search(%q) = %v, containsEach %v", secret, other, s, got, want)
			}
		}
	})
}

// planted is text with secret, spelled as choice says, at about at.
func planted(text string, at uint, secret string, choice []byte) []byte {
	at %= uint(len(text) + 1)
	return append(spell([]byte(text[:at]), secret, choice), text[at:]...)
}

// TestSearchFindsSpellings: each planted spelling of a key is found, and a
// page without one is not.
func TestSearchFindsSpellings(t *testing.T) {
	r := New(pageKey, "your/api-key/with-slashes")
	for how := range byte(9) {
		for _, secret := range []string{pageKey, "your/api-key/with-slashes"} {
			s := planted(`{"url":"https:\/\/x\/"}`, 7, secret, []byte{how, 0, how + 1})
			if !r.search(s) || !r.containsEach(s) {
				t.Errorf("search(%q) = %v, containsEach %v, want both true", s, r.search(s), r.containsEach(s))
			}
		}
	}
	if page := webhookPage(1 << 16); r.search(page) {
		t.Error("a page without the key holds it, says search")
	}
}

// jsonDocumentEach is jsonDocument written the simple way, as it was
// before stringAt and search: each literal cut at its end, decoded on its
// own, and searched form by form (containsEach).
func (r Redactor) jsonDocumentEach(b []byte) []byte {
	var out []byte
	copied := 0
	for i := 0; i < len(b); {
		c := b[i]
		var end int
		var replacement []byte
		switch {
		case c == '"':
			end = stringEnd(b, i)
			replacement = r.jsonStringEach(b[i:end])
		case c == '-' || (c >= '0' && c <= '9'):
			end = i + 1
			for end < len(b) && bytes.IndexByte([]byte("0123456789.eE+-"), b[end]) >= 0 {
				end++
			}
			if r.containsEach(b[i:end]) {
				replacement = []byte(`"` + Redacted + `"`)
			}
		default:
			i++
			continue
		}
		if replacement != nil {
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

func (r Redactor) jsonStringEach(literal []byte) []byte {
	decoded := literal[1 : len(literal)-1]
	escapes := bytes.IndexByte(decoded, '\\') >= 0
	if escapes {
		var ok bool
		if decoded, ok = appendUnquote(nil, literal); !ok {
			return []byte(`"` + Redacted + `"`)
		}
	}
	if r.containsEach(decoded) {
		encoded, err := jsonx.Marshal(string(r.raw(bytes.Clone(decoded))))
		if err != nil {
			return []byte(`"` + Redacted + `"`)
		}
		return encoded
	}
	if (!escapes && !r.quoteEdge) || !r.containsEach(literal) {
		return nil
	}
	redacted := r.raw(bytes.Clone(literal))
	if len(redacted) < 2 || redacted[0] != '"' || !json.Valid(redacted) {
		return []byte(`"` + Redacted + `"`)
	}
	return redacted
}

// FuzzValidJSON holds ValidJSON to jsonDocumentEach on any valid JSON,
// with a spelling of the secret planted anywhere in it.
func FuzzValidJSON(f *testing.F) {
	f.Add("bench-3f9c27e1a5d84b60", string(webhookPage(2000)), uint(40), []byte{0, 2, 6})
	f.Add("your/api-key/with-slashes", `{"a":"b\/c","d":["\u00e9\"\\",1e700,-0.5]}`, uint(7), []byte{6, 2})
	f.Add(`q"uote\me`, `"q\"uote\\me"`, uint(1), []byte{6})
	f.Add("éléphant", "{\"a\":\"\\ud83d\\ude00\xff\\ud800\"}", uint(7), []byte{2, 0})
	f.Fuzz(func(t *testing.T, secret, doc string, at uint, choice []byte) {
		r := New(secret)
		for _, b := range [][]byte{[]byte(doc), planted(doc, at, secret, choice)} {
			if !json.Valid(b) {
				continue
			}
			if got, want := r.ValidJSON(b), r.jsonDocumentEach(b); !bytes.Equal(got, want) {
				t.Fatalf("secret %q: ValidJSON(%q) = %q, jsonDocumentEach %q", secret, b, got, want)
			}
		}
	})
}
