// Package jsonx holds the JSON encoding both servers share: compact, without
// HTML escaping.
package jsonx

import (
	"bytes"
	"encoding/json"
)

// Marshal encodes v as compact JSON without escaping <, >, &, U+2028 or
// U+2029. encoding/json escapes them for JSON pasted into HTML and
// JavaScript; an assistant reads the text itself, and "\u003cb\u003e" is
// neither the captured "<b>" nor easy to read.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return unescapeLineSeparators(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

// unescapeLineSeparators writes U+2028 and U+2029 as themselves in JSON
// that encoding/json produced, which escapes them even without HTML
// escaping. Both are valid unescaped in JSON strings (RFC 8259). A
// backslash only ever starts an escape, so skipping each escape whole
// keeps an escaped backslash followed by "u2028" as it is.
func unescapeLineSeparators(data []byte) []byte {
	if !bytes.Contains(data, []byte(`\u202`)) {
		return data
	}
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		if data[i] != '\\' || i+1 >= len(data) {
			out = append(out, data[i])
			continue
		}
		if i+5 < len(data) && data[i+1] == 'u' && string(data[i+2:i+5]) == "202" && (data[i+5] == '8' || data[i+5] == '9') {
			out = append(out, "\u2028"...)
			if data[i+5] == '9' {
				out[len(out)-1] = 0xa9 // U+2029 is E2 80 A9; U+2028 is E2 80 A8
			}
			i += 5
			continue
		}
		out = append(out, data[i], data[i+1])
		i++
	}
	return out
}

// Unescape returns the JSON document data with every string written with
// the fewest escapes: "\/", "\u00e9", "\u003c" become "/", "é", "<", as
// jsonx.Marshal writes them. Members keep their order and numbers their
// digits, so the document says exactly what it said; only its spelling
// changes. A capture service written in PHP escapes every slash and every
// non-ASCII letter, and a Go GraphQL server every <, > and &: an assistant
// reading https:\/\/example.com or \u00e9 reads the escapes, not the text.
// data must be valid JSON; a string whose escapes do not decode to the same
// text (a lone surrogate, which would turn into U+FFFD) is left as it is.
func Unescape(data []byte) []byte {
	if bytes.IndexByte(data, '\\') < 0 {
		return data
	}
	return AppendUnescape(make([]byte, 0, len(data)), data)
}

// StringEnd returns the index after the JSON string that starts at
// data[start] (a quote), or len(data) when it is not closed, found a block
// at a time (see stringEnd).
func StringEnd(data []byte, start int) int {
	end, _ := stringEnd(data, start)
	return end
}

// stringEnd returns the index after the JSON string that starts at
// data[start] (a quote), and whether it holds an escape. It looks for the
// closing quote a block at a time (a request's body is one string of
// kilobytes): a quote is the end unless an odd run of backslashes, all
// within the string, stands before it.
func stringEnd(data []byte, start int) (end int, escaped bool) {
	for i := start + 1; i < len(data); {
		q := bytes.IndexByte(data[i:], '"')
		if q < 0 {
			return len(data), escaped || bytes.IndexByte(data[i:], '\\') >= 0
		}
		q += i
		if bytes.IndexByte(data[i:q], '\\') >= 0 {
			escaped = true
			run := 0
			for j := q - 1; j >= i && data[j] == '\\'; j-- {
				run++
			}
			if run%2 == 1 {
				i = q + 1
				continue
			}
		}
		return q + 1, escaped
	}
	return len(data), escaped
}
