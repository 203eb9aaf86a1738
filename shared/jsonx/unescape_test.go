package jsonx

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// unescapeByDecoding is Unescape as it was first written: each escaped
// string decoded by encoding/json and encoded again by Marshal. It is the
// reference AppendUnescape's one pass is held to, byte for byte.
func unescapeByDecoding(data []byte) []byte {
	if bytes.IndexByte(data, '\\') < 0 {
		return data
	}
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); {
		if data[i] != '"' {
			out = append(out, data[i])
			i++
			continue
		}
		end, escaped := stringEnd(data, i)
		literal := data[i:end]
		i = end
		if !escaped {
			out = append(out, literal...)
			continue
		}
		var s string
		if json.Unmarshal(literal, &s) != nil {
			out = append(out, literal...)
			continue
		}
		if strings.ContainsRune(s, utf8.RuneError) && !bytes.Contains(literal, []byte("\uFFFD")) && !bytes.Contains(bytes.ToLower(literal), []byte(`\ufffd`)) {
			out = append(out, literal...)
			continue
		}
		respelled, err := Marshal(s)
		if err != nil {
			respelled = literal
		}
		out = append(out, respelled...)
	}
	return out
}

// TestAppendUnescape: each case is appended after what dst holds, as
// unescapeByDecoding writes it: escapes decoded as encoding/json decodes
// them, written as Marshal writes them, and strings whose escapes do not
// decode to the same text (or are not JSON) left as they are.
func TestAppendUnescape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"url":"https:\/\/x.test\/a"}`, `{"url":"https://x.test/a"}`},
		{`["Zo\u00EB","\u003cb\u003e \u0026"]`, `["Zoë","<b> &"]`},
		{`["\u2028\u2029"]`, "[\"\u2028\u2029\"]"},
		{`"\ud83d\ude80 \uD83D\uDE80"`, `"🚀 🚀"`},
		{`"\u0000\u001F\u007f\u0008\u000c\u0022\u005c\u002f"`, "\"\\u0000\\u001f\u007f\\b\\f\\\"\\\\/\""},
		{`"\b\f\n\r\t\"\\\/"`, `"\b\f\n\r\t\"\\/"`},
		// Lone surrogates, and a byte that is not UTF-8, would decode to
		// U+FFFD: the string is left as it is...
		{`["\ud800 lone","\udc00\u0041","\ud800\ud800"]`, `["\ud800 lone","\udc00\u0041","\ud800\ud800"]`},
		{"\"\xff\\/\"", "\"\xff\\/\""},
		// ...unless it says U+FFFD itself, in any spelling.
		{`["\ud800 \ufffd","\uFFFD\/","\ud800 ` + "\uFFFD" + `"]`, "[\"\uFFFD \uFFFD\",\"\uFFFD/\",\"\uFFFD \uFFFD\"]"},
		{"\"\xff \\uFfFd\"", "\"\uFFFD \uFFFD\""},
		// Not JSON strings: left as they are.
		{`"\x41"`, `"\x41"`},
		{`"\u12"`, `"\u12"`},
		{"\"a\x01\\/\"", "\"a\x01\\/\""},
		{`"ends in \"`, `"ends in \"`},
		{`{"a":"\/",  "b" : 1.50e3, "c":"plain"}`, `{"a":"/",  "b" : 1.50e3, "c":"plain"}`},
	} {
		if want := string(unescapeByDecoding([]byte(tc.in))); want != tc.want {
			t.Fatalf("the reference writes %s as %s, not %s: the case is wrong", tc.in, want, tc.want)
		}
		if got := string(AppendUnescape([]byte("dst:"), []byte(tc.in))); got != "dst:"+tc.want {
			t.Errorf("AppendUnescape(dst:, %s) = %s, want dst:%s", tc.in, got, tc.want)
		}
		if got := string(Unescape([]byte(tc.in))); got != tc.want {
			t.Errorf("Unescape(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestAppendUnescapeAllocatesNothing: into a buffer with room, respelling
// a request as the hosted service's PHP writes it allocates nothing.
func TestAppendUnescapeAllocatesNothing(t *testing.T) {
	src := []byte(`{"url":"https:\/\/x.test\/hook\/a?b=c","name":"Zo\u00eb \ud83d\ude80","headers":{"user-agent":["curl\/8"]},"n":1.5}`)
	dst := make([]byte, 0, 2*len(src))
	if allocs := testing.AllocsPerRun(100, func() { dst = AppendUnescape(dst[:0], src) }); allocs != 0 {
		t.Errorf("AppendUnescape allocated %.0f times per run, want 0", allocs)
	}
	if !json.Valid(dst) || bytes.Contains(dst, []byte(`\`)) {
		t.Errorf("AppendUnescape wrote %s", dst)
	}
}

// FuzzAppendUnescape: for any bytes, JSON or not, AppendUnescape appends
// exactly what unescapeByDecoding (encoding/json's decoding and Marshal's
// encoding) writes, and leaves dst's own bytes alone.
func FuzzAppendUnescape(f *testing.F) {
	for _, seed := range []string{
		`{"a":"\/\u003c\u00e9"}`, `["\ud800","\\u2028",1.0]`, `"\"\\\/"`, `{"\u0041":{"b":[null,true]}}`,
		`"\ud83d\ude80\ud800\udc00\udbff\udfff"`, "\"\xff\\/\\ufffd\"", `"\uD800\uFFFD"`, `"\u0008\u000C\u001f"`, `"\`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want := unescapeByDecoding(data)
		got := AppendUnescape([]byte("dst"), data)
		if string(got) != "dst"+string(want) {
			t.Fatalf("AppendUnescape(dst, %q) = %q, want dst%q", data, got, want)
		}
	})
}

// compactByEncodingJSON is json.Compact's answer, or nil for what is not
// JSON.
func compactByEncodingJSON(data []byte) []byte {
	var out bytes.Buffer
	if json.Compact(&out, data) != nil {
		return nil
	}
	return out.Bytes()
}

// FuzzAppendCompact: for any valid JSON, AppendCompact appends what
// json.Compact writes, and AppendCompactUnescape what json.Compact writes of
// unescapeByDecoding's respelling, after dst's own bytes.
func FuzzAppendCompact(f *testing.F) {
	for _, seed := range []string{
		`{ "a" : "\/ \" \\" , "b" :[ 1 , 2.5e3 , null ] }`, "{\n\t\"x\":\r\n\"\\\\\\\"\"}", `"\\"`, `[ "\ud800" , "a\"b" ]`,
		`{"a":"` + strings.Repeat(`x\"`, 50) + `"}`, ` "\\\\\\\\" `, `[]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		if got, want := AppendCompact([]byte("dst"), data), compactByEncodingJSON(data); string(got) != "dst"+string(want) {
			t.Fatalf("AppendCompact(dst, %q) = %q, want dst%q", data, got, want)
		}
		if got, want := AppendCompactUnescape([]byte("dst"), data), compactByEncodingJSON(unescapeByDecoding(data)); string(got) != "dst"+string(want) {
			t.Fatalf("AppendCompactUnescape(dst, %q) = %q, want dst%q", data, got, want)
		}
	})
}

// TestStringEnd: the end of a string, found a block at a time, is where
// reading it byte by byte ends it, escapes and all.
func TestStringEnd(t *testing.T) {
	byteByByte := func(data []byte, start int) (int, bool) {
		escaped := false
		for i := start + 1; i < len(data); i++ {
			switch data[i] {
			case '\\':
				escaped = true
				i++
			case '"':
				return i + 1, escaped
			}
		}
		return len(data), escaped
	}
	for _, s := range []string{`"a"x`, `"a\"b"x`, `"a\\"b"`, `"a\\\"b"c`, `"\`, `"ab\"`, `"\\\\"`, `"`, `""`, `"` + strings.Repeat(`\\`, 40) + `\"x"y`} {
		end, escaped := stringEnd([]byte(s), 0)
		wantEnd, wantEscaped := byteByByte([]byte(s), 0)
		if end != wantEnd || escaped != wantEscaped {
			t.Errorf("stringEnd(%s) = %d, %v, want %d, %v", s, end, escaped, wantEnd, wantEscaped)
		}
	}
}
