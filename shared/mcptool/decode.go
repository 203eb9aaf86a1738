package mcptool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// argumentError describes one argument of a call that could not be decoded.
type argumentError struct {
	// Argument is the offending argument's name; empty when the arguments as a
	// whole were malformed.
	Argument string
	Message  string
	// repeated is the key given twice, when that is the error, and
	// repeatedIn where (see Repeated).
	repeated, repeatedIn string
}

func (e *argumentError) Error() string { return e.Message }

// decodeStrict decodes the JSON object data into v, whose schema is s.
// Members named twice, members that are not properties by exact name (see
// exactMembers) and values of the wrong JSON type are reported as
// *argumentError, naming the member and what it should be, so that a caller
// can fix the call without reading Go error text. Empty data decodes as {}.
func decodeStrict(data []byte, s *jsonschema.Schema, v any) error {
	if len(bytes.TrimSpace(data)) == 0 || string(bytes.TrimSpace(data)) == "null" {
		data = []byte("{}")
	}
	if trimmed := bytes.TrimSpace(data); trimmed[0] != '{' {
		return &argumentError{Message: "arguments must be a JSON object"}
	}
	if err := exactMembers(data, s); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	err := dec.Decode(v)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			return &argumentError{Message: "arguments must be a single JSON object"}
		}
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		name, declared, nested, ok := argumentOf(v, typeErr.Field)
		if ok && (nested || strings.TrimLeft(declared.String(), "*") != typeErr.Type.String()) {
			// The bad value sits inside a map or a slice argument: describe the
			// argument as a whole, and what it holds that does not fit.
			return &argumentError{
				Argument: name,
				Message:  fmt.Sprintf("argument %q must be %s; it holds %s", name, describeGoType(declared.String()), article(typeErr.Value)),
			}
		}
		return &argumentError{
			Argument: name,
			Message:  fmt.Sprintf("argument %q must be %s, not %s", name, describeGoType(typeErr.Type.String()), article(typeErr.Value)),
		}
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name = strings.Trim(name, `"`)
		return &argumentError{Argument: name, Message: fmt.Sprintf("unknown argument %q", name)}
	}
	return &argumentError{Message: "arguments are not valid JSON: " + err.Error()}
}

// argumentOf resolves encoding/json's path of a bad value ("Settings.timeout",
// "headers.X-Retries") to the argument it belongs to: the first member that
// is not an embedded struct, its Go type, and whether the value sits deeper
// inside it. ok is false when v is not a pointer to a struct.
func argumentOf(v any, path string) (name string, declared reflect.Type, nested, ok bool) {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		name, _, nested = strings.Cut(path, ".")
		return name, nil, nested, false
	}
	segments := strings.Split(path, ".")
	for i, segment := range segments {
		f, found := memberField(t, segment)
		if !found {
			return segment, nil, i < len(segments)-1, false
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct && i < len(segments)-1 {
			t = f.Type
			continue
		}
		return segment, f.Type, i < len(segments)-1, true
	}
	return path, nil, false, false
}

// memberField finds the field of struct type t that decodes the JSON member
// name, or the embedded struct field named name.
func memberField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == name || (tag == "" && (strings.EqualFold(f.Name, name) || f.Anonymous && f.Name == name)) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// describeGoType names the JSON shape a Go type decodes from.
func describeGoType(goType string) string {
	t := strings.TrimLeft(goType, "*")
	switch {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "an integer"
	case strings.HasPrefix(t, "float"), t == "json.Number":
		return "a number"
	case t == "string":
		return "a string"
	case t == "bool":
		return "a boolean (true or false)"
	case strings.HasPrefix(t, "map["):
		if strings.HasSuffix(t, "]string") {
			return "a JSON object of string values"
		}
		return "a JSON object"
	case strings.HasPrefix(t, "[]"):
		if strings.HasSuffix(t, "string") {
			return "an array of strings"
		}
		return "an array"
	default:
		return "a JSON object"
	}
}

// article turns encoding/json's description of a value ("string",
// "number 1.5", "array") into a phrase, a long number cut short.
func article(value string) string {
	switch {
	case value == "array", value == "object":
		return "an " + value
	case strings.HasPrefix(value, "number "):
		return "the number " + quoteNumber([]byte(strings.TrimPrefix(value, "number ")))
	case strings.HasPrefix(value, "number"):
		return "the " + value
	default:
		return "a " + value
	}
}

// maxQuotedName is the most characters of a member name an error quotes.
const maxQuotedName = 40

