package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpforge/servers/shared/mcptool"
)

// variablesExample is a good value of variables, for errors.
const variablesExample = `{"id": "1000"}`

// stringVariablesNote tells the model that variables given as a string
// were read as the object the string holds, and how to send them.
const stringVariablesNote = "variables was given as a string holding a JSON object; it was read as that object. Pass variables as a JSON object, not a string."

// readVariables reads graphql_query's variables: a JSON object, or a JSON
// string whose text is one (models often send that; note then says so).
// Absent or null is no variables. Anything else is refused, naming the
// argument, the rule and the fix. A string's object is held to the rules
// the decoder holds an object to: no member given twice, and no escape of
// half a surrogate pair (which would arrive as U+FFFD).
func readVariables(raw json.RawMessage) (variables map[string]any, note string, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, "", nil
	}
	switch raw[0] {
	case '{':
		// The strict decoder has judged it: one object, no member twice.
		variables, err := decodeObject(raw)
		return variables, "", err
	case '"':
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return nil, "", errors.New(`argument "variables" is not a valid JSON string; pass variables as a JSON object such as ` + variablesExample)
		}
		inner := bytes.TrimSpace([]byte(text))
		if len(inner) == 0 {
			return nil, "", errors.New(`argument "variables" is an empty string; it must be a JSON object of the operation's variables by name, such as ` + variablesExample + `, or be left out when the operation has none`)
		}
		if !json.Valid(inner) {
			return nil, "", fmt.Errorf(`argument "variables" is a string whose text is not JSON (%s); it must be a JSON object of the operation's variables by name, such as %s, given as an object rather than a string`, syntaxAt(inner), variablesExample)
		}
		if inner[0] != '{' {
			return nil, "", fmt.Errorf(`argument "variables" is a string holding %s; it must be a JSON object of the operation's variables by name, such as %s, given as an object rather than a string`, kindOf(inner), variablesExample)
		}
		if repeated, found, _ := mcptool.RepeatedKey(inner); found {
			return nil, "", fmt.Errorf(`argument "variables" is a string holding a JSON object that gives the member %s twice; give each member once, and pass variables as an object rather than a string`, mcptool.Quote(repeated.Key))
		}
		// The check the call's own JSON had, on the text inside it.
		if err := loneSurrogates(append(append([]byte(`{"variables":`), inner...), '}')); err != nil {
			return nil, "", err
		}
		variables, err := decodeObject(inner)
		return variables, stringVariablesNote, err
	}
	return nil, "", fmt.Errorf(`argument "variables" must be a JSON object, not %s: pass the operation's variables by name, such as %s, or leave variables out when the operation has none`, kindOf(raw), variablesExample)
}

// decodeObject decodes a JSON object as the strict decoder decodes
// arguments: numbers kept as written (json.Number), for coercion to judge.
func decodeObject(raw []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var variables map[string]any
	if err := dec.Decode(&variables); err != nil {
		return nil, fmt.Errorf(`argument "variables" could not be read as a JSON object (%v); pass variables as a JSON object such as %s`, err, variablesExample)
	}
	return variables, nil
}

// kindOf names the kind of the JSON value raw, which is valid JSON.
func kindOf(raw []byte) string {
	switch raw[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '{':
		return "an object"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// syntaxAt says where text stops being JSON.
func syntaxAt(text []byte) string {
	var v any
	err := json.Unmarshal(text, &v)
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return fmt.Sprintf("at byte %d of its text", syntax.Offset)
	}
	return "it ends before its value does"
}
