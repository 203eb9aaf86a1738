package mcptool

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

type args struct {
	Query   string            `json:"query"`
	Timeout *int              `json:"timeout,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Types   []string          `json:"types,omitempty"`
	Vars    map[string]any    `json:"variables,omitempty"`
	Flag    bool              `json:"flag,omitempty"`
	Embedded
}

// Embedded arguments are named by their own member, not the struct's name.
type Embedded struct {
	Inner
	Status *float64 `json:"status,omitempty"`
}

type Inner struct {
	ID string `json:"id,omitempty"`
}

// argsSchema is args' input schema, as Register derives it.
var argsSchema = Tool[args, struct{}]{}.InputSchema()

func TestDecodeStrict(t *testing.T) {
	tests := []struct {
		in       string
		argument string
		message  string
	}{
		{`{"query":"x","nope":1}`, "nope", `unknown argument "nope"`},
		{`{"timeout":"soon"}`, "timeout", `argument "timeout" must be an integer, not a string`},
		{`{"timeout":1.5}`, "timeout", `argument "timeout" must be an integer, not the number 1.5`},
		{`{"query":5}`, "query", `argument "query" must be a string, not the number`},
		{`{"headers":{"a":1}}`, "headers", `argument "headers" must be a JSON object of string values; it holds the number`},
		{`{"headers":"x"}`, "headers", `argument "headers" must be a JSON object of string values, not a string`},
		{`{"types":"Human"}`, "types", `argument "types" must be an array of strings, not a string`},
		{`{"flag":"yes"}`, "flag", `argument "flag" must be a boolean (true or false), not a string`},
		{`{"status":"200"}`, "status", `argument "status" must be a number, not a string`},
		{`{"id":true}`, "id", `argument "id" must be a string, not a bool`},
		{`{"Query":"x"}`, "Query", `unknown argument "Query" (names are matched exactly, case included: did you mean "query"?)`},
		{`{"query":"x","QUERY":"y"}`, "QUERY", `unknown argument "QUERY"`},
		{`{"ID":"x"}`, "ID", `unknown argument "ID" (names are matched exactly, case included: did you mean "id"?)`},
		{`{"query":"x","query":"y"}`, "query", `argument "query" is given twice; give each argument once`},
		{`{"qu\u0065ry":"x","query":"y"}`, "query", `argument "query" is given twice`},
		{`{"status":1,"status":2}`, "status", `argument "status" is given twice`},
		{`{"headers":{"A":"1","A":"2"}}`, "headers", `argument "headers" holds the member "A" twice; give each member once`},
		{`{"variables":{"v":{"a":1,"a":2}}}`, "variables", `argument "variables" holds the member "a" twice`},
		{`{"variables":{"v":[{"a":1,"a":2}]}}`, "variables", `argument "variables" holds the member "a" twice`},
		{`{"` + strings.Repeat("k", 5000) + `":1}`, strings.Repeat("k", 5000), `unknown argument "` + strings.Repeat("k", 40) + `"… (5000 characters)`},
		{`{"timeout":9223372036854775808}`, "timeout", `argument "timeout" is out of range: 9223372036854775808; it must be an integer from -9007199254740992 to 9007199254740992`},
		{`{"timeout":-1e20}`, "timeout", `argument "timeout" is out of range: -1e20; it must be an integer from`},
		{`{"timeout":9007199254740993}`, "timeout", `argument "timeout" is out of range: 9007199254740993;`},
		{`{"timeout":1e400}`, "timeout", `argument "timeout" is out of range: 1e400;`},
		{`{"status":1e400}`, "status", `argument "status" is out of range: 1e400; it must be a number within ±1.8e308`},
		{`{"status":-` + strings.Repeat("9", 1_100_000) + `}`, "status", `argument "status" is out of range: -9999999999999999999… (1100001 characters); it must be a number`},
		{`{"query":` + strings.Repeat("9", 1_100_000) + `}`, "query", `argument "query" must be a string, not the number`},
		{`[1]`, "", "arguments must be a JSON object"},
		{`{"query":"x"} {}`, "", "arguments must be a single JSON object"},
	}
	for _, tt := range tests {
		var v args
		err := decodeStrict([]byte(tt.in), argsSchema, &v)
		var argErr *argumentError
		if !errors.As(err, &argErr) {
			t.Errorf("decodeStrict(%s) = %v, want an argumentError", tt.in, err)
			continue
		}
		if argErr.Argument != tt.argument || len(argErr.Message) < len(tt.message) || argErr.Message[:len(tt.message)] != tt.message {
			t.Errorf("decodeStrict(%s) = {%q, %q}, want {%q, %q…}", tt.in, argErr.Argument, argErr.Message, tt.argument, tt.message)
		}
		if len(argErr.Message) > 300 {
			t.Errorf("decodeStrict(%.100s…): a %d-byte error quotes too much of the input", tt.in, len(argErr.Message))
		}
	}
}

func TestDecodeStrictAccepts(t *testing.T) {
	for _, in := range []string{``, `null`, `{}`, ` {"query":"q","timeout":null,"variables":{"n":12345678901234567890}} `} {
		var v args
		if err := decodeStrict([]byte(in), argsSchema, &v); err != nil {
			t.Errorf("decodeStrict(%q): %v", in, err)
		}
	}
	var v args
	if err := decodeStrict([]byte(`{"variables":{"n":12345678901234567890}}`), argsSchema, &v); err != nil {
		t.Fatal(err)
	}
	if n, ok := v.Vars["n"].(json.Number); !ok || n.String() != "12345678901234567890" {
		t.Errorf("a large variable lost precision: %#v", v.Vars["n"])
	}
}

// TestDecodeStrictKeepsMapNames: map arguments (headers, variables) keep
// their members' names as given, case included; only a name given twice is
// refused there.
func TestDecodeStrictKeepsMapNames(t *testing.T) {
	var v args
	if err := decodeStrict([]byte(`{"headers":{"X-A":"1","x-a":"2"},"variables":{"N":1,"n":2}}`), argsSchema, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Headers) != 2 || len(v.Vars) != 2 {
		t.Errorf("map members were merged: %v %v", v.Headers, v.Vars)
	}
}

// TestExactMembersAsEncodingJSONReadsNames: names are compared as
// encoding/json decodes them: escapes resolved, and invalid UTF-8 as U+FFFD,
// so that two spellings encoding/json would merge are one name given twice.
func TestExactMembersAsEncodingJSONReadsNames(t *testing.T) {
	for _, in := range []string{
		`{"variables":{"\u00e9":1,"é":2}}`,
		"{\"variables\":{\"\xff\":1,\"\xfe\":2}}",
		`{"headers":{"a\/b":"1","a/b":"2"}}`,
	} {
		var v args
		if err := decodeStrict([]byte(in), argsSchema, &v); err == nil || !strings.Contains(err.Error(), "twice") {
			t.Errorf("decodeStrict(%q) = %v, want a name given twice", in, err)
		}
	}
}

// FuzzExactMembers: on any JSON text, exactMembers finds a name given twice
// exactly when encoding/json's own reading of the names does (reference),
// and an unknown argument exactly when a top-level name is not a property.
func FuzzExactMembers(f *testing.F) {
	for _, seed := range []string{`{"query":"x","query":"y"}`, `{"variables":{"a":[{"b":1,"b":2}]}}`, `{"Query":1}`, `{"q\u0075ery":1,"query":2}`, "{\"headers\":{\"\xff\":\"1\"}}", `{}`, `[1]`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			exactMembers(data, argsSchema) // must not panic
			return
		}
		got := exactMembers(data, argsSchema)
		want := referenceExact(t, data)
		if (got == nil) != (want == "") || got != nil && !strings.Contains(got.Error(), want) {
			t.Fatalf("exactMembers(%q) = %v, want %q", data, got, want)
		}
	})
}

// referenceExact is exactMembers written with encoding/json's Token API:
// "" when every name is given once and every top-level name is a property
// (or data is no object), else the start of the refusal.
func referenceExact(t *testing.T, data []byte) string {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	var walk func(top bool) string
	walk = func(top bool) string {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		switch tok {
		case json.Delim('['):
			for dec.More() {
				if r := walk(false); r != "" {
					return r
				}
			}
			dec.Token()
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				key, _ := dec.Token()
				name := key.(string)
				if seen[name] {
					return "twice"
				}
				seen[name] = true
				if top && argsSchema.Properties[name] == nil {
					return "unknown argument"
				}
				if r := walk(false); r != "" {
					return r
				}
			}
			dec.Token()
		}
		return ""
	}
	return walk(bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")))
}

// TestRepeatedKey: the check a transport can run on a whole JSON-RPC
// message, where a repeated "name" or "arguments" would run the last; it
// says where the key repeats, shortly however deep.
func TestRepeatedKey(t *testing.T) {
	deep := strings.Repeat(`{"k":`, 20) + `{"x":1,"x":2}` + strings.Repeat("}", 20)
	long := strings.Repeat("n", 100)
	for in, want := range map[string]Repeated{
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","name":"b"}}`: {"name", "params"},
		`{"id":1,"method":"ping","id":2}`:                                                 {"id", ""},
		`{"params":{"name":"a","arguments":{"q":1},"arguments":{"q":2}}}`:                 {"arguments", "params"},
		`{"params":{"arguments":{"q":1,"q":2}}}`:                                          {"q", "params.arguments"},
		`{"a":[{"b":1},{"b":2}],"c":{"d":{"e\u0066":1,"ef":2}}}`:                          {"ef", "c.d"},
		`{"a":[{"b":1},[0,{"b":2,"b":3}]]}`:                                               {"b", "a[1][1]"},
		`{"` + long + `":{"z":1,"z":1}}`:                                                  {"z", strings.Repeat("n", 40) + "…"},
		deep:                                                                              {"x", "k.k.k.….k.k.k"},
	} {
		got, found, err := RepeatedKey([]byte(in))
		if !found || got != want || err != nil {
			t.Errorf("RepeatedKey(%.80s) = %+v, %v, %v; want %+v", in, got, found, err, want)
		}
	}
	if _, found, err := RepeatedKey([]byte(`{"a":[{"b":1},{"b":2}],"c":{"b":3}}`)); found || err != nil {
		t.Errorf("no key is repeated: %v %v", found, err)
	}
	if _, _, err := RepeatedKey([]byte(`{"a":`)); err == nil {
		t.Error("not JSON: no error")
	}
	// Nested a million deep: an error, not a stack past Go's limit.
	if _, found, err := RepeatedKey([]byte(strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000))); found || err == nil {
		t.Errorf("nested a million deep: %v, %v; want an error", found, err)
	}
}
