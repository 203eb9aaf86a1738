package upstream

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/mcpforge/servers/shared/jsonx"
)

// jsonNode is a JSON value that increments are merged into. It stays the
// bytes it came as until a path goes through it, and is then split one
// level (into its members or items, each again bytes): only the objects and
// lists on the way to an increment are ever split, and members keep the
// order the endpoint gave them, which follows the operation's.
type jsonNode struct {
	raw []byte
	// Once split, exactly one of these holds the value.
	obj   *jsonObject
	items []*jsonNode
	list  bool
}

type jsonObject struct {
	keys []string
	vals map[string]*jsonNode
}

func (o *jsonObject) get(key string) *jsonNode { return o.vals[key] }

func (o *jsonObject) set(key string, n *jsonNode) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = n
}

func newNode(raw []byte) *jsonNode { return &jsonNode{raw: bytes.TrimSpace(raw)} }

// kind is the first byte of the value: '{', '[', '"', 'n' (null), and so on.
func (n *jsonNode) kind() byte {
	switch {
	case n.obj != nil:
		return '{'
	case n.list:
		return '['
	case len(n.raw) == 0:
		return 0
	}
	return n.raw[0]
}

// object splits n into its members, once; it reports false for a value that
// is not an object. n's bytes must be valid JSON (each part is checked
// whole before any of it is merged).
func (n *jsonNode) object() (*jsonObject, bool) {
	if n.obj != nil || n.kind() != '{' {
		return n.obj, n.obj != nil
	}
	o := &jsonObject{vals: map[string]*jsonNode{}}
	eachElement(n.raw, func(key, value []byte) {
		var name string
		_ = json.Unmarshal(key, &name) // valid JSON: a string
		o.set(name, newNode(value))
	})
	n.obj, n.raw = o, nil
	return o, true
}

// list splits n into its items, once; it reports false for a value that is
// not a list.
func (n *jsonNode) listItems() ([]*jsonNode, bool) {
	if n.list || n.kind() != '[' {
		return n.items, n.list
	}
	var items []*jsonNode
	eachElement(n.raw, func(_, value []byte) { items = append(items, newNode(value)) })
	n.items, n.list, n.raw = items, true, nil
	return items, true
}

// replace makes n the value raw.
func (n *jsonNode) replace(raw []byte) { *n = *newNode(raw) }

// write appends n as JSON to buf.
func (n *jsonNode) write(buf *bytes.Buffer) {
	switch {
	case n.obj != nil:
		buf.WriteByte('{')
		for i, key := range n.obj.keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			name, _ := jsonx.Marshal(key) // a string always encodes
			buf.Write(name)
			buf.WriteByte(':')
			n.obj.vals[key].write(buf)
		}
		buf.WriteByte('}')
	case n.list:
		buf.WriteByte('[')
		for i, item := range n.items {
			if i > 0 {
				buf.WriteByte(',')
			}
			item.write(buf)
		}
		buf.WriteByte(']')
	default:
		buf.Write(n.raw)
	}
}

// eachElement calls f with each member (key and value) of the JSON object
// raw, or each item (no key) of the JSON list raw, as bytes. raw must be
// valid JSON.
func eachElement(raw []byte, f func(key, value []byte)) {
	i := skipSpace(raw, 1)
	object := raw[0] == '{'
	for i < len(raw) && raw[i] != '}' && raw[i] != ']' {
		var key []byte
		if object {
			end := skipValue(raw, i)
			key = raw[i:end]
			i = skipSpace(raw, end)
			i = skipSpace(raw, i+1) // the colon
		}
		end := skipValue(raw, i)
		f(key, raw[i:end])
		i = skipSpace(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
}

func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns where the JSON value starting at raw[i] ends. It counts
// brackets and skips strings: it needs the value to be valid, not to read
// it, so it is as fast as a scan.
func skipValue(raw []byte, i int) int {
	depth := 0
	for ; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
			if depth < 0 {
				return i
			}
		case ',', ' ', '\t', '\n', '\r', ':':
			if depth == 0 {
				return i
			}
		}
	}
	return i
}

// pathElement is one step of a response path: a member's name or a list
// index.
type pathElement struct {
	key   string
	index int
	isKey bool
}

func (e pathElement) String() string {
	if e.isKey {
		return e.key
	}
	return strconv.Itoa(e.index)
}
