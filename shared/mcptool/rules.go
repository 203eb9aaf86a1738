package mcptool

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpforge/servers/shared/jsonx"
)

// Whole is the rule of a whole-number argument, stated once: Schema shows it
// to the client and Value applies it in the handler. JSON numbers arrive as
// float64 so that 1.5 is refused with this rule rather than a decoding error.
type Whole struct {
	Min float64
	// Max is the largest value allowed; 0 means no largest.
	Max float64
	// Default is the value of an omitted argument; 0 means none is stated.
	Default int
}

// Schema declares p an integer and sets its minimum, maximum and default:
// a client that checks arguments against the schema then refuses 1.5 as
// the handler would, instead of letting it through to be refused.
func (w Whole) Schema(p *jsonschema.Schema) {
	p.Type, p.Types = "integer", nil
	p.Minimum = &w.Min
	if w.Max != 0 {
		p.Maximum = &w.Max
	}
	if w.Default != 0 {
		p.Default = json.RawMessage(strconv.Itoa(w.Default))
	}
}

// Check returns v as an int, or an error naming the argument and the rule.
func (w Whole) Check(name string, v float64) (int, error) {
	// Past 2^53 a float64 is not the integer given, and past an int's range
	// int(v) is not defined: refused whatever the bounds (the decoder
	// refuses such a literal first, naming it).
	if v != math.Trunc(v) || v < w.Min || (w.Max != 0 && v > w.Max) || math.Abs(v) > maxExactInteger {
		if w.Max == 0 {
			return 0, fmt.Errorf("%s must be a whole number of at least %g (and at most %d); got %g", name, w.Min, maxExactInteger, v)
		}
		return 0, fmt.Errorf("%s must be a whole number from %g to %g; got %g", name, w.Min, w.Max, v)
	}
	return int(v), nil
}

// Value is Check for an optional argument: an omitted one is the default.
func (w Whole) Value(name string, v *float64) (int, error) {
	if v == nil {
		return w.Default, nil
	}
	return w.Check(name, *v)
}

// Enum is the rule of a string argument with a fixed set of values, the first
// being the default.
type Enum []string

// Schema sets p's allowed values and default.
func (e Enum) Schema(p *jsonschema.Schema) {
	p.Enum = make([]any, len(e))
	for i, v := range e {
		p.Enum[i] = v
	}
	p.Default, _ = jsonx.Marshal(e[0])
}

// Value returns v, the default when v is empty, or an error naming the
// argument and its values.
func (e Enum) Value(name, v string) (string, error) {
	if v == "" {
		return e[0], nil
	}
	for _, allowed := range e {
		if v == allowed {
			return v, nil
		}
	}
	quoted := make([]string, len(e))
	for i, allowed := range e {
		quoted[i] = strconv.Quote(allowed)
	}
	list := quoted[len(quoted)-1]
	if len(quoted) > 1 {
		list = strings.Join(quoted[:len(quoted)-1], ", ") + " or " + list
	}
	return "", fmt.Errorf("%s must be %s; got %s", name, list, Quote(v))
}