// exactMembers refuses, before anything is decoded, the two ways a call's
// arguments can mean something other than what a client shows: a member
// named twice in any object (encoding/json keeps the last, a client's view
// may show the first) and, in an object whose members the schema lists and
// closes (the arguments themselves, a struct-typed argument), a member that
// is not one of them by exact name (encoding/json would match "Query" to
// query, case-insensitively). Maps (headers, variables) keep their names
// as given; only duplicates are refused there.
func exactMembers(data []byte, s *jsonschema.Schema) error {
	sc := &scanner{data: data}
	if err := sc.value(s, ""); err != nil {
		return err
	}
	if sc.skipSpace(); sc.pos != len(data) {
		return &argumentError{Message: "arguments must be a single JSON object"}
	}
	return nil
}

// Repeated is a key that an object of a JSON text gives twice.
type Repeated struct {
	Key string
	// In is where the object that repeats Key sits, as keys and array
	// positions from the top ("params.arguments", "a[2].b"), shortened
	// when deep; "" for the top-level object.
	In string
}

// RepeatedKey reports the first key that an object of the JSON text data
// gives twice, at any depth. A JSON-RPC message whose params name a tool
// twice, or give arguments twice, runs the last with the go-sdk's decoder
// and may be shown with the first by a client; a transport that calls this
// on each message before decoding it can refuse such a message. found is
// false, and err set, when data is not JSON.
func RepeatedKey(data []byte) (r Repeated, found bool, err error) {
	sc := &scanner{data: data, track: true}
	err = sc.value(nil, "")
	var argErr *argumentError
	if errors.As(err, &argErr) && argErr.repeated != "" {
		return Repeated{Key: argErr.repeated, In: argErr.repeatedIn}, true, nil
	}
	if err == nil {
		if sc.skipSpace(); sc.pos != len(data) {
			err = sc.invalid()
		}
	}
	return Repeated{}, false, err
}

// pathStep is one step into a JSON value: a member's key, or an array's
// position when isIndex.
type pathStep struct {
	key     string
	index   int
	isIndex bool
}

// maxPathSteps is the most steps of a path an error shows: the first few
// and the last, so that a path 500 levels deep stays one short line.
const maxPathSteps = 6

// render writes path as keys joined by dots and positions in brackets,
// each key at most maxQuotedName characters, quoted when it holds a
// character that would make the path ambiguous or unreadable.
func render(path []pathStep) string {
	var b strings.Builder
	for i, step := range path {
		if len(path) > maxPathSteps && i == maxPathSteps/2 {
			b.WriteString(".…")
		}
		if len(path) > maxPathSteps && i >= maxPathSteps/2 && i < len(path)-maxPathSteps/2 {
			continue
		}
		switch {
		case step.isIndex:
			fmt.Fprintf(&b, "[%d]", step.index)
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			key := step.key
			if utf8.RuneCountInString(key) > maxQuotedName {
				key = string([]rune(key)[:maxQuotedName]) + "…"
			}
			if strings.ContainsFunc(key, func(r rune) bool { return !unicode.IsPrint(r) || strings.ContainsRune(`.[]" `, r) }) {
				key = strconv.Quote(key)
			}
			b.WriteString(key)
		}
	}
	return b.String()
}

// scanner walks JSON text without building it: a 16 MiB message is
// checked in the time it takes to read it, where encoding/json's Token
// API allocates for every token.
type scanner struct {
	data []byte
	pos  int
	// track keeps path, where the scan is, for RepeatedKey to say where
	// a key repeats; the exact-names check needs no path.
	track bool
	path  []pathStep
	depth int
}

// maxDepth is the deepest nesting the scanner reads, encoding/json's.
const maxDepth = 10_000

func (sc *scanner) invalid() error {
	return &argumentError{Message: fmt.Sprintf("arguments are not valid JSON (at byte %d)", sc.pos)}
}

func (sc *scanner) skipSpace() {
	for sc.pos < len(sc.data) {
		switch sc.data[sc.pos] {
		case ' ', '\t', '\r', '\n':
			sc.pos++
		default:
			return
		}
	}
}

