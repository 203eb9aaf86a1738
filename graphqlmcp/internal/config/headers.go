package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/httpx"
)

// headersExample is a good value of --headers, for messages.
const headersExample = `'{"Authorization":"Bearer <token>"}'`

// ParseHeaders accepts a JSON object whose values are all strings and whose
// names are headers a caller may set. Empty text means no headers. Its
// errors read after the flag's name ("must be ..."), say what is wrong and
// where, and never repeat a value: header values are secrets. Names may be
// repeated.
func ParseHeaders(text string) (map[string]string, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &raw); err != nil || raw == nil {
		return nil, fmt.Errorf("must be a JSON object of string values; %s. For example %s", headersProblem(text, err), headersExample)
	}
	if name, ok := repeatedName(text); ok {
		return nil, fmt.Errorf("must name each header once; %s is given twice (JSON keeps only the last)", httpx.HeaderName(name))
	}
	headers := make(map[string]string, len(raw))
	for name, value := range raw {
		var s string
		if err := json.Unmarshal(value, &s); err != nil {
			return nil, fmt.Errorf(`must be a JSON object of string values; the value of %s is not a string. For example '{"X-Retries":"3"}'`, httpx.HeaderName(name))
		}
		headers[name] = s
	}
	if err := upstream.CheckHeaders(headers); err != nil {
		return nil, fmt.Errorf("must hold only headers a caller may set: %v", err)
	}
	return headers, nil
}

// repeatedName finds a name the JSON object text gives twice, as
// encoding/json reads names; text is a valid object.
func repeatedName(text string) (string, bool) {
	dec := json.NewDecoder(strings.NewReader(text))
	if _, err := dec.Token(); err != nil {
		return "", false
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		name, _ := tok.(string)
		if seen[name] {
			return name, true
		}
		seen[name] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", false
		}
	}
	return "", false
}

// headersProblem says what is wrong with text, which is not a JSON object,
// and where: the kind of mistake people make writing one by hand (a header
// line, single quotes, a name without quotes, a trailing comma, a missing
// brace), with its line and column. It names no character of text that
// could belong to a value.
func headersProblem(text string, err error) string {
	trimmed := strings.TrimSpace(text)
	var syntax *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr) || err == nil:
		return "got " + jsonKind(trimmed)
	case !strings.HasPrefix(trimmed, "{"):
		if name, _, ok := strings.Cut(trimmed, ":"); ok && httpx.ReadsAsHeaderName(name) {
			return fmt.Sprintf("got a header line (%s: …), not JSON: write it as {\"%s\":\"…\"}", name, name)
		}
		return "got text that is not JSON: it must start with {"
	case errors.As(err, &syntax):
		return syntaxProblem(text, int(syntax.Offset), syntax.Error())
	}
	return "it is not valid JSON"
}

// syntaxProblem explains a syntax error whose offending byte is at
// offset-1 (encoding/json counts the bytes read, that one included).
func syntaxProblem(text string, offset int, message string) string {
	at := max(0, min(offset-1, len(text)))
	where := position(text, at)
	var bad byte
	if at < len(text) {
		bad = text[at]
	}
	before := bytes.TrimRight([]byte(text[:at]), " \t\r\n")
	var last byte
	if len(before) > 0 {
		last = before[len(before)-1]
	}
	switch {
	case strings.Contains(message, "unexpected end of JSON input"):
		return "the text ends before the object does: add the missing closing } or \""
	case bad == '\'':
		return "single quotes at " + where + ": JSON needs double quotes around names and values"
	case strings.HasSuffix(message, "looking for beginning of object key string") && bad == '}' && last == ',':
		return "a trailing comma before the } at " + where + ": remove it"
	case strings.HasSuffix(message, "looking for beginning of object key string"):
		return "a name without double quotes at " + where + `: write each name in double quotes, "Authorization"`
	case strings.HasSuffix(message, "looking for beginning of value") && last == ':':
		return "a value that is not a string at " + where + `: write each value in double quotes, "Bearer <token>"`
	case strings.HasSuffix(message, "looking for beginning of value"):
		return "a missing value or an extra comma at " + where
	case strings.HasSuffix(message, "after object key"):
		return "a missing colon after the name that ends at " + where
	case strings.HasSuffix(message, "after object key:value pair"):
		return "a missing comma (or closing }) before " + where
	case strings.HasSuffix(message, "after top-level value"):
		return "more text after the object's closing } at " + where + ": give one object"
	case strings.HasSuffix(message, "in string literal"):
		return "a line break or control character inside a string at " + where + `: write it escaped (\n)`
	case strings.Contains(message, "in string escape code"):
		return "a backslash that is not a JSON escape at " + where + `: write \\ for a backslash`
	}
	return "it is not valid JSON at " + where
}

// position is "line L, column C" (1-based, in characters) of byte offset
// at, or "column C" in one-line text.
func position(text string, at int) string {
	line := 1 + strings.Count(text[:at], "\n")
	start := strings.LastIndex(text[:at], "\n") + 1
	column := 1 + utf8.RuneCountInString(text[start:at])
	if !strings.Contains(text, "\n") {
		return fmt.Sprintf("column %d", column)
	}
	return fmt.Sprintf("line %d, column %d", line, column)
}

// jsonKind names the kind of JSON value text holds, which is not an object.
func jsonKind(text string) string {
	switch {
	case strings.HasPrefix(text, "["):
		return "a JSON array: put the headers in one object, {\"Name\":\"value\", …}"
	case strings.HasPrefix(text, `"`):
		return "a JSON string: put the header in an object, {\"Name\":\"value\"}"
	case text == "null":
		return "null: give an object, {\"Name\":\"value\"}"
	}
	return "a JSON " + map[bool]string{true: "boolean", false: "number"}[text == "true" || text == "false"]
}
