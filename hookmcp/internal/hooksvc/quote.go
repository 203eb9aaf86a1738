package hooksvc

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpforge/servers/shared/httpx"
)

// maxQuoted is the most bytes of an argument an error quotes back: enough
// to recognise it, never the megabyte that was pasted.
const maxQuoted = 100

// Quote writes a value for an error: quoted, and when longer than
// maxQuoted bytes cut at a character boundary, with its length, so that an
// error's size never follows its input's.
func Quote(v string) string {
	if len(v) <= maxQuoted {
		return strconv.Quote(v)
	}
	return fmt.Sprintf("%s… (%d bytes in all)", strconv.Quote(prefix(v)), len(v))
}

// Clip is Quote for a value shown in place, without quotes (a host name).
func Clip(v string) string {
	if len(v) <= maxQuoted {
		return v
	}
	return fmt.Sprintf("%s… (%d bytes in all)", prefix(v), len(v))
}

// prefix is v's first maxQuoted bytes, cut at a character boundary.
func prefix(v string) string {
	cut := min(maxQuoted, len(v))
	for cut > 0 && cut < len(v) && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return v[:cut]
}

// describeAnswer says what a JSON answer that is not an error envelope is,
// for an error, by its shape and member names, never their values: an
// answer of the wrong kind (a token where a listing was due) carries the
// token's password and account ids. Text that is not JSON is quoted from
// its start, at most n bytes.
func describeAnswer(body []byte, n int) string {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return httpx.Snippet(body, n)
	}
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			return "an empty JSON object"
		}
		names := slices.Sorted(maps.Keys(v))
		shown := make([]string, 0, min(len(names), maxShownNames))
		for _, name := range names[:min(len(names), maxShownNames)] {
			shown = append(shown, Quote(name))
		}
		more := ""
		if len(names) > maxShownNames {
			more = fmt.Sprintf(" and %d more", len(names)-maxShownNames)
		}
		return fmt.Sprintf("a JSON object with the members %s%s (values not shown)", strings.Join(shown, ", "), more)
	case []any:
		return fmt.Sprintf("a JSON array of %d items", len(v))
	case string:
		return "a JSON string"
	case float64:
		return "a JSON number"
	case bool:
		return "a JSON boolean"
	}
	return "JSON null"
}

// maxShownNames bounds the member names describeAnswer shows.
const maxShownNames = 10
