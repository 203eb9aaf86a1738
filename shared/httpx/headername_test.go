package httpx

import (
	"strings"
	"testing"
)

// TestHeaderNameShowsOnlyNames: a name is shown only when it reads as a
// header name; a header line or a token is described, never shown.
func TestHeaderNameShowsOnlyNames(t *testing.T) {
	for name, shown := range map[string]bool{
		"Authorization": true, "X-Request-Id": true, "Content-Security-Policy-Report-Only": true,
		"Authorization: Bearer SECRETV20": false, "ghp_SECRETV20": false, "sk-proj0123456789abcdefghijkl": false, "": false, "9lives": false,
	} {
		got := HeaderName(name)
		if (got == `"`+name+`"`) != shown || !shown && name != "" && strings.Contains(got, name) {
			t.Errorf("HeaderName(%q) = %s, want shown %v", name, got, shown)
		}
	}
	text := InvalidHeaderName("Authorization: Bearer SECRETV20")
	if strings.Contains(text, "SECRETV20") || !strings.Contains(text, "it holds a colon at character 14") {
		t.Errorf("%s", text)
	}
}
