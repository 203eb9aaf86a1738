package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
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
		item = asObject(item)
		if size+len(item)+1 > budget {
			break
		}
		size += len(item) + 1
		out = append(out, item)
	}
	if len(out) == 0 && len(items) > 0 {
		return []json.RawMessage{shrinkItem(asObject(items[0]), budget-2)}, 1, true
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
