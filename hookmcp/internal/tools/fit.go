package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/shared/jsonx"
)

// A captured request is written by whoever knows its capture URL, so every
// part of it may be huge: the content, a form POST's parsed fields, headers,
// the query. These helpers bound what a result holds by its encoded size,
// whole item included, never by a count.

// maxExtraEnvelopeBytes bounds the envelope members the API sends beyond the
// declared ones: they are passed on when small, dropped with a note otherwise.
const maxExtraEnvelopeBytes = 4_000

// noteReserve is room kept for a note beside the items; every note is
// shorter.
const noteReserve = 1_000

// envelope returns the page's envelope without data: the members
// list_requests declares, re-encoded from their decoded values so that the
// result always matches its schema, and the API's other members when they are
// small. dropped names the members left out.
func envelope(page *hooksvc.Page) (fields map[string]json.RawMessage, dropped []string) {
	fields = map[string]json.RawMessage{}
	for name, value := range map[string]any{
		"total": page.Total, "per_page": page.PerPage, "current_page": page.Page,
		"is_last_page": page.IsLastPage, "from": page.From, "to": page.To,
	} {
		fields[name], _ = jsonx.Marshal(value)
	}
	extra := 0
	for _, name := range slices.Sorted(maps.Keys(page.Fields)) {
		if _, declared := fields[name]; declared || name == "data" || name == "note" {
			continue
		}
		value := page.Fields[name]
		if extra+len(name)+len(value) > maxExtraEnvelopeBytes {
			dropped = append(dropped, name)
			continue
		}
		extra += len(name) + len(value)
		fields[name] = value
	}
	return fields, dropped
}

// asObject returns item when it is a JSON object, else wraps it in one, so a
// list always holds objects, as the schemas declare.
func asObject(item json.RawMessage) json.RawMessage {
	trimmed := bytes.TrimSpace(item)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return trimmed
	}
	wrapped, _ := jsonx.Marshal(map[string]json.RawMessage{"unexpected_item": trimmed})
	return wrapped
}

// shrinkItem returns item (a JSON object) cut to at most budget bytes when
// encoded: every string in it is cut to the longest length that fits (on a
// rune boundary), and when even empty strings do not fit, its largest
// members are dropped. The result says what was cut: content_truncated (the
// body) and truncated_members (every top-level member cut or dropped).
func shrinkItem(item json.RawMessage, budget int) json.RawMessage {
	if len(item) <= budget {
		return item
	}
	var fields map[string]any
	dec := json.NewDecoder(bytes.NewReader(item))
	dec.UseNumber()
	if dec.Decode(&fields) != nil {
		fields = map[string]any{}
	}
	encode := func(limit int) json.RawMessage {
		out := make(map[string]any, len(fields)+2)
		var cut []string
		for name, value := range fields {
			short, changed := capStrings(value, limit)
			out[name] = short
			if changed {
				cut = append(cut, name)
			}
		}
		raw, _ := jsonx.Marshal(withMarkers(out, cut))
		return raw
	}
	// The longest string cap that fits, by bisection: no string longer
	// than the budget can fit, so that bounds the search.
	lo, hi := 0, min(len(item), budget)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if len(encode(mid)) <= budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if raw := encode(lo); len(raw) <= budget {
		return raw
	}
	// Even with every string emptied it does not fit (a huge array of
	// numbers, or a great many keys): keep the smallest members that fit
	// and drop the rest.
	names := make([]string, 0, len(fields))
	sizes := make(map[string]int, len(fields))
	for name, value := range fields {
		raw, _ := jsonx.Marshal(value)
		names = append(names, name)
		sizes[name] = len(raw) + len(name) + 4
	}
	slices.SortFunc(names, func(a, b string) int { return sizes[a] - sizes[b] })
	kept := map[string]any{}
	var cut []string
	size := 0
	for _, name := range names {
		if size+sizes[name] <= budget-markerReserve {
			kept[name] = fields[name]
			size += sizes[name]
		} else {
			cut = append(cut, name)
		}
	}
	raw, _ := jsonx.Marshal(withMarkers(kept, cut))
	if len(raw) > budget {
		raw, _ = jsonx.Marshal(map[string]any{"truncated_members": []string{"*"}, "note": "this request is too large to show in part"})
	}
	return raw
}

// markerReserve is room for withMarkers' members: at most maxMarkedNames
// names of at most 40 bytes.
const (
	markerReserve  = 1_200
	maxMarkedNames = 20
)

// withMarkers adds to an item what was cut from it: content_truncated when
// the body was, and truncated_members naming the top-level members cut or
// dropped (at most maxMarkedNames, each at most 40 bytes).
func withMarkers(item map[string]any, cut []string) map[string]any {
	if len(cut) == 0 {
		return item
	}
	slices.Sort(cut)
	if slices.Contains(cut, "content") {
		item["content_truncated"] = true
	}
	names := make([]string, 0, min(len(cut), maxMarkedNames)+1)
	for _, name := range cut[:min(len(cut), maxMarkedNames)] {
		names = append(names, truncate(name, 40))
	}
	if len(cut) > maxMarkedNames {
		names = append(names, fmt.Sprintf("(%d more)", len(cut)-maxMarkedNames))
	}
	item["truncated_members"] = names
	return item
}

// capStrings returns v with every string (keys excepted) cut to at most
// limit bytes, and whether anything was cut.
func capStrings(v any, limit int) (any, bool) {
	switch v := v.(type) {
	case string:
		if len(v) <= limit {
			return v, false
		}
		// A rune cut in two at the end is dropped.
		return strings.ToValidUTF8(v[:limit], ""), true
	case []any:
		out := make([]any, len(v))
		changed := false
		for i, e := range v {
			var c bool
			out[i], c = capStrings(e, limit)
			changed = changed || c
		}
		return out, changed
	case map[string]any:
		out := make(map[string]any, len(v))
		changed := false
		for k, e := range v {
			var c bool
			out[k], c = capStrings(e, limit)
			changed = changed || c
		}
		return out, changed
	}
	return v, false
}

