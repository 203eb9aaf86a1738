package httpx

import (
	"net/url"
	"testing"
)

// TestUnderPrefix: the same origin, canonical hosts compared, and a path
// on a segment boundary under the prefix's, whether the prefix ends in a
// slash or not; a prefix of an origin alone holds all its paths.
func TestUnderPrefix(t *testing.T) {
	for _, c := range []struct {
		prefix string
		under  map[string]bool
	}{
		{"https://dev.example.com/hooks", map[string]bool{
			"https://dev.example.com/hooks":            true,
			"https://dev.example.com/hooks/":           true,
			"https://dev.example.com/hooks/stripe":     true,
			"https://DEV.example.com./hooks/stripe":    true,
			"https://dev.example.com:443/hooks":        true,
			"https://dev.example.com/hooksx":           false,
			"https://dev.example.com/hook":             false,
			"https://dev.example.com/":                 false,
			"http://dev.example.com/hooks":             false,
			"https://dev.example.com:444/hooks":        false,
			"https://other.example.com/hooks":          false,
			"https://dev.example.com.evil.test/hooks/": false,
		}},
		{"https://api.example.com/v2/", map[string]bool{
			"https://api.example.com/v2":         true,
			"https://api.example.com/v2/graphql": true,
			"https://api.example.com/v2x":        false,
			"https://api.example.com/graphql":    false,
		}},
		{"http://127.0.0.1:3000", map[string]bool{
			"http://127.0.0.1:3000/":    true,
			"http://127.0.0.1:3000/a/b": true,
			"http://127.0.0.1:3001/a":   false,
			"http://localhost:3000/a":   false,
		}},
	} {
		prefix, err := url.Parse(c.prefix)
		if err != nil {
			t.Fatal(err)
		}
		for raw, want := range c.under {
			u, err := url.Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			if got := UnderPrefix(u, prefix); got != want {
				t.Errorf("UnderPrefix(%s, %s) = %v, want %v", raw, c.prefix, got, want)
			}
		}
	}
}
