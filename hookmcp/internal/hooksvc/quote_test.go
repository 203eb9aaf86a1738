package hooksvc

import (
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
