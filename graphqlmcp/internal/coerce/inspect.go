package coerce

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpforge/servers/graphqlmcp/internal/schema"

	"github.com/vektah/gqlparser/v2/ast"
)

// maxMessageBytes bounds a message: its quotes shrink (see quoters) until
// it fits, so that the variable, the place and the rule are always whole.
const maxMessageBytes = 300

// quoter quotes the values a message names, bounded: a string by at most
// chars characters and its length, a whole value by about bytes (then
// "…"). redact, when set, takes the startup secrets out of a string before
// it is cut, so that a cut never leaves a secret's first characters.
type quoter struct {
	chars, bytes int
	redact       func(string) string
	// first holds the first members of the objects quoted so far, by
	// object: each message about an object quotes it, so that one with a
	// million members is searched once, not once per message.
	first map[uintptr][]string
}

// quoters are the ways a message may quote its values, the fullest first; a
// message takes the first that keeps it within maxMessageBytes.
func quoters(redact func(string) string) []quoter {
	first := map[uintptr][]string{}
	return []quoter{{40, 200, redact, first}, {16, 60, redact, first}, {6, 16, redact, first}}
}

// firstOf is firstKeys(m, n), remembered.
func (q quoter) firstOf(m map[string]any, n int) []string {
	at := reflect.ValueOf(m).Pointer()
	if keys, ok := q.first[at]; ok && (len(keys) >= n || len(keys) == len(m)) {
		return keys[:min(n, len(keys))]
	}
	keys := firstKeys(m, n)
	if q.first != nil {
		q.first[at] = keys
	}
	return keys
}

// clean is s with the secrets out.
func (q quoter) clean(s string) string {
	if q.redact == nil {
		return s
	}
	return q.redact(s)
}

// jsNumber reads a JSON number as JavaScript does: the nearest double, ±Inf
// past the largest, 0 below the smallest. ok is false for what is not a
// number at all.
func jsNumber(v any) (f float64, ok bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil && !math.IsInf(f, 0) {
			return math.NaN(), true
		}
		return f, true
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	}
	return 0, false
}

// formatNumber writes f as JavaScript's Number.prototype.toString does
// (ECMA-262 Number::toString): the shortest digits that read back as f,
// in plain notation from 1e-7 to 1e21 and in exponent form outside.
func formatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0" // -0 too
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// d.dddde±x: the digits, and n, where the decimal point falls.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mantissa, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mantissa, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	n, k := x+1, len(digits)
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	expSign := "+"
	if n-1 < 0 {
		expSign = "-"
	}
	abs := n - 1
	if abs < 0 {
		abs = -abs
	}
	if k == 1 {
		return sign + digits + "e" + expSign + strconv.Itoa(abs)
	}
	return sign + digits[:1] + "." + digits[1:] + "e" + expSign + strconv.Itoa(abs)
}

// inspect writes a JSON value as graphql-js's inspect does (strings as
// JSON, objects as { key: value }, at most 10 array items, nesting beyond
// two levels as [Array] or [Object]), bounded by q.
func (q quoter) inspect(v any) string {
	var b strings.Builder
	q.writeInspect(&b, v, 0)
	return b.String()
}

