// Package jsonx holds the JSON encoding both servers share: compact, without
// HTML escaping.
package jsonx

import (
	"bytes"
	"encoding/json"
)

// Marshal encodes v as compact JSON without escaping <, > and &, which would
// make GraphQL text and HTML bodies hard to read for an assistant.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