// value checks the value at sc.pos, whose schema is s (nil: any), and which
// belongs to argument arg ("" for the arguments object itself).
func (sc *scanner) value(s *jsonschema.Schema, arg string) error {
	sc.skipSpace()
	if sc.pos >= len(sc.data) {
		return sc.invalid()
	}
	// Each level is a call: text nested a million deep would grow the
	// stack past Go's limit, which ends the process. encoding/json stops
	// at the same depth.
	sc.depth++
	defer func() { sc.depth-- }()
	if sc.depth > maxDepth {
		return &argumentError{Message: fmt.Sprintf("arguments nest deeper than %d levels", maxDepth)}
	}
	switch sc.data[sc.pos] {
	case '{':
		return sc.object(s, arg)
	case '[':
		sc.pos++
		var items *jsonschema.Schema
		if s != nil {
			items = s.Items
		}
		if sc.skipSpace(); sc.pos < len(sc.data) && sc.data[sc.pos] == ']' {
			sc.pos++
			return nil
		}
		for i := 0; ; i++ {
			if err := sc.member(pathStep{index: i, isIndex: true}, items, arg); err != nil {
				return err
			}
			if done, err := sc.next(']'); done || err != nil {
				return err
			}
		}
	case '"':
		_, err := sc.str()
		return err
	default:
		// A number, true, false or null: encoding/json judges it after.
		start := sc.pos
	scalar:
		for ; sc.pos < len(sc.data); sc.pos++ {
			switch sc.data[sc.pos] {
			case ',', ']', '}', ' ', '\t', '\r', '\n':
				break scalar
			}
		}
		if sc.pos == start {
			return sc.invalid()
		}
		if s != nil && (s.Type == "integer" || s.Type == "number") {
			return outOfRange(arg, s, sc.data[start:sc.pos])
		}
		return nil
	}
}

// maxExactInteger is the largest magnitude at which every integer has a
// float64 of its own (2^53): past it, the value decoded is not the value
// given, and converting it to an int is not defined.
const maxExactInteger = 1 << 53

// outOfRange refuses a number literal, given for an argument of schema s
// (an integer or a number), that no float64 holds (1e400, 400 digits) or,
// for an integer, that lies past ±2^53, before anything converts it, so
// that no tool sees an overflowed or rounded value. The literal is quoted
// by a short prefix and its length. Ranges within that are the tools' to
// judge (Whole).
func outOfRange(arg string, s *jsonschema.Schema, literal []byte) error {
	if len(literal) == 0 || (literal[0] != '-' && (literal[0] < '0' || literal[0] > '9')) || !json.Valid(literal) {
		return nil // not a number: encoding/json says what it is
	}
	v, err := strconv.ParseFloat(string(literal), 64)
	inexact := s.Type == "integer" && math.Abs(v) > maxExactInteger
	if n, intErr := strconv.ParseInt(string(literal), 10, 64); s.Type == "integer" && intErr == nil {
		// 2^53+1 reads as the float64 2^53: the digits decide.
		inexact = n > maxExactInteger || n < -maxExactInteger
	}
	if err == nil && !inexact {
		return nil
	}
	kind := "a number"
	if s.Type == "integer" {
		kind = "an integer"
	}
	var rule string
	switch {
	case s.Minimum != nil && s.Maximum != nil:
		rule = fmt.Sprintf("%s from %g to %g", kind, *s.Minimum, *s.Maximum)
	case s.Type == "integer":
		rule = fmt.Sprintf("%s from -%d to %d", kind, maxExactInteger, maxExactInteger)
	default:
		rule = kind + " within ±1.8e308"
	}
	return &argumentError{Argument: arg, Message: fmt.Sprintf("argument %q is out of range: %s; it must be %s", arg, quoteNumber(literal), rule)}
}

// maxQuotedNumber is the most bytes of a number literal an error quotes.
const maxQuotedNumber = 24

// quoteNumber gives a number literal for an error, cut to a prefix and its
// length when long: a million digits make a million-byte error otherwise.
func quoteNumber(literal []byte) string {
	if len(literal) <= maxQuotedNumber {
		return string(literal)
	}
	return fmt.Sprintf("%s… (%d characters)", literal[:maxQuotedNumber-4], len(literal))
}

