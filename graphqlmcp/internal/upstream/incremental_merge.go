package upstream

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"

	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/jsonx"
)

// maxPathLength bounds an increment's path (with its subPath). A path is a
// walk down the data, each step splitting one object or list: a hostile
// path as deep as the data would make the walk quadratic in its size. A
// GraphQL response path is one step a field and one a list level; 128 is
// far deeper than any operation a server accepts.
const maxPathLength = 128

// maxMergeDepth bounds how deep deferred data is merged member by member
// into data already there (a fragment's fields beside the initial ones);
// below it a value replaces the one there. Bounded for the reason
// maxPathLength is.
const maxMergeDepth = 32

// maxLabels bounds the labels and missing increments a Delivery names.
const maxLabels = 20

// Delivery says how an incrementally delivered answer came: graphql_query
// tells the model, in a note beside the result.
type Delivery struct {
	// Parts counts the payloads read (empty parts and {} aside).
	Parts int
	// Complete reports that the last payload said hasNext: false: nothing
	// more was to come.
	Complete bool
	// Labels are the labels of the increments that came, once each, in
	// order (at most maxLabels).
	Labels []string
	// Missing names what was announced (graphql-js 17's pending) and did
	// not complete: its label, else its path (at most maxLabels); More
	// counts the rest.
	Missing []string
	More    int
	// CutPart reports a last part that the stream ended inside of: it was
	// left out.
	CutPart bool
	// Ended says why the stream ended early: the reading was cut ("timed
	// out after 30000 ms"), or the endpoint ended its answer; Advice what
	// to do about it.
	Ended, Advice string
}

// pendingEntry is what one of graphql-js 17's pending entries announces:
// where the increment of its id goes, and its label.
type pendingEntry struct {
	path  []pathElement
	label string
	part  int // the part that announced it
}

// merger merges the payloads of an incremental answer into one GraphQL
// response, in the forms servers send:
//   - the 2022 draft (graphql-js 17.0.0-alpha.2, yoga, Apollo Router):
//     {data, hasNext}, then {incremental: [{data | items, path, label,
//     errors}], hasNext};
//   - graphql-js 17: {data, pending: [{id, path, label}], hasNext}, then
//     {pending, incremental: [{id, data | items, subPath, errors}],
//     completed: [{id, errors}], hasNext};
//   - the first drafts (the GraphQL over HTTP proposal's example, Relay's
//     servers): each later payload one increment, {data | items, path,
//     label, errors, hasNext}.
type merger struct {
	data       *jsonNode // nil until the initial payload, and when it had no data
	hasData    bool      // the initial payload had a data member
	errors     [][]byte
	extensions *composite
	dropped    []string
	pending    map[string]pendingEntry
	order      []string // pending ids, in the order announced
	delivery   Delivery
	initial    bool // the initial payload came
	hasNext    bool
	// ended is the part that ended the answer (0 while it goes on), and
	// endedBy how it did: a later payload belongs to no answer.
	ended   int
	endedBy string
	scan    scanner
	// redactor cleans what a message shows of a part that is not JSON,
	// which was redacted as bytes only.
	redactor Redactor
}

// members are the members of a payload, or of an increment in it, that
// incremental delivery gives a meaning, each as it came (nil when absent).
// A name given twice has its last value, as JSON.parse gives it.
type members struct {
	Data, Errors, Extensions, HasNext, Path, Label json.RawMessage
	ID, SubPath, Items                             json.RawMessage
	Incremental, Pending, Completed                json.RawMessage
	count                                          int // members of any name
}

// readMembers reads the members of the JSON object raw (valid JSON), by
// their exact names. It reads them with the merge's scanner, not into a
// map: a map costs kilobytes, and an increment can be twenty bytes.
func (m *merger) readMembers(raw []byte) members {
	var got members
	m.scan.eachElement(raw, func(key, value []byte) {
		got.count++
		var to *json.RawMessage
		switch memberName(key) {
		case "data":
			to = &got.Data
		case "errors":
			to = &got.Errors
		case "extensions":
			to = &got.Extensions
		case "hasNext":
			to = &got.HasNext
		case "path":
			to = &got.Path
		case "label":
			to = &got.Label
		case "id":
			to = &got.ID
		case "subPath":
			to = &got.SubPath
		case "items":
			to = &got.Items
		case "incremental":
			to = &got.Incremental
		case "pending":
			to = &got.Pending
		case "completed":
			to = &got.Completed
		default:
			return
		}
		*to = value
	})
	return got
}