func (q quoter) writeInspect(b *strings.Builder, v any, depth int) {
	if f, ok := jsNumber(v); ok {
		b.WriteString(formatNumber(f))
		return
	}
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case string:
		q.writeJSONString(b, v)
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		if depth+1 > 2 {
			b.WriteString("[Array]")
			return
		}
		b.WriteByte('[')
		shown := min(len(v), 10)
		for i, item := range v[:shown] {
			if i > 0 {
				b.WriteString(", ")
			}
			if b.Len() > q.bytes {
				b.WriteString("…]")
				return
			}
			q.writeInspect(b, item, depth+1)
		}
		switch rest := len(v) - shown; {
		case rest == 1:
			b.WriteString(", ... 1 more item")
		case rest > 1:
			fmt.Fprintf(b, ", ... %d more items", rest)
		}
		b.WriteByte(']')
	case map[string]any:
		if len(v) == 0 {
			b.WriteString("{}")
			return
		}
		if depth+1 > 2 {
			b.WriteString("[Object]")
			return
		}
		b.WriteString("{ ")
		// Each member printed takes 4 bytes at least ("k: 1" and ", "):
		// those past q.bytes are never printed.
		shown := q.firstOf(v, q.bytes/4+2)
		for i, key := range shown {
			if i > 0 {
				b.WriteString(", ")
			}
			if b.Len() > q.bytes {
				b.WriteString("… }")
				return
			}
			b.WriteString(q.bounded(key))
			b.WriteString(": ")
			q.writeInspect(b, v[key], depth+1)
		}
		if len(v) > len(shown) { // never so: each member shown takes 6 bytes
			b.WriteString(", … }")
			return
		}
		b.WriteString(" }")
	default:
		// Not a JSON value: nothing decoded from JSON gets here.
		fmt.Fprintf(b, "[%T]", v)
	}
}

// bounded cuts s to q.chars characters, marking the cut.
func (q quoter) bounded(s string) string {
	s = q.clean(s)
	if utf8.RuneCountInString(s) <= q.chars {
		return s
	}
	return string([]rune(s)[:q.chars]) + "…"
}

