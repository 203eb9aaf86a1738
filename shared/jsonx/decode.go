package jsonx

import (
	"errors"
	"fmt"

	segmentio "github.com/segmentio/encoding/json"
)

// MaxDepth is the deepest nesting of arrays and objects Unmarshal reads: the
// limit of encoding/json's scanner.
const MaxDepth = 10000

// ErrTooDeep is Unmarshal's error for a document nested deeper than MaxDepth.
var ErrTooDeep = fmt.Errorf("the JSON document nests arrays and objects more than %d deep", MaxDepth)

// Unmarshal decodes data into v as encoding/json.Unmarshal does, four to
// seven times faster, for the large documents the servers read whole: a
// GraphQL answer, an introspection result. The decoder is the one the MCP
// SDK reads every message with (github.com/segmentio/encoding). It recurses
// once per level of nesting without a limit, so a document nested deeper
// than MaxDepth is refused before it is decoded: a hostile one would
// otherwise exhaust the stack, which no recover catches.
func Unmarshal(data []byte, v any) error {
	return unmarshal(data, v, 0)
}

// UnmarshalSharing is Unmarshal, except that the json.RawMessage values it
// fills share data's memory instead of copying it: data must not change
// while they are in use. A 5 MB answer split into its members is not
// copied a second time.
func UnmarshalSharing(data []byte, v any) error {
	return unmarshal(data, v, segmentio.DontCopyRawMessage)
}

func unmarshal(data []byte, v any, flags segmentio.ParseFlags) error {
	if !withinDepth(data, MaxDepth) {
		return ErrTooDeep
	}
	rest, err := segmentio.Parse(data, v, flags)
	if len(rest) > 0 {
		// As encoding/json (and segmentio's Unmarshal): one value and
		// nothing after it, which is the error to report first.
		var syntax *segmentio.SyntaxError
		if !errors.As(err, &syntax) {
			err = fmt.Errorf("invalid character %q after top-level value", rest[0])
		}
	}
	return err
}

// withinDepth reports that data nests arrays and objects at most max deep,
// brackets inside strings aside. It reads any bytes: the decoder judges
// whether they are JSON.
func withinDepth(data []byte, max int) bool {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			// Skip the string, escaped quotes included, a block at a
			// time: most of a large document is in its strings.
			end, _ := stringEnd(data, i)
			i = end - 1
		case '{', '[':
			if depth++; depth > max {
				return false
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return true
}
