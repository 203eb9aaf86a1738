package mcptest

import (
	"context"
	"encoding/json"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ExactArguments proves that every tool of session runs the arguments a
// client shows: for each property of each tool's input schema, a call that
// also names the property in another case ("Query", "QUERY", "qUERY"), and
// a call that names it twice, must each be refused with an error that names
// the key, while nothing reaches upstream (sent counts the requests the
// upstream has received; it must not move).
//
// valid gives, for a tool, arguments that pass its own checks (a token that
// exists): the variant is added to them, so that a tool that took the
// variant for the property would act on it. A property valid does not give
// gets a value its schema allows.
func ExactArguments(t *testing.T, session *mcp.ClientSession, valid func(tool string) map[string]any, sent func() int) {
	t.Helper()
	list, err := session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(9, 9))
	calls := 0
	defer func() { t.Logf("%d tools, %d calls refused", len(list.Tools), calls) }()
	for _, tool := range list.Tools {
		schema := decodeSchema(t, tool.InputSchema)
		base := valid(tool.Name)
		for _, name := range slices.Sorted(maps.Keys(schema.Properties)) {
			value, ok := base[name]
			if !ok {
				if value, ok = valueFor(r, schema.Properties[name]); !ok {
					// A value the schema may not allow (a pattern not met
					// by chance) serves too: it must be refused for its
					// key before it is judged.
					value = map[string]any{"string": "abcd", "integer": 1, "number": 1, "boolean": true, "array": []any{}}[schema.Properties[name].Type]
				}
			}
			for _, variant := range caseVariants(name) {
				if schema.Properties[variant] != nil {
					continue
				}
				args := maps.Clone(base)
				if args == nil {
					args = map[string]any{}
				}
				args[variant] = value
				calls++
				refused(t, session, tool.Name, args, `unknown argument "`+variant+`"`, sent)
			}
			rest := maps.Clone(base)
			delete(rest, name)
			calls++
			refused(t, session, tool.Name, twice(t, rest, name, value), `argument "`+name+`" is given twice`, sent)
		}
	}
}

// refused calls tool with args, which must be refused with an error that
// holds want, nothing sent upstream.
func refused(t *testing.T, session *mcp.ClientSession, tool string, args any, want string, sent func() int) {
	t.Helper()
	before := sent()
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	raw, _ := json.Marshal(args)
	if len(raw) > 300 {
		raw = append(raw[:300:300], "…"...)
	}
	switch {
	case err != nil:
		t.Errorf("%s %s: protocol error %v, want a tool error", tool, raw, err)
	case !res.IsError:
		t.Errorf("%s %s: accepted, want %q", tool, raw, want)
	case !strings.Contains(Text(res), want):
		t.Errorf("%s %s: error %q, want one that says %q", tool, raw, Text(res), want)
	}
	if after := sent(); after != before {
		t.Errorf("%s %s: %d requests reached upstream, want none", tool, raw, after-before)
	}
}

// caseVariants are name in other cases: all upper, the first letter's case
// swapped, every letter's case swapped; name itself and repeats are left out.
func caseVariants(name string) []string {
	swap := func(c rune) rune {
		if unicode.IsUpper(c) {
			return unicode.ToLower(c)
		}
		return unicode.ToUpper(c)
	}
	first, size := utf8.DecodeRuneInString(name)
	var variants []string
	for _, v := range []string{strings.ToUpper(name), string(swap(first)) + name[size:], strings.Map(swap, name)} {
		if v != name && !slices.Contains(variants, v) {
			variants = append(variants, v)
		}
	}
	return variants
}

// twice is the JSON object of args with name given twice, value both times:
// the raw text a client could send, which no Go map holds.
func twice(t *testing.T, args map[string]any, name string, value any) json.RawMessage {
	t.Helper()
	obj, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := json.Marshal(name)
	val, err := json.Marshal(value)
	if err != nil {
		t.Fatal(err)
	}
	member := string(key) + ":" + string(val)
	body := strings.TrimSuffix(strings.TrimPrefix(string(obj), "{"), "}")
	if body != "" {
		body += ","
	}
	return json.RawMessage("{" + body + member + "," + member + "}")
}
