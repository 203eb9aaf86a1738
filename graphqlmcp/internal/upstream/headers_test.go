package upstream

import (
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
	"X-Original-URL", "X-Original-URI", "X-Rewrite-URL", "X-Override-URL",
}

// TestFramingHeadersRefused: a call or --headers that sets a header that
// frames the request is refused, the header, the rule and the fix named,
// whatever its case; Merge never sends such a value even when CheckHeaders
// was skipped.
func TestFramingHeadersRefused(t *testing.T) {
	for _, name := range framingNames {
		// With _ for -: CGI-style servers (PHP, Rack, WSGI) read both alike.
		underscored := strings.ReplaceAll(name, "-", "_")
		for _, spelling := range []string{name, strings.ToLower(name), strings.ToUpper(name), underscored, strings.ToLower(underscored)} {
			err := CheckHeaders(map[string]string{spelling: "application/x-www-form-urlencoded", "X-Fine": "ok"})
			if err == nil {
				t.Errorf("%s is accepted", spelling)
				continue
			}
			named := `header "` + spelling + `" cannot be set`
			if strings.Contains(spelling, "_") {
				named = `(read as "` + headerKey(name) + `": many servers read _ as -) cannot be set`
			}
			for _, want := range []string{named, "remove it", "reads the operation graphqlmcp checked"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%s: %q does not say %q", spelling, err, want)
				}
			}
			if strings.Contains(err.Error(), "form-urlencoded") {
				t.Errorf("%s: the error shows the value: %v", spelling, err)
			}
			merged := Merge(map[string]string{spelling: "startup"}, map[string]string{spelling: "call"})
			for key, values := range merged {
				if headerKey(key) == headerKey(name) && (values[0] == "startup" || values[0] == "call") {
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
	// A name in a framing family is refused without showing it: it may be
	// a token.
	if err := CheckHeaders(map[string]string{"Content_sk_live_51Hx": "v"}); err == nil || strings.Contains(err.Error(), "51Hx") || strings.Contains(err.Error(), "51hx") {
		t.Errorf("CheckHeaders = %v", err)
	}
	err := CheckHeaders(map[string]string{"Authorization": "a", "authorization": "b"})
	if err == nil || !strings.Contains(err.Error(), "name the same header") || strings.Contains(err.Error(), `"a"`) {
		t.Errorf("CheckHeaders = %v", err)
	}
	for _, pair := range [][2]string{{"X-Team", "X_Team"}, {"x_team", "X-TEAM"}, {"X-Api-Key", "x_api_key"}} {
		err := CheckHeaders(map[string]string{pair[0]: "a", pair[1]: "b"})
		if err == nil || !strings.Contains(err.Error(), "name the same header") || !strings.Contains(err.Error(), "_ as -") {
			t.Errorf("CheckHeaders(%v) = %v", pair, err)
		}
	}
	// Identity, not framing or routing: they pass.
	if err := CheckHeaders(map[string]string{"Authorization": "Bearer x", "X-Team": "t", "Accept-Language": "en", "User-Agent": "me",
		"X-Forwarded-For": "203.0.113.1", "X-Forwarded-Host": "a.example", "Forwarded": "for=203.0.113.1", "X_Request_Id": "r"}); err != nil {
		t.Errorf("ordinary headers refused: %v", err)
	}
	// A call's X_Team replaces the startup X-Team: one header is sent.
	merged := Merge(map[string]string{"X-Team": "startup"}, map[string]string{"x_team": "call"})
	var values []string
	for key, v := range merged {
		if headerKey(key) == "X-Team" {
			values = append(values, v...)
		}
	}
	if len(values) != 1 || values[0] != "call" {
		t.Errorf("Merge sent X-Team as %v, want only the call's", values)
	}
}