// writeJSONString writes s as JSON.stringify does (only ", \ and control
// characters escaped), cut to q.chars characters with its length after.
func (q quoter) writeJSONString(b *strings.Builder, s string) {
	s = q.clean(s)
	n := utf8.RuneCountInString(s)
	cut := s
	if n > q.chars {
		cut = string([]rune(s)[:q.chars])
	}
	b.WriteByte('"')
	for _, r := range cut {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	if n > q.chars {
		fmt.Fprintf(b, `…" (%d characters)`, n)
		return
	}
	b.WriteByte('"')
}

// compareKeys orders keys as JavaScript's Object.keys does: array indexes
// first, by value; then the others, which JavaScript keeps in the order
// they were written, in byte order: a decoded map has lost the model's
// order, and graphqlmcp sends variables with members in byte order, so this
// is the order the endpoint's graphql-js reads them in.
func compareKeys(a, b string) int {
	ia, aIndex := arrayIndex(a)
	ib, bIndex := arrayIndex(b)
	switch {
	case aIndex && bIndex:
		return compareUint(ia, ib)
	case aIndex:
		return -1
	case bIndex:
		return 1
	}
	return strings.Compare(a, b)
}

// firstKeys are the n first keys of m in jsKeys' order, found in one pass
// over m: a message prints only the first few members of an object, which
// may have a million.
func firstKeys(m map[string]any, n int) []string {
	return firstKeysBut(m, n, nil)
}

// firstKeysBut is firstKeys of the keys not in but.
func firstKeysBut(m map[string]any, n int, but map[string]bool) []string {
	if n <= 0 {
		return nil
	}
	first := make([]string, 0, n+1)
	for key := range m {
		if but[key] || len(first) == n && compareKeys(key, first[n-1]) >= 0 {
			continue
		}
		i, _ := slices.BinarySearchFunc(first, key, compareKeys)
		first = slices.Insert(first, i, key)
		if len(first) > n {
			first = first[:n]
		}
	}
	return first
}

func compareUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// arrayIndex reports whether key is a canonical array index ("0", "17",
// not "017"), which JavaScript orders before other keys. It reads the
// digits itself: most keys are not numbers, and are told so at their first
// byte.
func arrayIndex(key string) (uint64, bool) {
	if key == "" || len(key) > 10 || (len(key) > 1 && key[0] == '0') {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(key); i++ {
		if key[i] < '0' || key[i] > '9' {
			return 0, false
		}
		n = n*10 + uint64(key[i]-'0')
	}
	return n, n < 1<<32-1
}

// printValue writes a literal as graphql-js's printForError does ([1, 2],
// {a: 1}, strings escaped as GraphQL strings), bounded like inspect.
func (q quoter) printValue(v *ast.Value) string {
	var b strings.Builder
	q.writeValue(&b, v)
	return b.String()
}

func (q quoter) writeValue(b *strings.Builder, v *ast.Value) {
	switch v.Kind {
	case ast.Variable:
		b.WriteString("$" + v.Raw)
	case ast.StringValue:
		q.writeGraphQLString(b, v.Raw)
	case ast.BlockValue:
		q.writeBlockString(b, v.Raw)
	case ast.ListValue:
		b.WriteByte('[')
		for i, child := range v.Children {
			if i > 0 {
				b.WriteString(", ")
			}
			if b.Len() > q.bytes {
				b.WriteString("…]")
				return
			}
			q.writeValue(b, child.Value)
		}
		b.WriteByte(']')
	case ast.ObjectValue:
		b.WriteByte('{')
		for i, child := range v.Children {
			if i > 0 {
				b.WriteString(", ")
			}
			if b.Len() > q.bytes {
				b.WriteString("…}")
				return
			}
			b.WriteString(q.bounded(child.Name) + ": ")
			q.writeValue(b, child.Value)
		}
		b.WriteByte('}')
	default: // Int, Float, Boolean, Null, Enum: as written
		if len(v.Raw) > q.bytes {
			fmt.Fprintf(b, "%s… (%d characters)", v.Raw[:q.chars], len(v.Raw))
			return
		}
		b.WriteString(v.Raw)
	}
}

// writeGraphQLString writes s as graphql-js's printString does
// (schema.WriteQuoted), cut like writeJSONString.
func (q quoter) writeGraphQLString(b *strings.Builder, s string) {
	s = q.clean(s)
	n := utf8.RuneCountInString(s)
	if n <= q.chars {
		schema.WriteQuoted(b, s)
		return
	}
	var quoted strings.Builder
	schema.WriteQuoted(&quoted, string([]rune(s)[:q.chars]))
	b.WriteString(strings.TrimSuffix(quoted.String(), `"`))
	fmt.Fprintf(b, `…" (%d characters)`, n)
}

// writeBlockString writes a block string as graphql-js's printBlockString
// does, cut like writeJSONString.
func (q quoter) writeBlockString(b *strings.Builder, value string) {
	value = q.clean(value)
	if n := utf8.RuneCountInString(value); n > q.chars {
		fmt.Fprintf(b, `"""%s…""" (%d characters)`, string([]rune(value)[:q.chars]), n)
		return
	}
	escaped := strings.ReplaceAll(value, `"""`, `\"""`)
	all := splitLines(escaped)
	single := len(all) == 1
	forceLeading := len(all) > 1
	for _, line := range all[min(1, len(all)):] {
		if line != "" && line[0] != ' ' && line[0] != '\t' {
			forceLeading = false
			break
		}
	}
	trailingTriple := strings.HasSuffix(escaped, `\"""`)
	trailingQuote := strings.HasSuffix(value, `"`) && !trailingTriple
	forceTrailing := trailingQuote || strings.HasSuffix(value, `\`)
	multiple := !single || utf16Len(value) > 70 || forceTrailing || forceLeading || trailingTriple
	skipLeading := single && value != "" && (value[0] == ' ' || value[0] == '\t')
	b.WriteString(`"""`)
	if (multiple && !skipLeading) || forceLeading {
		b.WriteByte('\n')
	}
	b.WriteString(escaped)
	if multiple || forceTrailing {
		b.WriteByte('\n')
	}
	b.WriteString(`"""`)
}

// splitLines splits as graphql-js's /\r\n|[\n\r]/ does.
func splitLines(s string) []string {
	var lines []string
	for {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			return append(lines, s)
		}
		lines = append(lines, s[:i])
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
}

// utf16Len is a string's length as JavaScript counts it.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
