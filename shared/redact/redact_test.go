package redact

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

func TestRedactor(t *testing.T) {
	r := New("s3cr3t-key", `quote"d-secret`, "short", "")
	tests := []struct{ in, want string }{
		{"key=s3cr3t-key;", "key=[REDACTED];"},
		{`{"echo":"quote\"d-secret"}`, `{"echo":"[REDACTED]"}`},
		{"short stays", "short stays"},
		{"nothing here", "nothing here"},
	}
	for _, tt := range tests {
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := (Redactor{}).String("s3cr3t-key"); got != "s3cr3t-key" {
		t.Errorf("zero Redactor changed the text: %q", got)
	}
}

// TestRedactorEncodings: a secret echoed in any of the encodings an upstream
// uses is caught, and a JSON document stays valid JSON that decodes without
// the secret (the client decodes structuredContent before anyone reads it).
func TestRedactorEncodings(t *testing.T) {
	const secret = "ghp_Abc/123+xyz=="
	r := New(secret)
	escapedSlash := strings.ReplaceAll(secret, "/", `\/`) // PHP's json_encode default
	var unicode strings.Builder
	for _, c := range secret {
		unicode.WriteString(`\u00` + strings.ToLower(string("0123456789ABCDEF"[c>>4])+string("0123456789ABCDEF"[c&15])))
	}
	tests := []struct{ name, in string }{
		{"plain in JSON", `{"echo":"` + secret + `"}`},
		{"escaped slash", `{"echo":"Bearer ` + escapedSlash + `"}`},
		{"\\u escapes", `{"echo":"` + unicode.String() + `"}`},
		{"as an object key", `{"` + escapedSlash + `":1}`},
		{"query-escaped in text", "token=" + url.QueryEscape(secret)},
		{"path-escaped in JSON", `{"u":"/a/` + url.PathEscape(secret) + `"}`},
		{"base64 whole string", `{"b":"` + base64.StdEncoding.EncodeToString([]byte(secret)) + `"}`},
		{"base64url unpadded", base64.RawURLEncoding.EncodeToString([]byte(secret))},
		{"not JSON", `<p>` + secret + `</p>`},
		{"nested deep", `{"a":[{"b":{"c":["x","` + escapedSlash + `"]}}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !r.Contains(tt.in) {
				t.Errorf("Contains(%s) = false", tt.in)
			}
			got := r.String(tt.in)
			if strings.Contains(got, secret) || strings.Contains(got, escapedSlash) || !strings.Contains(got, Redacted) {
				t.Errorf("String(%s) = %s", tt.in, got)
			}
			if json.Valid([]byte(tt.in)) {
				var decoded any
				if err := json.Unmarshal([]byte(got), &decoded); err != nil {
					t.Fatalf("the result is no longer JSON: %v: %s", err, got)
				}
				for _, value := range collectStrings(decoded) {
					if strings.Contains(value, secret) {
						t.Errorf("the decoded value %q holds the secret", value)
					}
				}
			}
		})
	}
}

// TestRedactorKeepsCleanJSON: a document without secrets comes back
// byte-for-byte, formatting and number spelling included; a number that
// holds a secret becomes a string so the document stays valid.
func TestRedactorKeepsCleanJSON(t *testing.T) {
	if New("ghp_Abc/123+xyz==").Contains(`{"a":"ghp_Abc/123"}`) || New().Contains("anything") {
		t.Error("Contains found a secret in text without one")
	}
	r := New("123456789")
	clean := "{\n  \"n\": 1.50e3, \"s\": \"caf\\u00e9 \\/ ok\",\n  \"l\": [true, null]\n}"
	if got := r.String(clean); got != clean {
		t.Errorf("a clean document changed:\n%s", got)
	}
	got := r.String(`{"id":1234567890,"x":"a"}`)
	if got != `{"id":"[REDACTED]","x":"a"}` {
		t.Errorf("number: %s", got)
	}
}

// FuzzRedact: for any secret and any input, the output holds no plain,
// JSON-escaped or base64 form of the secret; valid JSON stays valid and its
// decoded strings hold no secret.
func FuzzRedact(f *testing.F) {
	f.Add("s3cr3t-key", `{"a":"s3cr3t-key"}`)
	f.Add("abc/def/ghi", `{"a":"abc\/def\/ghi","b":[1,2,{"c":"\u0061bc/def/ghi"}]}`)
	f.Add("123456", `[123456, "x123456y", 1.123456e9]`)
	f.Add(`q"uote\me`, `"q\"uote\\me"`)
	f.Fuzz(func(t *testing.T, secret, in string) {
		if len(secret) < minSecretLen || strings.Contains(Redacted, secret) || strings.Contains(secret, Redacted) {
			return
		}
		r := New(secret)
		got := r.String(in)
		if json.Valid([]byte(in)) && string(r.ValidJSON([]byte(in))) != got {
			t.Fatalf("ValidJSON(%q) = %q, Bytes %q", in, r.ValidJSON([]byte(in)), got)
		}
		if !json.Valid([]byte(in)) {
			// Replacing can spell a secret anew from the marker and the
			// text around it only when the secret shares the marker's
			// letters.
			if strings.Contains(asciiLower(got), asciiLower(secret)) && !overlapsMarker(secret) {
				t.Fatalf("secret %q survives in %q (from %q)", secret, got, in)
			}
			return
		}
		// In JSON, what counts is what a client decodes: the escape
		// \u0000 followed by "00" spells 000000 in the raw text, not in
		// the value.
		if !json.Valid([]byte(got)) {
			t.Fatalf("valid JSON %q became invalid: %q", in, got)
		}
		dec := json.NewDecoder(strings.NewReader(got))
		dec.UseNumber()
		var decoded any
		if dec.Decode(&decoded) == nil {
			for _, value := range collectStrings(decoded) {
				if strings.Contains(asciiLower(value), asciiLower(secret)) && !overlapsMarker(secret) {
					t.Fatalf("decoded value %q of %q holds %q", value, got, secret)
				}
			}
		}
	})
}

// overlapsMarker reports a secret that shares characters with the marker's
// edges, so that text around a replacement may spell it anew.
func overlapsMarker(secret string) bool {
	return strings.ContainsAny(secret, "[]REDACTredact")
}

// collectStrings lists every string, key and number of a decoded document.
func collectStrings(v any) []string {
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case json.Number:
			out = append(out, v.String())
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				out = append(out, k)
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

func asciiLower(s string) string { return string(lowerASCII([]byte(s))) }

// TestRedactorAnyCase: a secret echoed in another ASCII case is the secret
// (Go rewrites header names; a service may print a UUID key in capitals),
// in plain text, in JSON and URL-encoded; a base64 form is matched as
// written, since its case is its value.
func TestRedactorAnyCase(t *testing.T) {
	const key = "0f8fad5b-d9cb-469f-a165-70867728950e"
	r := New(key)
	upper := strings.ToUpper(key)
	mixed := "0F8fad5B-D9cb-469F-a165-70867728950E"
	for _, in := range []string{
		"X-Echo-" + upper + ": 1",
		`{"h":"` + mixed + `"}`,
		"a=" + url.QueryEscape(upper),
		`{"` + upper + `":["` + key + `"]}`,
	} {
		got := r.String(in)
		if strings.Contains(strings.ToLower(got), key) {
			t.Errorf("String(%q) = %q: the key survives in another case", in, got)
		}
		if json.Valid([]byte(in)) && !json.Valid([]byte(got)) {
			t.Errorf("String(%q) = %q: no longer JSON", in, got)
		}
	}
	encoded := base64.StdEncoding.EncodeToString([]byte(key))
	if got := r.String(encoded); got != Redacted {
		t.Errorf("base64 form: %q", got)
	}
	other := strings.ToUpper(encoded) // another value, not the key's encoding
	if got := r.String(other); got != other {
		t.Errorf("base64 of another case is another value, but was changed: %q", got)
	}
	if got := r.String("prefix-" + upper[:10]); got != "prefix-"+upper[:10] {
		t.Errorf("a part of the key was redacted: %q", got)
	}
}

// TestRedactorBase64Inside: a key encoded in base64 after other bytes (Basic
// auth's "user:" + key, or any prefix of 0, 1 or 2 bytes mod 3) and before
// others is caught: no text left decodes to the key.
func TestRedactorBase64Inside(t *testing.T) {
	const key = "0f8fad5b-d9cb-469f-a165-70867728950e"
	r := New(key)
	for _, prefix := range []string{"", "a", "ab", "api:", "user:", "abcde:"} {
		for _, suffix := range []string{"", "x", ":tail"} {
			for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding} {
				in := "Authorization: Basic " + enc.EncodeToString([]byte(prefix+key+suffix))
				got := r.String(in)
				if got == in {
					t.Errorf("%q + key + %q in base64: not redacted: %s", prefix, suffix, got)
				}
				rest := strings.TrimPrefix(got, "Authorization: Basic ")
				for _, part := range strings.Split(rest, Redacted) {
					for cut := range 4 {
						if len(part) <= cut {
							continue
						}
						for _, dec := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
							if b, err := dec.DecodeString(strings.TrimRight(part[cut:], "=")); err == nil && strings.Contains(string(b), key) {
								t.Errorf("%q decodes to the key", part)
							}
						}
					}
				}
			}
		}
	}
	if got := r.String("SGVsbG8sIHdvcmxkIQ=="); got != "SGVsbG8sIHdvcmxkIQ==" {
		t.Errorf("base64 of other text was changed: %s", got)
	}
}

// TestEscapedSpellings: a secret with some of its characters written as
// JSON, percent or HTML escapes is redacted, in plain text and inside a
// JSON document's strings, in any ASCII case.
func TestEscapedSpellings(t *testing.T) {
	const secret = "s3cr3t/Key-é-🚀-value"
	r := New(secret)
	for _, text := range []string{
		`error: \u0073\u0033cr3t\/Key-\u00e9-\ud83d\ude80-value!`,
		`error: \u0053\u0033CR3T\/key-\u00E9-\uD83D\uDE80-VALUE`,
		`<p>&#115;3cr3t&#x2F;Key-&#233;-&#x1F680;-value</p>`,
		`<p>s3cr3t&#47;Key-&#xE9;-🚀-value</p>`,
		`GET /?k=%73%33cr3t%2fKey-%C3%A9-%F0%9F%9A%80-value HTTP/1.1`,
		`mixed \u0073%33&#99;r3t/Key-é-🚀-value`,
		`{"error": "%73%33cr3t%2FKey-%c3%a9-%f0%9f%9a%80-value"}`,
		`{"error": "&#115;3cr3t/Key-é-🚀-value", "n": 1}`,
	} {
		got := r.String(text)
		if got == text {
			t.Errorf("String(%q) left it unchanged", text)
			continue
		}
		for _, left := range []string{"3cr3t", "value", "VALUE"} {
			if strings.Contains(got, left) {
				t.Errorf("String(%q) = %q, still holds %q", text, got, left)
			}
		}
		if !r.Contains(text) {
			t.Errorf("Contains(%q) = false", text)
		}
		if json.Valid([]byte(text)) && !json.Valid([]byte(got)) {
			t.Errorf("String(%q) = %q is no longer JSON", text, got)
		}
	}
	for _, text := range []string{`\u0073\u0033cr3t\/Key-\u00e9-\ud83d\ude80-valu`, `%73%33cr3t%2fKey`, `&#115;&#51;`, `\u00`, `%`, `&#`, `&#x110000;`} {
		if got := r.String(text); got != text {
			t.Errorf("String(%q) = %q, want it unchanged", text, got)
		}
	}
}
