package upstream

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/mcpforge/servers/shared/jsonx"
)

// jsonNode is a JSON value that increments are merged into. It stays the
// bytes it came as until a path goes through it, and is then split one
// level (into its members or items, each again bytes): only the objects and
// lists on the way to an increment are ever split, and members keep the
// order the endpoint gave them, which follows the operation's.
//
// A node is small (its bytes' slice and a pointer), and the members or
// items of a split value are held in one slice of nodes, not each in an
// allocation of its own: a list of a million one-digit numbers that a path
// leads through costs 32 bytes an item.
type jsonNode struct {
	raw   []byte
	split *composite // once split, the value; raw is then nil
}

// composite is an object's members or a list's items.
type composite struct {
	list  bool
	items []jsonNode // the members' values, or the items, in order
	// An object's member names, in the order of items, and where each is.
	keys  []string
	index map[string]int
}

// member returns the value of the member key, or nil.
func (c *composite) member(key string) *jsonNode {
	if i, ok := c.index[key]; ok {
		return &c.items[i]
	}
	return nil
}

// set makes value the member key's, in its place if it has one, else
// after the others. A name given twice thus keeps its first place and its
// last value, the value JSON.parse and encoding/json keep.
func (c *composite) set(key string, value jsonNode) {
	if i, ok := c.index[key]; ok {
		c.items[i] = value
		return
	}
	c.index[key] = len(c.items)
	c.keys = append(c.keys, key)
	c.items = append(c.items, value)
}

func newObject(size int) *composite {
	return &composite{items: make([]jsonNode, 0, size), keys: make([]string, 0, size), index: make(map[string]int, size)}
}

func newNode(raw []byte) jsonNode { return jsonNode{raw: bytes.TrimSpace(raw)} }

// kind is the first byte of the value: '{', '[', '"', 'n' (null), and so on.
func (n *jsonNode) kind() byte {
	switch {
	case n.split != nil && n.split.list:
		return '['
	case n.split != nil:
		return '{'
	case len(n.raw) == 0:
		return 0
	}
	return n.raw[0]
}

// object splits n into its members, once; it reports false for a value that
// is not an object. n's bytes must be valid JSON (each part is checked
// whole before any of it is merged).
func (n *jsonNode) object(s *scanner) (*composite, bool) {
	if n.kind() != '{' {
		return nil, false
	}
	if n.split == nil {
		o := newObject(s.count(n.raw))
		s.eachElement(n.raw, func(key, value []byte) { o.set(memberName(key), newNode(value)) })
		n.split, n.raw = o, nil
	}
	return n.split, true
}

// listItems splits n into its items, once; it reports false for a value
// that is not a list.
func (n *jsonNode) listItems(s *scanner) (*composite, bool) {
	if n.kind() != '[' {
		return nil, false
	}
	if n.split == nil {
		l := &composite{list: true, items: make([]jsonNode, 0, s.count(n.raw))}
		s.eachElement(n.raw, func(_, value []byte) { l.items = append(l.items, newNode(value)) })
		n.split, n.raw = l, nil
	}
	return n.split, true
}

// memberName decodes a member's name, a valid JSON string literal.
func memberName(literal []byte) string {
	inner := literal[1 : len(literal)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner)
	}
	var name string
	_ = json.Unmarshal(literal, &name) // valid JSON: a string
	return name
}

// write appends n as JSON to buf.
func (n *jsonNode) write(buf *bytes.Buffer) {
	switch {
	case n.split != nil && n.split.list:
		buf.WriteByte('[')
		for i := range n.split.items {
			if i > 0 {
				buf.WriteByte(',')
			}
			n.split.items[i].write(buf)
		}
		buf.WriteByte(']')
	case n.split != nil:
		buf.WriteByte('{')
		for i, key := range n.split.keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeName(buf, key)
			buf.WriteByte(':')
			n.split.items[i].write(buf)
		}
		buf.WriteByte('}')
	default:
		buf.Write(n.raw)
	}
}

// writeName writes a member's name as a JSON string: as it is when it
// needs no escape, as almost every name does.
func writeName(buf *bytes.Buffer, name string) {
	plain := utf8.ValidString(name)
	for i := 0; plain && i < len(name); i++ {
		plain = name[i] >= 0x20 && name[i] != '"' && name[i] != '\\'
	}
	if plain {
		buf.WriteByte('"')
		buf.WriteString(name)
		buf.WriteByte('"')
		return
	}
	encoded, _ := jsonx.Marshal(name) // a string always encodes
	buf.Write(encoded)
}

