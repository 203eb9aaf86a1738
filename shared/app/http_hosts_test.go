package app

import (
	"net/http"
	"testing"
)

// TestHTTPOriginCanonical: origins are compared in the form the transport
// and browsers use (IDNA, ASCII case): a look-alike of an allowed or local
// origin, which Unicode case folding would make equal, is refused.
func TestHTTPOriginCanonical(t *testing.T) {
	access, err := httpAccessFrom("127.0.0.1:0", []string{"https://kiwi.example"}, "", false, "TEST")
	if err != nil {
		t.Fatal(err)
	}
	url := serveTest(t, access)
	for origin, want := range map[string]int{
		"https://kiwi.example":          http.StatusOK,
		"https://KIWI.example:443":      http.StatusOK,
		"https://xn--kiwi-rwc.example":  http.StatusForbidden, // kİwi, as a browser sends it
		"https://k\u0130wi.example":     http.StatusForbidden, // ToLower makes it kiwi
		"https://k\u0131wi.example":     http.StatusForbidden, // dotless ı
		"https://kiwi.example\u0130":    http.StatusForbidden,
		"http://l\u043ecalhost:3000":    http.StatusForbidden, // Cyrillic о
		"http://LOCALHOST:3000":         http.StatusOK,
		"http://localhost.evil.example": http.StatusForbidden,
		"https://k%C4%B0wi.example":     http.StatusForbidden,
		"https://kiwi..example":         http.StatusForbidden,
	} {
		if got, _ := post(t, url, map[string]string{"Origin": origin}); got != want {
			t.Errorf("Origin %q: HTTP %d, want %d", origin, got, want)
		}
	}
}

func TestIsLoopbackListenCanonical(t *testing.T) {
	for listen, want := range map[string]bool{
		"localhost:80": true, "LOCALHOST:80": true, "localhost.:80": true, "127.0.0.1:80": true, "[::1]:80": true, "[::ffff:127.0.0.1]:80": true,
		"l\u043ecalhost:80": false, "localhost.evil.example:80": false, ":80": false, "0.0.0.0:80": false, "[::]:80": false, "localh\u0131st:80": false,
	} {
		if got := isLoopbackListen(listen); got != want {
			t.Errorf("isLoopbackListen(%q) = %v, want %v", listen, got, want)
		}
	}
}