// add merges the payload of part n, body.
func (m *merger) add(n int, body []byte) error {
	// Each error names the part: "part 2 has ...".
	fail := func(err error) error { return within(err, "part %d ", n) }
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil
	}
	// json.Valid first: the splitting of nodes (eachElement) needs valid
	// JSON, and its scanner refuses nesting deeper than 10,000.
	if body[0] != '{' || !json.Valid(body) {
		return fail(quoting("the start of the part", httpx.Snippet(m.redactor.Bytes(spellEscapes(body)), 200),
			"is not a JSON object (its start is quoted below)"))
	}
	members := m.readMembers(body)
	if members.count == 0 {
		return nil // a keep-alive: Apollo Router sends {} while waiting
	}
	if m.ended > 0 {
		if members.count == 1 && string(members.HasNext) == "false" {
			return nil // the end said again
		}
		return fail(faultf("came after part %d ended the answer (%s), so it belongs to no answer", m.ended, m.endedBy))
	}
	m.delivery.Parts++
	if raw := members.HasNext; raw != nil {
		if err := json.Unmarshal(raw, &m.hasNext); err != nil || isNull(raw) {
			return fail(quoting("the part's hasNext", httpx.Snippet(raw, 50), "has a hasNext, quoted below, which must be true or false"))
		}
		if !m.hasNext {
			// Recorded once this payload is merged: it is the last.
			defer m.end(n, "hasNext: false")
		}
	} else if !m.initial {
		m.hasNext = false // a response without hasNext is a whole one
		defer m.end(n, "a first payload without hasNext is whole")
	}
	hasPath := members.Path != nil
	if legacy := m.initial && hasPath; legacy {
		// The first drafts' form: the payload is the increment, its errors
		// and extensions included.
		if err := m.addIncrement(members); err != nil {
			return fail(err)
		}
	} else {
		if err := m.addErrors(members.Errors); err != nil {
			return fail(err)
		}
		m.addExtensions(members.Extensions)
	}
	if !m.initial {
		m.initial = true
		data, hasData := members.Data, members.Data != nil
		hasErrors := members.Errors != nil
		if !hasData && !hasErrors {
			return fail(faultf("is not a GraphQL response: the first payload must have data or errors"))
		}
		if hasData && !isNull(data) && !isObject(data) {
			return fail(quoting("the part's data", httpx.Snippet(data, 50), "has data, quoted below, which must be an object or null"))
		}
		m.hasData = hasData
		if hasData && !isNull(data) {
			root := newNode(data)
			m.data = &root
		}
	} else if members.Data != nil && !hasPath {
		return fail(faultf("has data but no path, so where it goes is unknown"))
	}
	if err := m.addPending(n, members.Pending); err != nil {
		return fail(err)
	}
	if raw := members.Incremental; raw != nil && !isNull(raw) {
		if raw[0] != '[' {
			return fail(quoting("the part's incremental", httpx.Snippet(raw, 50), "has an incremental, quoted below, which must be a list of objects"))
		}
		entries := make([][]byte, 0, m.scan.count(raw))
		m.scan.eachElement(raw, func(_, entry []byte) { entries = append(entries, entry) })
		for i, entry := range entries {
			if !isObject(entry) {
				return fail(quoting("the part's increment", httpx.Snippet(entry, 50), "has an incremental[%d], quoted below, which must be an object", i))
			}
			if err := m.addIncrement(m.readMembers(entry)); err != nil {
				return fail(within(err, "incremental[%d]: ", i))
			}
		}
	}
	if err := m.addCompleted(members.Completed); err != nil {
		return fail(err)
	}
	return nil
}

// end records that part n ended the answer, as why says.
func (m *merger) end(n int, why string) { m.ended, m.endedBy = n, why }

func (m *merger) addErrors(raw json.RawMessage) error {
	if len(raw) == 0 || isNull(raw) {
		return nil
	}
	var errs []json.RawMessage
	if json.Unmarshal(raw, &errs) != nil {
		return quoting("the errors", httpx.Snippet(raw, 50), "has errors, quoted below, which must be a list of objects")
	}
	for _, e := range errs {
		if !isObject(e) {
			return quoting("the error", httpx.Snippet(e, 50), "has an error, quoted below, which must be an object")
		}
		m.errors = append(m.errors, bytes.TrimSpace(e))
	}
	return nil
}