// fitItems keeps whole items, in order, while their encoded size stays
// within budget. When not even the first fits, it is shrunk to budget
// (shrunk reports that). kept counts the items of the input used.
func fitItems(items []json.RawMessage, budget int) (out []json.RawMessage, kept int, shrunk bool) {
	size := 2 // [ ]
	for _, item := range items {
		item = requestItem(item)
		if size+len(item)+1 > budget {
			break
		}
		size += len(item) + 1
		out = append(out, item)
	}
	if len(out) == 0 && len(items) > 0 {
		return []json.RawMessage{shrinkItem(requestItem(items[0]), budget-2)}, 1, true
	}
	return out, len(out), false
}

// describeDropped names envelope members left out, for a note.
func describeDropped(dropped []string) string {
	if len(dropped) == 0 {
		return ""
	}
	names := dropped[:min(len(dropped), 5)]
	more := ""
	if len(dropped) > len(names) {
		more = fmt.Sprintf(" and %d more", len(dropped)-len(names))
	}
	return fmt.Sprintf(" The API's page carried other members too large to pass on (%s%s); they were left out.", truncate(strings.Join(names, ", "), 200), more)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// requestFields are the members of a request object that a listing or the
// requests resource copies: what the service documents of a captured
// request (web, email and dns) and the sender's location. Anything else
// stays out: the hosted service adds account data (team_id) to request
// objects, and members added later may be anything.
var requestFields = map[string]bool{
	"uuid": true, "token_id": true, "type": true, "ip": true, "hostname": true, "method": true,
	"user_agent": true, "content": true, "query": true, "headers": true, "url": true, "size": true,
	"files": true, "custom_action_output": true, "custom_action_errors": true, "time": true,
	"note": true, "sorting": true, "request": true, "created_at": true, "updated_at": true,
	"country": true, "country_code": true, "region": true, "city": true,
	"sender": true, "message_id": true, "destinations": true, "checks": true,
	"text_content": true, "html_content": true,
	// asObject's wrapper of an item that is not an object.
	"unexpected_item": true,
}

// requestItem is a listed request as a result shows it: a JSON object
// holding only requestFields, with every number that float64 cannot hold
// (1e400) written as a string, since a client decoding the result as
// numbers would fail on the whole result. Most requests need neither
// change, and come back as they are, in one pass over their bytes.
func requestItem(item json.RawMessage) json.RawMessage {
	item = asObject(item)
	foreign, huge := scanRequest(item)
	if huge {
		item = quoteHugeNumbers(item)
	}
	if !foreign {
		return item
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(item, &fields) != nil {
		return item
	}
	maps.DeleteFunc(fields, func(name string, _ json.RawMessage) bool { return !requestFields[name] })
	kept, err := jsonx.Marshal(fields)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return kept
}

// scanRequest reads the JSON object item once and reports whether a
// top-level member is not in requestFields, and whether a number in it is
// out of float64's range.
func scanRequest(item []byte) (foreign, huge bool) {
	depth := 0
	for i := 0; i < len(item); {
		c := item[i]
		switch {
		case c == '"':
			end := stringEnd(item, i)
			if depth == 1 && nextIsColon(item, end) && !isRequestField(item[i:end]) {
				foreign = true
			}
			i = end
			continue
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		case c == '-' || (c >= '0' && c <= '9'):
			end := numberEnd(item, i)
			if _, err := strconv.ParseFloat(string(item[i:end]), 64); err != nil {
				huge = true
			}
			i = end
			continue
		}
		i++
	}
	return foreign, huge
}

// isRequestField reports whether name, a JSON string, is one of
// requestFields. A name without an escape, as the API writes them all, is
// looked up as it is, without decoding it (which allocated, for every
// member of every request of the requests resource).
func isRequestField(name []byte) bool {
	if len(name) >= 2 && bytes.IndexByte(name, '\\') < 0 {
		return requestFields[string(name[1:len(name)-1])]
	}
	var decoded string
	return json.Unmarshal(name, &decoded) == nil && requestFields[decoded]
}

// quoteHugeNumbers writes each number of item that float64 cannot hold as
// a JSON string of its digits.
func quoteHugeNumbers(item []byte) []byte {
	out := make([]byte, 0, len(item)+16)
	for i := 0; i < len(item); {
		c := item[i]
		switch {
		case c == '"':
			end := stringEnd(item, i)
			out = append(out, item[i:end]...)
			i = end
		case c == '-' || (c >= '0' && c <= '9'):
			end := numberEnd(item, i)
			if _, err := strconv.ParseFloat(string(item[i:end]), 64); err != nil {
				out = append(append(append(out, '"'), item[i:end]...), '"')
			} else {
				out = append(out, item[i:end]...)
			}
			i = end
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}

// stringEnd returns the index just past the JSON string starting at b[start].
func stringEnd(b []byte, start int) int {
	for i := start + 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// numberEnd returns the index just past the JSON number starting at b[start].
func numberEnd(b []byte, start int) int {
	i := start
	for i < len(b) && strings.IndexByte("0123456789+-.eE", b[i]) >= 0 {
		i++
	}
	return i
}

// nextIsColon reports whether the next byte of b from i, whitespace aside,
// is a colon: the string before it was a member's name.
func nextIsColon(b []byte, i int) bool {
	for ; i < len(b); i++ {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case ':':
			return true
		}
		return false
	}
	return false
}
