package jsonx

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestMarshalEscapesNothingForHTML: what encoding/json escapes for HTML
// and JavaScript (<, >, &, U+2028, U+2029) is written as itself, in Go
// strings and in raw JSON passed through; an escaped backslash before
// "u2028" stays escaped; the result decodes to the value encoded.
func TestMarshalEscapesNothingForHTML(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   any
		want string
	}{
		{"string", map[string]string{"sdl": "a <b> & c"}, `{"sdl":"a <b> & c"}`},
		{"line separators", []string{"x\u2028y\u2029z"}, "[\"x\u2028y\u2029z\"]"},
		{"raw message", map[string]json.RawMessage{"data": json.RawMessage(`{"b":"<i>&\u2028"}`)}, "{\"data\":{\"b\":\"<i>&\u2028\"}}"},
		{"escaped backslash", []string{`\u2028 <`}, `["\\u2028 <"]`},
		{"escaped backslash then separator", []string{"\\\u2029"}, "[\"\\\\\u2029\"]"},
		{"quote and control", []string{"\"\n\t\u0001"}, `["\"\n\t\u0001"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Marshal(tc.in)
			if err != nil || string(got) != tc.want {
				t.Fatalf("Marshal = %s, %v; want %s", got, err, tc.want)
			}
			var back, orig any
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatalf("Marshal's output does not decode: %v", err)
			}
			plain, _ := json.Marshal(tc.in)
			_ = json.Unmarshal(plain, &orig)
			if a, b := mustMarshal(t, back), mustMarshal(t, orig); a != b {
				t.Errorf("decodes to %s, want %s", a, b)
			}
		})
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestUnescape: strings lose every escape they do not need; order,
// numbers and text stay.
func TestUnescape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"url":"https:\/\/x.test\/a","name":"Zo\u00eb","b":"\u003cb\u003e \u0026 \u2028"}`, "{\"url\":\"https://x.test/a\",\"name\":\"Zoë\",\"b\":\"<b> & \u2028\"}"},
		{`{"z":1.50,"a":[1e3,"\"q\"\n\\"]}`, `{"z":1.50,"a":[1e3,"\"q\"\n\\"]}`},
		{`{"k\u00e9y":"\ud83d\ude80","ctl":"\u0001"}`, "{\"kéy\":\"🚀\",\"ctl\":\"\\u0001\"}"},
		{`["\ud800 lone", "\ufffd kept"]`, "[\"\\ud800 lone\", \"\uFFFD kept\"]"},
		{`{"plain":"no escapes"}`, `{"plain":"no escapes"}`},
	} {
		if got := string(Unescape([]byte(tc.in))); got != tc.want {
			t.Errorf("Unescape(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// FuzzUnescape: for any valid JSON, Unescape's output is valid JSON that
// decodes to the same value, numbers' digits included.
func FuzzUnescape(f *testing.F) {
	for _, seed := range []string{`{"a":"\/\u003c\u00e9"}`, `["\ud800","\\u2028",1.0]`, `"\"\\\/"`, `{"\u0041":{"b":[null,true]}}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		got := Unescape(data)
		if !json.Valid(got) {
			t.Fatalf("Unescape(%q) = %q, not valid JSON", data, got)
		}
		if a, b := decodeNumbers(t, data), decodeNumbers(t, got); a != b {
			t.Fatalf("Unescape(%q) = %q: decodes to %s, want %s", data, got, b, a)
		}
	})
}

// decodeNumbers decodes data keeping numbers' digits, and encodes it again
// with encoding/json, so that two spellings of one document compare equal.
func decodeNumbers(t *testing.T, data []byte) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return mustMarshal(t, v)
}
