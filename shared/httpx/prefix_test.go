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

// TestUnderPrefixNoClimbing: a path a server could read as one outside the
// prefix is not under it, whatever the caller checked before: dot
// segments (split at / or \), and the same once Unicode-normalized
// (NFKC), as some servers and frameworks read a path: a fullwidth dot
// (U+FF0E) or a two-dot leader (U+2025) is a dot there, a fullwidth
// solidus a separator, fullwidth % and digits an escape.
func TestUnderPrefixNoClimbing(t *testing.T) {
	prefix, _ := url.Parse("https://dev.example.com/hooks")
	for path, want := range map[string]bool{
		"/hooks/stripe":                   true,
		"/hooks/café":                     true,
		"/hooks/.well-known/x":            true,
		"/hooks/../admin":                 false,
		"/hooks/a/../../admin":            false,
		"/hooks/./x":                      false,
		`/hooks/..\admin`:                 false,
		"/hooks/\uff0e\uff0e/admin":       false,
		"/hooks/\u2025/admin":             false,
		"/hooks/\ufe52\ufe52/admin":       false,
		"/hooks/a\uff0f..\uff0f..\uff0fx": false,
		"/hooks/..\uff3cadmin":            false,
		"/hooks/\uff05\uff12\uff45\uff05\uff12\uff45/admin": false,
		"/hooks/a\ufe54b": false,
	} {
		u := &url.URL{Scheme: "https", Host: "dev.example.com", Path: path}
		if got := UnderPrefix(u, prefix); got != want {
			t.Errorf("UnderPrefix(%q) = %v, want %v", path, got, want)
		}
	}
}
