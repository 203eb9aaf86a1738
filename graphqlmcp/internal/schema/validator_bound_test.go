package schema

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestValidatorBounded: gqlparser compares every pair of a type's fields
// (and enum values, arguments, an interface's fields with an object's)
// while it loads a schema, so an endpoint that answers a type of 100,000
// fields would hold a call for minutes. Such a schema is refused for
// validation at once, saying why; the schema itself still serves.
func TestValidatorBounded(t *testing.T) {
	str := `{"kind":"SCALAR","name":"String"}`
	for _, c := range []struct{ name, types, want string }{
		{"fields", `{"kind":"OBJECT","name":"Query","interfaces":[],"fields":[` + members(`{"name":"f%d","args":[],"type":`+str+`}`, 100_000) + `]}`, `type Query has 100000 fields`},
		{"enum values", `{"kind":"OBJECT","name":"Query","interfaces":[],"fields":[{"name":"e","args":[],"type":{"kind":"ENUM","name":"E"}}]},{"kind":"ENUM","name":"E","enumValues":[` + members(`{"name":"V%d"}`, 100_000) + `]}`, `type E has 100000 enum values`},
		{"arguments", `{"kind":"OBJECT","name":"Query","interfaces":[],"fields":[{"name":"f","type":` + str + `,"args":[` + members(`{"name":"a%d","type":`+str+`}`, 100_000) + `]}]}`, `field Query.f has 100000 arguments`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := ParseResult([]byte(`{"__schema":{"queryType":{"name":"Query"},"directives":[],"types":[` + str + `,` + c.types + `]}}`))
			if err != nil {
				t.Fatal(err)
			}
			s, err := New(r)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = s.Validator()
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "too many for the validator to check in time") {
				t.Errorf("Validator: %v, want an error saying %s", err, c.want)
			}
			if took := time.Since(start); took > time.Minute { // a safety net against a runaway, not a speed target
				t.Errorf("refusing took %v", took)
			}
		})
	}
}

func members(format string, n int) string {
	items := make([]string, n)
	for i := range n {
		items[i] = fmt.Sprintf(format, i)
	}
	return strings.Join(items, ",")
}

// TestSDLValidatorBounded: a --schema file whose type would take the
// validator minutes to load is refused at once, naming the type, as an
// endpoint's is (TestValidatorBounded).
func TestSDLValidatorBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("type Query {\n")
	for i := range 20_000 {
		fmt.Fprintf(&b, "  f%d: String\n", i)
	}
	b.WriteString("}\n")
	_, err := FromSDL(b.String())
	if err == nil || !strings.Contains(err.Error(), "type Query has 20000 fields") || !strings.Contains(err.Error(), "too many for the validator to check in time") {
		t.Errorf("FromSDL: %v, want the type named as too large to check", err)
	}
}