// count counts the members or items of the JSON object or list raw, so
// that its split is held in a slice made once to size.
func (s *scanner) count(raw []byte) int {
	n := 0
	s.eachElement(raw, func(_, _ []byte) { n++ })
	return n
}

// scanner finds where JSON values end, for splitting nodes. A path splits
// each value on its way, and each split reads its members to their ends:
// read afresh, a value as deep as a path may go would be read once for each
// level above it (160 times). The scanner remembers where each large
// object or list it has read through ends, so a value is read through once
// and then stepped over.
type scanner struct {
	// lengths holds the length of each object or list of at least
	// bigValue bytes read through, by the address of its first byte
	// (the bytes of every part stay as they came while they are merged).
	lengths map[*byte]int
	opens   []int // the starts of the values being read through
	// read counts the bytes read through, not stepped over: what the
	// merge's work grows with, which a test bounds.
	read int
}

// bigValue is the least length of a value whose end a scanner remembers:
// a smaller one is read again faster than it is looked up.
const bigValue = 4 << 10

// rememberedDepth bounds how deep inside the value being read through the
// values whose ends are remembered lie: no path goes deeper than
// maxPathLength + maxMergeDepth below the data, so no deeper value is ever
// split or stepped over, and values nested ten thousand deep would each
// take a place.
const rememberedDepth = maxPathLength + maxMergeDepth + 1

// eachElement calls f with each member (key and value) of the JSON object
// raw, or each item (no key) of the JSON list raw, as bytes. raw must be
// valid JSON.
func (s *scanner) eachElement(raw []byte, f func(key, value []byte)) {
	i := skipSpace(raw, 1)
	object := raw[0] == '{'
	for i < len(raw) && raw[i] != '}' && raw[i] != ']' {
		var key []byte
		if object {
			end := s.skipValue(raw, i)
			key = raw[i:end]
			i = skipSpace(raw, end)
			i = skipSpace(raw, i+1) // the colon
		}
		end := s.skipValue(raw, i)
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
// brackets and skips strings (it needs the value to be valid, not to read
// it), steps over the values whose ends it remembers, and remembers the
// ends of the large ones it reads through.
func (s *scanner) skipValue(raw []byte, i int) int {
	end, stepped := s.scanValue(raw, i)
	s.read += end - i - stepped
	return end
}

// scanValue is skipValue's reading: where the value ends, and how many of
// its bytes were stepped over.
func (s *scanner) scanValue(raw []byte, i int) (end, stepped int) {
	s.opens = s.opens[:0]
	for ; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			i = stringEnd(raw, i)
			if len(s.opens) == 0 {
				return i + 1, stepped
			}
		case '{', '[':
			if n, ok := s.lengths[&raw[i]]; ok {
				i += n - 1
				stepped += n
				if len(s.opens) == 0 {
					return i + 1, stepped
				}
				continue
			}
			s.opens = append(s.opens, i)
		case '}', ']':
			if len(s.opens) == 0 {
				return i, stepped
			}
			open := s.opens[len(s.opens)-1]
			s.opens = s.opens[:len(s.opens)-1]
			if n := i + 1 - open; n >= bigValue && len(s.opens) < rememberedDepth {
				if s.lengths == nil {
					s.lengths = map[*byte]int{}
				}
				s.lengths[&raw[open]] = n
			}
			if len(s.opens) == 0 {
				return i + 1, stepped
			}
		case ',', ' ', '\t', '\n', '\r', ':':
			if len(s.opens) == 0 {
				return i, stepped
			}
		}
	}
	return i, stepped
}

// stringEnd returns where the JSON string literal starting at raw[i] (a
// quote) has its closing quote, or len(raw). It jumps from quote to quote
// (IndexByte is many times faster than a loop over the bytes): a quote
// after an odd number of backslashes is escaped.
func stringEnd(raw []byte, i int) int {
	for {
		q := bytes.IndexByte(raw[i+1:], '"')
		if q < 0 {
			return len(raw)
		}
		i += 1 + q
		slashes := 0
		for j := i - 1; j >= 0 && raw[j] == '\\'; j-- {
			slashes++
		}
		if slashes%2 == 0 {
			return i
		}
	}
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