// addExtensions merges a payload's extensions into the response's, member
// by member, a later payload's member replacing an earlier one's (a cost
// or a trace of the whole answer). An extensions that is not an object is
// left out, as parseGraphQLResponse leaves it out.
func (m *merger) addExtensions(raw json.RawMessage) {
	if len(raw) == 0 {
		return
	}
	node := newNode(raw)
	ext, ok := node.object(&m.scan)
	if !ok {
		if !isNull(raw) && !slices.Contains(m.dropped, "extensions") {
			m.dropped = append(m.dropped, "extensions")
		}
		return
	}
	if m.extensions == nil {
		m.extensions = newObject(len(ext.keys))
	}
	for i, key := range ext.keys {
		m.extensions.set(key, ext.items[i])
	}
}

// addPending records graphql-js 17's announcements of increments to come,
// made in part n. An id names one increment at a time: announced again
// while pending, its increments would have two places to go.
func (m *merger) addPending(n int, raw json.RawMessage) error {
	if len(raw) == 0 {
		return nil
	}
	var entries []struct {
		ID    *string         `json:"id"`
		Path  json.RawMessage `json:"path"`
		Label string          `json:"label"`
	}
	if json.Unmarshal(raw, &entries) != nil {
		return quoting("the part's pending", httpx.Snippet(raw, 80), "has a pending, quoted below, which must be a list of {id, path, label}")
	}
	if m.pending == nil {
		m.pending = map[string]pendingEntry{}
	}
	for i, e := range entries {
		if e.ID == nil {
			return faultf("has pending[%d] without an id", i)
		}
		path, err := parsePath(e.Path, 0)
		if err != nil {
			return within(err, "has pending[%d] with ", i)
		}
		if earlier, known := m.pending[*e.ID]; known {
			return quoting("the id", httpx.Snippet([]byte(*e.ID), maxQuotedID),
				"has pending[%d] with an id, quoted below, which part %d announced and is still pending", i, earlier.part)
		}
		m.order = append(m.order, *e.ID)
		m.pending[*e.ID] = pendingEntry{path: path, label: e.Label, part: n}
	}
	return nil
}

func (m *merger) addCompleted(raw json.RawMessage) error {
	if len(raw) == 0 {
		return nil
	}
	var entries []struct {
		ID     *string         `json:"id"`
		Errors json.RawMessage `json:"errors"`
	}
	if json.Unmarshal(raw, &entries) != nil {
		return quoting("the part's completed", httpx.Snippet(raw, 80), "has a completed, quoted below, which must be a list of {id, errors}")
	}
	for i, e := range entries {
		if e.ID == nil {
			return faultf("has completed[%d] without an id", i)
		}
		p, known := m.pending[*e.ID]
		if !known {
			return quoting("the id", httpx.Snippet([]byte(*e.ID), maxQuotedID), "has completed[%d] with an id, quoted below, which no pending entry announced", i)
		}
		if err := m.addErrors(e.Errors); err != nil {
			return within(err, "completed[%d] ", i)
		}
		m.label(p.label)
		delete(m.pending, *e.ID)
	}
	return nil
}

// addIncrement places one increment: deferred data merged into the object
// at its path, or streamed items added to the list there.
//
// graphql-js 17's increments name a pending entry and a subPath below its
// path: the walk goes down both, not down a copy of them joined, which
// would cost as much as the whole path for an increment of a few bytes.
func (m *merger) addIncrement(members members) error {
	var base, sub []pathElement
	var err error
	byID := false
	if raw := members.ID; raw != nil {
		if raw[0] != '"' {
			return quoting("the increment's id", httpx.Snippet(raw, 50), "has an id, quoted below, which must be a string")
		}
		id := memberName(raw) // a string literal decodes as a name does
		p, known := m.pending[id]
		if !known {
			return quoting("the increment's id", httpx.Snippet([]byte(id), maxQuotedID), "has an id, quoted below, which no pending entry announced")
		}
		byID = true
		base = p.path
		if sub, err = parsePath(members.SubPath, len(base)); err != nil {
			return within(err, "has subPath ")
		}
	} else {
		if members.Path == nil {
			return faultf("has neither an id nor a path, so where it goes is unknown")
		}
		if base, err = parsePath(members.Path, 0); err != nil {
			return err
		}
		var label string
		if raw := members.Label; raw != nil && json.Unmarshal(raw, &label) == nil {
			m.label(label)
		}
	}
	if err := m.addErrors(members.Errors); err != nil {
		return err
	}
	m.addExtensions(members.Extensions)
	if raw := members.Items; raw != nil && !isNull(raw) {
		// null items: an error ended the stream, which its errors say.
		return m.addItems(base, sub, raw, byID)
	}
	if raw := members.Data; raw != nil && !isNull(raw) {
		target, err := m.walk(base, sub)
		if err != nil {
			return pathFault(joinPath(base, sub), "puts its data at %s, which %v", err)
		}
		src := newNode(raw)
		return m.mergeObject(target, &src, base, sub)
	}
	return nil
}

