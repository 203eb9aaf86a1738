package hooksvc

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestQuote: a value is quoted whole up to 100 bytes; a longer one by its
// first 100 bytes or fewer, cut at a character boundary, with its length.
func TestQuote(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"abc", `"abc"`},
		{strings.Repeat("a", 100), `"` + strings.Repeat("a", 100) + `"`},
		{strings.Repeat("a", 1_100_000), `"` + strings.Repeat("a", 100) + `"… (1100000 bytes in all)`},
		{"a" + strings.Repeat("é", 60), `"a` + strings.Repeat("é", 49) + `"… (121 bytes in all)`},
		{strings.Repeat("🚀", 30), `"` + strings.Repeat("🚀", 25) + `"… (120 bytes in all)`},
	} {
		got := Quote(tt.in)
		if got != tt.want {
			t.Errorf("Quote(%d bytes) = %s, want %s", len(tt.in), got, tt.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("Quote(%d bytes) is not UTF-8", len(tt.in))
		}
	}
	if got := Clip(strings.Repeat("h", 300)); got != strings.Repeat("h", 100)+"… (300 bytes in all)" {
		t.Errorf("Clip = %s", got)
	}
}

// TestDescribeAnswer: an answer that is not an error envelope is described
// by its shape and member names, never its values; text that is not JSON
// is quoted from its start, bounded.
func TestDescribeAnswer(t *testing.T) {
	many := map[string]int{}
	for i := range 30 {
		many[fmt.Sprintf("member%02d", i)] = i
	}
	manyJSON, _ := json.Marshal(many)
	for body, want := range map[string]string{
		`{"uuid":"x","password":"hunter2","team_id":7}`: `a JSON object with the members "password", "team_id", "uuid" (values not shown)`,
		`[{"password":"hunter2"},2]`:                    "a JSON array of 2 items",
		`"hunter2"`:                                     "a JSON string",
		`null`:                                          "JSON null",
		`{}`:                                            "an empty JSON object",
		"Bad Gateway":                                   "Bad Gateway",
		string(manyJSON):                                `"member09" and 20 more (values not shown)`,
	} {
		if got := describeAnswer([]byte(body), 120); !strings.Contains(got, want) || strings.Contains(got, "hunter2") {
			t.Errorf("describeAnswer(%s) = %q, want it to hold %q", body, got, want)
		}
	}
	if _, err := DecodePage([]byte(`{"uuid":"x","password":"hunter2"}`)); err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), `"password"`) {
		t.Errorf("DecodePage of a token: %v", err)
	}
	if got := envelopeMessage([]byte(`{"team_id":"team-4711"}`)); strings.Contains(got, "team-4711") {
		t.Errorf("envelopeMessage quotes a value: %s", got)
	}
	if got := envelopeMessage([]byte(`{"success":false,"error":{"message":"Token not found"}}`)); got != "Token not found" {
		t.Errorf("envelopeMessage of an error envelope = %q", got)
	}
}
