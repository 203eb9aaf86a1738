package operations

import (
	"bytes"
	"encoding/json"
	"errors"
)

// jsonPlace is the 1-based line and column (in runes) of byte offset at
// of raw.
func jsonPlace(raw []byte, at int) (line, column int) {
	at = min(max(at, 0), len(raw))
	before := raw[:at]
	line = bytes.Count(before, []byte("\n")) + 1
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return line, len(bytes.Runes(before[lineStart:])) + 1
}

// jsonErrorOffset is where a decoding error happened, 0 when it does not
// say.
func jsonErrorOffset(err error) int {
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return int(syntax.Offset)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return int(typ.Offset)
	}
	return 0
}

// valueStart is the offset of the value after a key read up to offset at:
// past white space and the colon.
func valueStart(raw []byte, at int) int {
	for at < len(raw) && (raw[at] == ' ' || raw[at] == '\t' || raw[at] == '\n' || raw[at] == '\r' || raw[at] == ':') {
		at++
	}
	return at
}

// stringPlaces are the offsets, in order, of the values of every member
// named key, at any depth of raw, which is valid JSON.
func stringPlaces(raw []byte, key string) []int {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var places []int
	// expectKey tracks, for each open object, whether the next string
	// token is a member name.
	var stack []bool
	for {
		tok, err := dec.Token()
		if err != nil {
			return places
		}
		inObject := len(stack) > 0 && stack[len(stack)-1]
		switch tok {
		case json.Delim('{'):
			stack = append(stack, true)
			continue
		case json.Delim('['):
			stack = append(stack, false)
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			continue
		}
		if inObject && dec.More() {
			if name, ok := tok.(string); ok {
				if name == key {
					places = append(places, valueStart(raw, int(dec.InputOffset())))
				}
				// The value follows: read it whole unless it opens a
				// container, whose members are walked.
				if !opensContainer(raw, valueStart(raw, int(dec.InputOffset()))) {
					if _, err := dec.Token(); err != nil {
						return places
					}
				}
			}
		}
	}
}

func opensContainer(raw []byte, at int) bool {
	return at < len(raw) && (raw[at] == '{' || raw[at] == '[')
}