// addItems adds streamed items to a list. graphql-js 17's path (byID)
// names the list, and the items follow what it holds; the 2022 draft's
// names the first item's place in the list.
func (m *merger) addItems(base, sub []pathElement, raw json.RawMessage, byID bool) error {
	node := newNode(raw)
	items, ok := node.listItems(&m.scan)
	if !ok {
		return quoting("the increment's items", httpx.Snippet(raw, 50), "has items, quoted below, which must be a list")
	}
	start := -1
	if !byID {
		path := base // the 2022 draft's has no sub
		if len(path) == 0 || path[len(path)-1].isKey {
			return pathFault(path, "puts its items at %s, which must end in the index of the first item")
		}
		base, start = path[:len(path)-1], path[len(path)-1].index
	}
	target, err := m.walk(base, sub)
	listPath := func() []pathElement { return joinPath(base, sub) }
	if err != nil {
		return pathFault(listPath(), "puts its items in %s, which %v", err)
	}
	have, ok := target.listItems(&m.scan)
	if !ok {
		return pathFault(listPath(), "puts its items in %s, which is %s, not a list", describe(target))
	}
	if start < 0 {
		start = len(have.items)
	}
	if start > len(have.items) {
		return pathFault(listPath(), "puts its items in %s at index %d, but that list has %d, so items would be missing between", start, len(have.items))
	}
	for i, item := range items.items {
		if start+i < len(have.items) {
			have.items[start+i] = item
		} else {
			have.items = append(have.items, item)
		}
	}
	return nil
}

// walk follows base and then sub down the data. Its error completes "...
// at PATH, which".
func (m *merger) walk(base, sub []pathElement) (*jsonNode, error) {
	if m.data == nil {
		return nil, faultf("leads to nothing: the first payload has no data")
	}
	node := m.data
	for i := range len(base) + len(sub) {
		step := stepAt(base, sub, i)
		if step.isKey {
			obj, ok := node.object(&m.scan)
			if !ok {
				return nil, faultf("leads to nothing: its step %d is a member's name, but the value there is %s, not an object", i+1, describe(node))
			}
			if node = obj.member(step.key); node == nil {
				return nil, faultf("leads to nothing: its step %d names a member the object there does not have", i+1)
			}
			continue
		}
		list, ok := node.listItems(&m.scan)
		if !ok {
			return nil, faultf("leads to nothing: its step %d is a list index, but the value there is %s, not a list", i+1, describe(node))
		}
		if step.index >= len(list.items) {
			return nil, faultf("leads to nothing: its step %d is index %d, but the list there has %d items", i+1, step.index, len(list.items))
		}
		node = &list.items[step.index]
	}
	return node, nil
}

// mergeObject merges the object src into the object dst: a member dst
// lacks is added after its own; one both have is merged when both are
// objects, or lists of one length (item by item), and else src's replaces
// dst's.
func (m *merger) mergeObject(dst, src *jsonNode, base, sub []pathElement) error {
	to, ok := dst.object(&m.scan)
	if !ok {
		return pathFault(joinPath(base, sub), "puts its data at %s, which is %s, not an object", describe(dst))
	}
	from, ok := src.object(&m.scan)
	if !ok {
		return faultf("has data that is %s, which must be an object", describe(src))
	}
	m.mergeMembers(to, from, 1)
	return nil
}

// mergeMembers merges each member of from into to. A member to lacks is
// added; the places of to's members stay where they are, so a pointer to
// one is not kept across the set of another (set may move them all).
func (m *merger) mergeMembers(to, from *composite, depth int) {
	for i, key := range from.keys {
		have := to.member(key)
		if have == nil || depth > maxMergeDepth {
			to.set(key, from.items[i])
			continue
		}
		m.mergeNodes(have, &from.items[i], depth)
	}
}

