package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcpforge/servers/shared/mcptool"
)

// loneSurrogates refuses a query or variables whose JSON holds a \u escape
// of half a UTF-16 surrogate pair with no other half ("\ud800"). graphql-js
// keeps such a variable as it is, and refuses such a query text (no
// character, string or comment of GraphQL holds a lone surrogate), but a Go
// string cannot hold it: decoding puts U+FFFD in its place, and the
// endpoint would receive a value or a text the caller did not give (review
// R5-4). arguments is the call's raw JSON, which the strict decoder has
// already accepted (one object, no member named twice).
func loneSurrogates(arguments json.RawMessage) error {
	if !bytes.Contains(arguments, []byte(`\u`)) {
		return nil
	}
	var raw struct {
		Query     json.RawMessage `json:"query"`
		Variables json.RawMessage `json:"variables"`
	}
	if err := json.Unmarshal(arguments, &raw); err != nil {
		return nil
	}
	if escape := loneSurrogate(raw.Query); escape != "" {
		return fmt.Errorf("query: the text holds the JSON escape %s, half of a UTF-16 surrogate pair with no other half, which stands for no character; GraphQL reads none in a query (graphql-js refuses it), and it would arrive as U+FFFD; fix query: write the whole pair (such as \\ud83d\\ude00) or the character itself", escape)
	}
	if len(raw.Variables) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw.Variables))
	var path []level
	start := int64(0)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return nil // decodeStrict has judged the JSON already
		}
		end := dec.InputOffset()
		text := raw.Variables[start:end]
		start = end
		isKey := len(path) > 0 && path[len(path)-1].object && path[len(path)-1].keyNext
		if _, ok := tok.(string); ok {
			if escape := loneSurrogate(text); escape != "" {
				what := "a string"
				if isKey {
					what = "a key"
				}
				levels := path
				if isKey {
					// The key's own object is where it is.
					levels = path[:len(path)-1]
				}
				where := "variables"
				if len(levels) > 0 {
					where = "variable " + mcptool.Quote("$"+levels[0].key) + " at " + mcptool.Quote(pathOf(levels))
				}
				return fmt.Errorf("%s: %s holds the escape %s, half of a UTF-16 surrogate pair with no other half, which stands for no character and cannot be sent as written (it would arrive as U+FFFD); fix variables: write the whole pair (such as \\ud83d\\ude00) or the character itself", where, what, escape)
			}
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{':
				path = append(path, level{object: true, keyNext: true})
				continue
			case '[':
				path = append(path, level{index: 0})
				continue
			default:
				path = path[:len(path)-1]
			}
		case string:
			if isKey {
				path[len(path)-1].key = tok
				path[len(path)-1].keyNext = false
				continue
			}
		}
		// A value ended: the enclosing object awaits a key, the array its
		// next item.
		if len(path) > 0 {
			if l := &path[len(path)-1]; l.object {
				l.keyNext = true
			} else {
				l.index++
			}
		}
	}
}

// level is an open object or array of variables, with its key or index
// so far.
type level struct {
	object bool
	key    string
	index  int
	// keyNext: in an object, the next string is a key.
	keyNext bool
}

// loneSurrogate is the first \u escape in the JSON string text that is half
// a surrogate pair alone, or "".
func loneSurrogate(text []byte) string {
	for i := 0; i < len(text); i++ {
		if text[i] != '\\' {
			continue
		}
		if i+1 < len(text) && text[i+1] != 'u' {
			i++
			continue
		}
		code := hex4(text, i+2)
		switch {
		case code >= 0xD800 && code <= 0xDBFF:
			if next := hex4(text, i+8); i+7 < len(text) && text[i+6] == '\\' && text[i+7] == 'u' && next >= 0xDC00 && next <= 0xDFFF {
				i += 11
				continue
			}
			return string(text[i : i+6])
		case code >= 0xDC00 && code <= 0xDFFF:
			return string(text[i : i+6])
		}
		i += 5
	}
	return ""
}

func hex4(text []byte, at int) int {
	if at+4 > len(text) {
		return -1
	}
	v, err := strconv.ParseUint(string(text[at:at+4]), 16, 16)
	if err != nil {
		return -1
	}
	return int(v)
}

// pathOf is where the open levels of variables point: the variable's
// name, then .key or [index] for each level inside it.
func pathOf(levels []level) string {
	var b strings.Builder
	for i, l := range levels {
		switch {
		case i == 0:
			b.WriteString(l.key)
		case l.object:
			b.WriteString("." + l.key)
		default:
			fmt.Fprintf(&b, "[%d]", l.index)
		}
	}
	return b.String()
}
