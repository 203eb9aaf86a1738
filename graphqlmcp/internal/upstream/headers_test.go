package upstream

import (
	"net/http"
	"strings"
	"testing"
)

// framingNames are the headers that frame a request or describe its body:
// each is graphqlmcp's, in any case.
var framingNames = []string{
	"Content-Type", "Accept", "Accept-Encoding", "Content-Length", "Transfer-Encoding", "Content-Encoding",
	"Content-Language", "Content-Range", "Host", "Connection", "Keep-Alive", "TE", "Trailer", "Upgrade", "Expect",
	"Proxy-Authorization", "Proxy-Connection", "Range", "If-Range", "Http2-Settings",
	"X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override",
}

// TestFramingHeadersRefused: a call or --headers that sets a header that
// frames the request is refused, the header, the rule and the fix named,
// whatever its case; Merge never sends such a value even when CheckHeaders
// was skipped.
func TestFramingHeadersRefused(t *testing.T) {
	for _, name := range framingNames {
		for _, spelling := range []string{name, strings.ToLower(name), strings.ToUpper(name)} {
			err := CheckHeaders(map[string]string{spelling: "application/x-www-form-urlencoded", "X-Fine": "ok"})
			if err == nil {
				t.Errorf("%s is accepted", spelling)
				continue
			}
			for _, want := range []string{`header "` + spelling + `" cannot be set`, "remove it", "reads the operation graphqlmcp checked"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%s: %q does not say %q", spelling, err, want)
				}
			}
			if strings.Contains(err.Error(), "form-urlencoded") {
				t.Errorf("%s: the error shows the value: %v", spelling, err)
			}
			merged := Merge(map[string]string{spelling: "startup"}, map[string]string{spelling: "call"})
			for key, values := range merged {
				if http.CanonicalHeaderKey(key) == http.CanonicalHeaderKey(name) && (values[0] == "startup" || values[0] == "call") {
					t.Errorf("Merge sent %s: %v", spelling, values)
				}
			}
		}
	}
	if got := Merge(nil, map[string]string{"Content-Type": "text/plain"}).Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type = %q", got)
	}
}

// TestHeadersNamedTwice: two names of one header (they differ in case) are
// refused: which would be sent depends on map order.
func TestHeadersNamedTwice(t *testing.T) {
	err := CheckHeaders(map[string]string{"Authorization": "a", "authorization": "b"})
	if err == nil || !strings.Contains(err.Error(), "name the same header") || strings.Contains(err.Error(), `"a"`) {
		t.Errorf("CheckHeaders = %v", err)
	}
	if err := CheckHeaders(map[string]string{"Authorization": "Bearer x", "X-Team": "t", "Accept-Language": "en", "User-Agent": "me"}); err != nil {
		t.Errorf("ordinary headers refused: %v", err)
	}
}
