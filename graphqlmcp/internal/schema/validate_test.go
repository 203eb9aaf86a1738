package schema

import (
	"errors"
	"strings"
	"testing"
)

// introspection wraps one type definition (JSON) beside a valid Query type.
func introspection(typeJSON string) string {
	return `{"__schema":{"queryType":{"name":"Query"},"types":[` +
		`{"kind":"OBJECT","name":"Query","fields":[{"name":"a","args":[],"type":{"kind":"SCALAR","name":"Int"}}]},` +
		typeJSON + `],"directives":[]}}`
}

// TestMalformedIntrospectionRefused: every name in an answer must be a
// GraphQL name and every wrapper must wrap something; a breach is refused
// with the entry named, never handed to the SDL printer (which panicked on a
// type reference named "").
func TestMalformedIntrospectionRefused(t *testing.T) {
	cases := []struct {
		name, typeJSON, want string
	}{
		{"empty type reference name", `{"kind":"OBJECT","name":"T","fields":[{"name":"f","args":[],"type":{"kind":"SCALAR","name":""}}]}`,
			`type T: field f type has the name ""`},
		{"null type reference name", `{"kind":"OBJECT","name":"T","fields":[{"name":"f","args":[],"type":{"kind":"SCALAR","name":null}}]}`,
			`type T: field f type has the name ""`},
		{"type name starting with a digit", `{"kind":"SCALAR","name":"9Lives"}`, `types[1] has the name "9Lives"`},
		{"field name with a space", `{"kind":"OBJECT","name":"T","fields":[{"name":"a b","args":[],"type":{"kind":"SCALAR","name":"Int"}}]}`,
			`type T: field has the name "a b"`},
		{"list of nothing", `{"kind":"OBJECT","name":"T","fields":[{"name":"f","args":[],"type":{"kind":"LIST","name":null,"ofType":null}}]}`,
			`field f: its type is LIST of nothing`},
		{"non-null of non-null", `{"kind":"OBJECT","name":"T","fields":[{"name":"f","args":[],"type":{"kind":"NON_NULL","ofType":{"kind":"NON_NULL","ofType":{"kind":"SCALAR","name":"Int"}}}}]}`,
			`NON_NULL of NON_NULL`},
		{"argument with an empty name", `{"kind":"OBJECT","name":"T","fields":[{"name":"f","args":[{"name":"","type":{"kind":"SCALAR","name":"Int"}}],"type":{"kind":"SCALAR","name":"Int"}}]}`,
			`field f argument has the name ""`},
		{"enum value with a dash", `{"kind":"ENUM","name":"E","enumValues":[{"name":"A-B"}]}`, `enum value has the name "A-B"`},
		{"interface named with punctuation", `{"kind":"OBJECT","name":"T","interfaces":[{"kind":"INTERFACE","name":"N{}"}],"fields":[]}`,
			`interface type has the name "N{}"`},
		{"input field of empty name type", `{"kind":"INPUT_OBJECT","name":"I","inputFields":[{"name":"x","type":{"kind":"INPUT_OBJECT","name":""}}]}`,
			`input field x type has the name ""`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseResult([]byte(introspection(c.typeJSON)))
			var malformed *MalformedError
			if !errors.As(err, &malformed) {
				t.Fatalf("ParseResult = %v, want a *MalformedError", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not name the bad entry (%q)", err, c.want)
			}
		})
	}
	t.Run("bad root and directive names", func(t *testing.T) {
		for _, doc := range []string{
			`{"__schema":{"queryType":{"name":""},"types":[{"kind":"SCALAR","name":"X"}],"directives":[]}}`,
			`{"__schema":{"queryType":{"name":"Query"},"types":[{"kind":"SCALAR","name":"X"}],"directives":[{"name":"","locations":[]}]}}`,
			`{"__schema":{"queryType":{"name":"Query"},"types":[{"kind":"SCALAR","name":"X"}],"directives":[{"name":"d","locations":["FIELD DEF"]}]}}`,
		} {
			if _, err := ParseResult([]byte(doc)); err == nil {
				t.Errorf("ParseResult(%s) accepted it", doc)
			}
		}
	})
}

// FuzzIntrospection: no answer, however malformed, makes parsing,
// converting or printing panic.
func FuzzIntrospection(f *testing.F) {
	f.Add([]byte(introspection(`{"kind":"OBJECT","name":"T","fields":[{"name":"f","args":[],"type":{"kind":"SCALAR","name":""}}]}`)))
	f.Add([]byte(introspection(`{"kind":"ENUM","name":"E","enumValues":[{"name":"A","isDeprecated":true,"deprecationReason":"x"}]}`)))
	f.Add([]byte(introspection(`{"kind":"INPUT_OBJECT","name":"I","inputFields":[{"name":"x","type":{"kind":"NON_NULL","ofType":{"kind":"LIST","ofType":{"kind":"SCALAR","name":"Int"}}},"defaultValue":"[1, 2]"}]}`)))
	f.Add([]byte(introspection(`{"kind":"UNION","name":"U","possibleTypes":[{"kind":"OBJECT","name":"Query"}]}`)))
	f.Add([]byte(`{"data":{"__schema":{"queryType":{"name":"Q"},"types":[{"kind":"SCALAR","name":"Q","description":"\u0000\r"}],"directives":[{"name":"d","locations":["FIELD"],"args":[{"name":"a","type":{"kind":"SCALAR","name":"Int"},"defaultValue":"{a: $x}"}]}]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseResult(data)
		if err != nil {
			return
		}
		s, err := New(r)
		if err != nil {
			return
		}
		for _, v := range []*View{s.View(false), s.View(true)} {
			v.Overview()
			v.Search("a", MaxViewBytes)
			v.Types([]string{"Query", "T"}, MaxViewBytes)
		}
	})
}
