package httpx

import (
	"strings"
	"testing"
)

// TestRedactURL: no part of a URL that may carry a credential survives, in
// URLs that parse and in text that does not.
func TestRedactURL(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"https://api.example.com/graphql", "https://api.example.com/graphql"},
		{"http://u:SECRET1@host:8080/graphql", "http://REDACTED@host:8080/graphql"},
		{"https://host/x?token=SECRET2&a=b", "https://host/x?REDACTED"},
		{"https://host/x#SECRET3", "https://host/x#REDACTED"},
		{"https://host/x?SECRET4", "https://host/x?REDACTED"},
		{"http://u:SECRET5@ho st/%zz?k=SECRET6", "http://REDACTED@ho st/%zz?REDACTED"},
		{"ftp://u:SECRET7@host", "ftp://REDACTED@host"},
	} {
		got := RedactURL(tt.in)
		if got != tt.want || strings.Contains(got, "SECRET") {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