func (m *merger) mergeNodes(have, value *jsonNode, depth int) {
	switch {
	case depth > maxMergeDepth:
		*have = *value
	case have.kind() == '{' && value.kind() == '{':
		to, _ := have.object(&m.scan)
		from, _ := value.object(&m.scan)
		m.mergeMembers(to, from, depth+1)
	case have.kind() == '[' && value.kind() == '[':
		old, _ := have.listItems(&m.scan)
		add, _ := value.listItems(&m.scan)
		if len(old.items) != len(add.items) {
			*have = *value
			return
		}
		for i := range old.items {
			m.mergeNodes(&old.items[i], &add.items[i], depth+1)
		}
	default:
		*have = *value
	}
}

// label records the label of an increment that came.
func (m *merger) label(label string) {
	if label == "" || len(m.delivery.Labels) >= maxLabels {
		return
	}
	for _, l := range m.delivery.Labels {
		if l == label {
			return
		}
	}
	m.delivery.Labels = append(m.delivery.Labels, label)
}

// finish returns the merged response, and how it came.
func (m *merger) finish() (graphQLResponse, Delivery, bool) {
	if !m.initial {
		return graphQLResponse{}, Delivery{}, false
	}
	d := m.delivery
	d.Complete = !m.hasNext
	if !d.Complete {
		named := map[string]bool{} // an id completed and announced again is in order twice
		for _, id := range m.order {
			p, left := m.pending[id]
			if !left || named[id] {
				continue
			}
			named[id] = true
			what := p.label
			if what == "" {
				what = "at " + pathText(p.path)
			}
			if len(d.Missing) < maxLabels {
				d.Missing = append(d.Missing, what)
			} else {
				d.More++
			}
		}
	}
	var buf bytes.Buffer
	buf.WriteByte('{')
	if len(m.errors) > 0 {
		buf.WriteString(`"errors":[`)
		buf.Write(bytes.Join(m.errors, []byte(",")))
		buf.WriteString("]")
	}
	if m.hasData {
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		buf.WriteString(`"data":`)
		if m.data == nil {
			buf.WriteString("null")
		} else {
			m.data.write(&buf)
		}
	}
	if m.extensions != nil {
		buf.WriteString(`,"extensions":`)
		(&jsonNode{split: m.extensions}).write(&buf)
	}
	buf.WriteByte('}')
	doc, ok := parseGraphQLResponse(buf.Bytes())
	doc.dropped = append(doc.dropped, m.dropped...)
	return doc, d, ok
}

// parsePath reads a response path (a list of member names and indexes)
// that follows a path of before steps.
func parsePath(raw json.RawMessage, before int) ([]pathElement, error) {
	if len(raw) == 0 || isNull(raw) {
		return nil, nil
	}
	var steps []any
	if jsonx.Unmarshal(raw, &steps) != nil {
		return nil, quoting("the path", httpx.Snippet(raw, 80), "a path, quoted below, which must be a list of names and indexes")
	}
	if before+len(steps) > maxPathLength {
		return nil, faultf("a path of %d steps, over the %d allowed", before+len(steps), maxPathLength)
	}
	path := make([]pathElement, 0, len(steps))
	for _, step := range steps {
		switch step := step.(type) {
		case string:
			path = append(path, pathElement{key: step, isKey: true})
		case float64:
			if step < 0 || step != math.Trunc(step) || step > math.MaxInt32 {
				// The number as Go writes it: digits, which say nothing.
				return nil, faultf("a path step %v, which must be a name or a list index", step)
			}
			path = append(path, pathElement{index: int(step)})
		default:
			return nil, quoting("the path step", httpx.Snippet(mustJSON(step), 50), "a path step, quoted below, which must be a name or a list index")
		}
	}
	return path, nil
}

// stepAt is step i of base followed by sub.
func stepAt(base, sub []pathElement, i int) pathElement {
	if i < len(base) {
		return base[i]
	}
	return sub[i-len(base)]
}

// joinPath is base followed by sub, for a message.
func joinPath(base, sub []pathElement) []pathElement {
	return append(append(make([]pathElement, 0, len(base)+len(sub)), base...), sub...)
}

// pathText writes a path as a model reads it: hero.friends.3, or "the
// data" for the root.
func pathText(path []pathElement) string {
	if len(path) == 0 {
		return "the data"
	}
	steps := make([]string, len(path))
	for i, step := range path {
		steps[i] = step.String()
	}
	return strings.Join(steps, ".")
}

// describe names the kind of n's value.
func describe(n *jsonNode) string {
	switch n.kind() {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case 'n':
		return "null"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// mustJSON writes a decoded JSON value back, for a message.
func mustJSON(v any) []byte {
	out, _ := jsonx.Marshal(v)
	return out
}
