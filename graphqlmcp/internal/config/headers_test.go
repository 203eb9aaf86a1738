package config

import (
	"strings"
	"testing"
)

// TestParseHeadersSaysWhatAndWhere: each way of getting --headers wrong by
// hand is named, with where it is, and no value (a secret) is ever repeated.
func TestParseHeadersSaysWhatAndWhere(t *testing.T) {
	const secret = "s3cretTok"
	tests := []struct {
		text string
		want string
	}{
		{"Authorization: Bearer " + secret, `got a header line (Authorization: …), not JSON: write it as {"Authorization":"…"}`},
		{"{'Authorization': 'Bearer " + secret + "'}", "single quotes at column 2: JSON needs double quotes around names and values"},
		{`{"Authorization": 'Bearer ` + secret + `'}`, "single quotes at column 19"},
		{`{Authorization: "Bearer ` + secret + `"}`, `a name without double quotes at column 2: write each name in double quotes, "Authorization"`},
		{`{"Authorization": "Bearer ` + secret + `",}`, "a trailing comma before the } at column 38: remove it"},
		{`{"Authorization": Bearer ` + secret + `}`, `a value that is not a string at column 19: write each value in double quotes, "Bearer <token>"`},
		{`{"Authorization" "Bearer ` + secret + `"}`, "a missing colon after the name that ends at column 18"},
		{`{"A": "x` + secret + `" "B": "y"}`, "a missing comma (or closing }) before column 20"},
		{`{"Authorization": "Bearer ` + secret + `"`, `the text ends before the object does: add the missing closing } or "`},
		{`{"Authorization": "Bearer ` + secret + `"} {}`, "more text after the object's closing } at column 39: give one object"},
		{"{\n  \"A\": \"x\",\n  B: \"" + secret + "\"\n}", "a name without double quotes at line 3, column 3"},
		{`["Authorization: Bearer ` + secret + `"]`, "got a JSON array: put the headers in one object"},
		{`"Bearer ` + secret + `"`, "got a JSON string: put the header in an object"},
		{"null", "got null"},
		{"42", "got a JSON number"},
		{"<token>", "got text that is not JSON: it must start with {"},
		{"ghp_" + secret + ":x", "got text that is not JSON: it must start with {"},
	}
	for _, tt := range tests {
		_, err := ParseHeaders(tt.text)
		if err == nil {
			t.Errorf("%q: accepted", tt.text)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "must be a JSON object of string values; "+tt.want) || !strings.HasSuffix(msg, `For example '{"Authorization":"Bearer <token>"}'`) {
			t.Errorf("%q:\n got %s\nwant must be a JSON object of string values; %s…", tt.text, msg, tt.want)
		}
		if strings.Contains(msg, secret) || strings.Contains(msg, "Bearer s") {
			t.Errorf("%q: a value shows: %s", tt.text, msg)
		}
	}
}

// TestHeaderNamesNeverShowASecret: a name that does not read as a header
// name (a whole header line, a token pasted as a name) is never shown by
// any error about it, whichever rule it breaks.
func TestHeaderNamesNeverShowASecret(t *testing.T) {
	const secret = "SECRETV20"
	for _, tt := range []struct {
		text string
		want string
	}{
		{`{"Authorization: Bearer ` + secret + `":""}`, "is not a valid HTTP header name: it holds a colon at character 14"},
		{`{"ghp_` + secret + `": 3}`, "the value of <a 13-character name, not shown: it may hold a secret> is not a string"},
		{`{"Bearer` + secret + `0123456789abcdef":"x\r\n"}`, "the value of header <a 31-character name, not shown: it may hold a secret> contains a line break"},
	} {
		_, err := ParseHeaders(tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.text, err, tt.want)
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("%s: the secret shows: %v", tt.text, err)
		}
	}
}

// TestParseHeadersRefusesFraming: --headers may not set a header that
// frames the request (the body is graphqlmcp's JSON), nor one header under
// two names; the error names the header, the rule and the fix.
func TestParseHeadersRefusesFraming(t *testing.T) {
	for text, want := range map[string]string{
		`{"Content-Type": "application/x-www-form-urlencoded"}`: `header "Content-Type" cannot be set: the Content-* headers describe the body, which graphqlmcp writes (JSON), so that the endpoint reads the operation graphqlmcp checked; remove it`,
		`{"accept": "text/html"}`:                               `header "accept" cannot be set`,
		`{"Proxy-Authorization": "Basic x"}`:                    `header "Proxy-Authorization" cannot be set: the Proxy-* headers are for a proxy`,
		`{"Authorization": "a", "AUTHORIZATION": "b"}`:          `headers "AUTHORIZATION" and "Authorization" name the same header (header names ignore case); give it once`,
	} {
		_, err := ParseHeaders(text)
		if err == nil || !strings.Contains(err.Error(), "must hold only headers a caller may set: "+want) {
			t.Errorf("%s: %v, want %q", text, err, want)
		}
	}
}