func (sc *scanner) object(s *jsonschema.Schema, arg string) error {
	sc.pos++ // {
	if sc.skipSpace(); sc.pos < len(sc.data) && sc.data[sc.pos] == '}' {
		sc.pos++
		return nil
	}
	seen := map[string]bool{}
	for {
		if sc.skipSpace(); sc.pos >= len(sc.data) || sc.data[sc.pos] != '"' {
			return sc.invalid()
		}
		key, err := sc.str()
		if err != nil {
			return err
		}
		if sc.skipSpace(); sc.pos >= len(sc.data) || sc.data[sc.pos] != ':' {
			return sc.invalid()
		}
		sc.pos++
		owner := arg
		if owner == "" {
			owner = key
		}
		if seen[key] {
			var in string
			if sc.track {
				in = render(sc.path)
			}
			if arg == "" {
				return &argumentError{Argument: key, repeated: key, repeatedIn: in, Message: fmt.Sprintf("argument %s is given twice; give each argument once", Quote(key))}
			}
			return &argumentError{Argument: arg, repeated: key, repeatedIn: in, Message: fmt.Sprintf("argument %q holds the member %s twice; give each member once", arg, Quote(key))}
		}
		seen[key] = true
		var child *jsonschema.Schema
		switch {
		case s == nil:
		case s.Properties[key] != nil:
			child = s.Properties[key]
		case closed(s) && arg == "":
			return &argumentError{Argument: key, Message: fmt.Sprintf("unknown argument %s%s", Quote(key), spellingHint(key, s))}
		case closed(s):
			return &argumentError{Argument: arg, Message: fmt.Sprintf("argument %q has no member %s%s", arg, Quote(key), spellingHint(key, s))}
		default:
			child = s.AdditionalProperties
		}
		if err := sc.member(pathStep{key: key}, child, owner); err != nil {
			return err
		}
		if done, err := sc.next('}'); done || err != nil {
			return err
		}
	}
}

// member scans the value of an array element or object member, at step
// below the path so far when the path is tracked.
func (sc *scanner) member(step pathStep, s *jsonschema.Schema, arg string) error {
	if sc.track {
		sc.path = append(sc.path, step)
	}
	if err := sc.value(s, arg); err != nil {
		return err
	}
	if sc.track {
		sc.path = sc.path[:len(sc.path)-1]
	}
	return nil
}

// next reads what follows an element or member: closing ends its container
// (done), a comma announces another.
func (sc *scanner) next(closing byte) (done bool, err error) {
	if sc.skipSpace(); sc.pos >= len(sc.data) {
		return false, sc.invalid()
	}
	sc.pos++
	switch sc.data[sc.pos-1] {
	case closing:
		return true, nil
	case ',':
		return false, nil
	}
	return false, sc.invalid()
}

// str reads the string at sc.pos and returns its value as encoding/json
// decodes it (escapes resolved, invalid UTF-8 as U+FFFD), so that two
// spellings of one name are one name.
func (sc *scanner) str() (string, error) {
	start := sc.pos
	sc.pos++ // "
	plain := true
	for sc.pos < len(sc.data) {
		switch c := sc.data[sc.pos]; {
		case c == '"':
			sc.pos++
			raw := sc.data[start:sc.pos]
			if plain {
				return string(raw[1 : len(raw)-1]), nil
			}
			var value string
			if err := json.Unmarshal(raw, &value); err != nil {
				return "", sc.invalid()
			}
			return value, nil
		case c == '\\':
			plain = false
			sc.pos += 2
		case c < 0x20:
			return "", sc.invalid()
		default:
			if c >= 0x80 {
				plain = false
			}
			sc.pos++
		}
	}
	return "", sc.invalid()
}

// closed reports a schema that admits no members beyond its properties: a
// Go struct's, whose additionalProperties is {"not": {}} (or false).
func closed(s *jsonschema.Schema) bool {
	extra := s.AdditionalProperties
	return s.Properties != nil && extra != nil && extra.Not != nil && reflect.ValueOf(*extra.Not).IsZero()
}

// spellingHint names the property key differs from only in case: names are
// matched exactly, so that what runs is what a client shows.
func spellingHint(key string, s *jsonschema.Schema) string {
	for name := range s.Properties {
		if strings.EqualFold(name, key) {
			return fmt.Sprintf(" (names are matched exactly, case included: did you mean %q?)", name)
		}
	}
	return ""
}

// Quote quotes a name or value for an error: at most maxQuotedName
// characters of it and, when cut, its length, so that a huge argument
// does not make a huge error.
func Quote(s string) string { return QuoteUpTo(s, maxQuotedName) }

// QuoteUpTo is Quote with at most max characters: a URL or a path needs
// more than a name to be recognised.
func QuoteUpTo(s string, max int) string {
	cut, n := 0, 0
	for i := range s {
		if n == max {
			cut = i
			break
		}
		n++
	}
	if cut == 0 {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q… (%d characters)", s[:cut], utf8.RuneCountInString(s))
}
