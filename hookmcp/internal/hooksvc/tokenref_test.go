package hooksvc

import (
	"net/url"
	"strings"
	"testing"
)

// TestParseToken: what a user pastes for a token gives its UUID, and what
// holds none is refused with the rule and the fix.
func TestParseToken(t *testing.T) {
	const id = "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d"
	const other = "1f0c2d3e-4a5b-4c6d-8e7f-001122334455"
	hosted := &Client{BaseURL: &url.URL{Scheme: "https", Host: "webhook.site"}, APIKey: "secret-key-0123456789"}
	selfHosted := &Client{BaseURL: &url.URL{Scheme: "http", Host: "hooks.internal:8084", Path: "/capture"}}
	good := []struct {
		cl *Client
		in string
	}{
		{hosted, id},
		{hosted, strings.ToUpper(id)},
		{hosted, "  " + id + "\n"},
		{hosted, "https://webhook.site/" + id},
		{hosted, "https://webhook.site/" + id + "/github/push?x=1#y"},
		{hosted, "https://" + id + ".webhook.site/any/path"},
		{hosted, "webhook.site/" + id + "/404"},
		{hosted, "https://webhook.site/#!/view/" + id + "/2f0c/1"},
		{hosted, id + "@emailhook.site"},
		{hosted, "x." + id + ".dnshook.site"},
		{hosted, other + "." + id + ".dnshook.site."},
		{hosted, id + ".WebHook.site"},
		{hosted, "*." + strings.ToUpper(id) + ".dnshook.site"},
		{hosted, "https://webhook.site/token/" + id + "/request/latest"},
		{hosted, "https://WebHook.site:443/" + id},
		{selfHosted, "http://hooks.internal:8084/capture/" + id + "/a/b"},
	}
	for _, tt := range good {
		got, err := tt.cl.ParseToken("token_id", tt.in)
		if err != nil || got != id {
			t.Errorf("ParseToken(%q) = %q, %v; want %s", tt.in, got, err, id)
		}
	}
	bad := []struct {
		cl    *Client
		in    string
		wants []string
	}{
		{hosted, "my-hook", []string{`token_id must be a token UUID such as ` + ExampleUUID + `; got "my-hook". The API does not accept a token's alias in its place: pass the token's UUID`}},
		{hosted, "https://webhook.site/my-hook/x", []string{`got "https://webhook.site/my-hook/x". The API does not accept a token's alias`}},
		{hosted, "https://webhook.site/", []string{"holds no token UUID", "https://webhook.site/<token uuid>"}},
		{hosted, "https://example.com/" + id, []string{"is a URL of example.com, but hookmcp uses the capture API at https://webhook.site (HOOKSVC_API_URL)"}},
		{selfHosted, "https://webhook.site/" + id, []string{"is a URL of webhook.site", "http://hooks.internal:8084/capture"}},
		{hosted, "ftp://webhook.site/" + id, []string{"is not a URL hookmcp can read"}},
		{hosted, "me@example.com", []string{"is an email address whose name is not a token UUID", "<uuid>@emailhook.site"}},
		{hosted, "x.dnshook.site", []string{"a host name without a token UUID", "<anything>.<uuid>.dnshook.site"}},
		{hosted, "no spaces here!", []string{"token_id must be a token UUID such as", `got "no spaces here!"`}},
		{hosted, "secret-key-0123456789 x", []string{"[REDACTED]"}},
		{hosted, "https://webhook.site/secret-key-0123456789", []string{`got "https://webhook.site/[REDACTED]"`}},
		{hosted, "https://secret-key-0123456789.example/x", []string{"is a URL of [REDACTED].example"}},
		{hosted, strings.Repeat("a", 3000), []string{"is 3000 characters long"}},
		// Unicode case folding lowers U+0130 to "i", but the transport
		// dials xn--webhook-s-..., another host: a look-alike is not the
		// service.
		{hosted, "https://webhook.s\u0130te/" + id, []string{"is a URL of", "but hookmcp uses the capture API at https://webhook.site"}},
		{hosted, "https://" + id + ".webhook.s\u0130te/x", []string{"is a URL of"}},
		// A UUID elsewhere than the token's place is another thing's id:
		// an alias's capture URL may hold an order's id, and a DNS name's
		// labels before the token's are the sender's own.
		{hosted, "https://webhook.site/my-alias/orders/" + other, []string{"The API does not accept a token's alias"}},
		{hosted, other + "." + id + ".example.com", []string{"a host name without a token UUID right before dnshook.site"}},
		{selfHosted, "http://hooks.internal:8084/captures/" + id, []string{"holds no token UUID"}},
		{hosted, "https://webhook.site/#!/orders/" + other, []string{"holds no token UUID"}},
	}
	for _, tt := range bad {
		_, err := tt.cl.ParseToken("token_id", tt.in)
		if err == nil {
			t.Errorf("ParseToken(%q) accepted", tt.in)
			continue
		}
		for _, want := range tt.wants {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("ParseToken(%q): %q\ndoes not contain %q", tt.in, err, want)
			}
		}
		if strings.Contains(err.Error(), "secret-key-0123456789") {
			t.Errorf("ParseToken(%q) shows the key: %s", tt.in, err)
		}
	}
}

// TestFieldMessagesLaravel: the hosted service's 422, in Laravel's form,
// names each field and its rule as the flat form does.
func TestFieldMessagesLaravel(t *testing.T) {
	for body, want := range map[string]string{
		`{"message":"The given data was invalid.","errors":{"default_status":["The default status must be between 200 and 599."]}}`: "default_status: The default status must be between 200 and 599.",
		`{"message":"The given data was invalid.","errors":{"timeout":["Too long."],"alias":["Taken.","Bad."]}}`:                    "alias: Taken. Bad.; timeout: Too long.",
		`{"default_status":["The default status must be between 200 and 599."]}`:                                                    "default_status: The default status must be between 200 and 599.",
		`{"message":"The given data was invalid.","errors":[]}`:                                                                     "The given data was invalid.",
	} {
		if got := fieldMessages([]byte(body)); got != want {
			t.Errorf("fieldMessages(%s) = %q, want %q", body, got, want)
		}
	}
}

// FuzzParseToken: no input panics, what is accepted is a lower-case UUID
// that the input holds, and a refusal never shows the key.
func FuzzParseToken(f *testing.F) {
	for _, seed := range []string{
		"9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d", "https://webhook.site/9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d/x",
		"x.9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d.dnshook.site", "a@b", "https://[::1", "webhook.site/", "my-hook", "://", "secret-key-0123456789", "https://webhook.site/secret-key-0123456789",
	} {
		f.Add(seed)
	}
	cl := &Client{BaseURL: &url.URL{Scheme: "https", Host: "webhook.site"}, APIKey: "secret-key-0123456789"}
	f.Fuzz(func(t *testing.T, in string) {
		id, err := cl.ParseToken("token_id", in)
		if err != nil {
			if strings.Contains(err.Error(), "secret-key-0123456789") {
				t.Fatalf("the error shows the key: %s", err)
			}
			return
		}
		if !UUIDPattern.MatchString(string(id)) || strings.ToLower(string(id)) != string(id) || !strings.Contains(strings.ToLower(in), string(id)) {
			t.Fatalf("ParseToken(%q) = %q", in, id)
		}
	})
}
