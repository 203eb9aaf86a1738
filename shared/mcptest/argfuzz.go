package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ArgumentFuzz calls every tool of session calls times with arguments drawn,
// from rand seeded with seed, from what the tool's input schema allows (each
// integer in its bounds, each string within maxLength characters, many of
// them four-byte ones, and matching its pattern, each enum value, objects up
// to maxProperties), as a client that trusts the schema would. fixed gives,
// for a tool, the values of some arguments by name (a token that exists, an
// endpoint that answers), so that calls get past lookups to the rules.
//
// It fails when a call is a protocol error, or when a tool refuses a value
// for a rule its schema states differently: a whole-number rule for an
// integer the schema allows, a length in bytes for a string within
// maxLength. Every result is also checked against the tool's output schema
// and for its text (ConnectClient does both).
func ArgumentFuzz(t *testing.T, session *mcp.ClientSession, seed uint64, calls int, fixed func(tool string) map[string]any) {
	t.Helper()
	list, err := session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, seed))
	for _, tool := range list.Tools {
		schema := decodeSchema(t, tool.InputSchema)
		for i := range calls {
			args := map[string]any{}
			given := fixed(tool.Name)
			for _, name := range slices.Sorted(maps.Keys(schema.Properties)) {
				prop := schema.Properties[name]
				if v, ok := given[name]; ok {
					args[name] = v
					continue
				}
				if !slices.Contains(schema.Required, name) && r.IntN(2) == 0 {
					continue
				}
				if v, ok := valueFor(r, prop); ok {
					args[name] = v
				}
			}
			res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: tool.Name, Arguments: args})
			if err != nil {
				t.Errorf("%s call %d: protocol error %v\narguments: %s", tool.Name, i, err, truncated(args))
				continue
			}
			if res.IsError {
				if rule := contradiction(Text(res)); rule != "" {
					t.Errorf("%s call %d refused a value its schema allows, for a rule the schema states differently (%s):\n%s\narguments: %s", tool.Name, i, rule, Text(res), truncated(args))
				}
			}
		}
	}
}

// contradictions are refusals that only a value outside the schema's own
// statement of a rule should get.
var contradictions = map[string]*regexp.Regexp{
	"a whole number, for an integer":    regexp.MustCompile(`(?i)must be a whole number`),
	"a length in bytes, not characters": regexp.MustCompile(`(?i)\bis \d+ bytes; (at most|.* at most)`),
	"a type":                            regexp.MustCompile(`(?i)cannot unmarshal|wrong type|must be (a|an) (string|integer|number|boolean|object|array)\b`),
}

func contradiction(text string) string {
	for rule, re := range contradictions {
		if re.MatchString(text) {
			return rule
		}
	}
	return ""
}

func decodeSchema(t *testing.T, raw any) *jsonschema.Schema {
	t.Helper()
	data, err := json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// valueFor draws a value the schema p allows, or reports that it cannot.
func valueFor(r *rand.Rand, p *jsonschema.Schema) (any, bool) {
	if len(p.Enum) > 0 {
		return p.Enum[r.IntN(len(p.Enum))], true
	}
	switch p.Type {
	case "integer":
		lo, hi := 0, 1000
		if p.Minimum != nil {
			lo = int(*p.Minimum)
		}
		if p.Maximum != nil {
			hi = int(*p.Maximum)
		}
		switch r.IntN(4) {
		case 0:
			return lo, true
		case 1:
			return hi, true
		}
		return lo + r.IntN(hi-lo+1), true
	case "number":
		return r.Float64() * 100, true
	case "boolean":
		return r.IntN(2) == 0, true
	case "string":
		return stringFor(r, p)
	case "array":
		n := r.IntN(4)
		items := make([]any, 0, n)
		for range n {
			if p.Items == nil {
				break
			}
			if v, ok := valueFor(r, p.Items); ok {
				items = append(items, v)
			}
		}
		return items, true
	case "object":
		max := 5
		if p.MaxProperties != nil {
			max = min(max, *p.MaxProperties)
		}
		obj := map[string]any{}
		if p.AdditionalProperties == nil || p.AdditionalProperties.Type == "" {
			return obj, true
		}
		for range r.IntN(max + 1) {
			if v, ok := valueFor(r, p.AdditionalProperties); ok {
				obj[word(r, 1+r.IntN(12))] = v
			}
		}
		return obj, true
	}
	return nil, false
}

// alphabet mixes what breaks byte counts and parsers: ASCII, two-, three-
// and four-byte runes, and the characters paths and queries give meaning to.
var alphabet = []rune("abcXYZ019 -_/.:&=%+é€🚀😀")

func word(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteRune([]rune("abcdefghijklmnopqrstuvwxyz-")[r.IntN(27)])
	}
	return b.String()
}

func stringFor(r *rand.Rand, p *jsonschema.Schema) (any, bool) {
	if p.Format == "uuid" {
		return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Uint64()&(1<<48-1)), true
	}
	if p.Format == "uri" {
		return "http://127.0.0.1:9/", true
	}
	max := 200
	if p.MaxLength != nil {
		max = *p.MaxLength
	}
	var pattern *regexp.Regexp
	if p.Pattern != "" {
		pattern = regexp.MustCompile(p.Pattern)
	}
	for range 20 {
		var s string
		if r.IntN(5) == 0 && max <= 10_000 {
			// As long as the schema allows, in four-byte runes: four times
			// as many bytes as characters.
			s = strings.Repeat("🚀", max)
		} else {
			n := r.IntN(min(max, 200) + 1)
			runes := make([]rune, n)
			for i := range runes {
				runes[i] = alphabet[r.IntN(len(alphabet))]
			}
			s = string(runes)
		}
		if p.MinLength != nil && utf8.RuneCountInString(s) < *p.MinLength {
			continue
		}
		if pattern == nil || pattern.MatchString(s) {
			return s, true
		}
	}
	return nil, false
}

func truncated(args map[string]any) string {
	data, _ := json.Marshal(args)
	if len(data) > 500 {
		return string(data[:500]) + "…"
	}
	return string(data)
}
