package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestBadInput: every malformed or out-of-bounds argument is a tool error that
// names the argument, the rule and the value given, and nothing is sent.
func TestBadInput(t *testing.T) {
	const id = "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d"
	tests := []struct {
		name string
		tool string
		args map[string]any
		want []string
	}{
		{"no token anywhere", "get_token", nil, []string{"no token given: pass token_id", "set HOOKSVC_TOKEN_ID"}},
		{"no token to delete", "delete_token", map[string]any{}, []string{"no token given"}},
		{"no token to list", "list_requests", map[string]any{"per_page": 5}, []string{"no token given"}},
		{"no token for latest", "get_latest_request", nil, []string{"no token given"}},
		{"no token to purge", "delete_requests", map[string]any{"all": true}, []string{"no token given"}},
		{"no token to update", "update_token", map[string]any{"cors": true}, []string{"no token given"}},
		{"alias as token_id", "get_token", map[string]any{"token_id": "my-hook"}, []string{`token_id must be a token UUID such as`, `got "my-hook"`, "does not accept a token's alias", "pass the token's UUID"}},
		{"alias in a capture URL", "list_requests", map[string]any{"token_id": "http://127.0.0.1/my-hook/x"}, []string{"is a URL of 127.0.0.1, but hookmcp uses the capture API at"}},
		{"token_id of another service", "get_token", map[string]any{"token_id": "https://webhook.site/" + id}, []string{"token_id is a URL of webhook.site, but hookmcp uses the capture API at http://127.0.0.1:", "HOOKSVC_API_URL"}},
		{"token_id neither", "get_latest_request", map[string]any{"token_id": "not a token"}, []string{"token_id must be a token UUID such as", "a capture URL, the token's email address or its DNS name also work", `got "not a token"`}},
		{"email of no token", "get_token", map[string]any{"token_id": "me@example.com"}, []string{"token_id \"me@example.com\" is an email address whose name is not a token UUID"}},
		{"file with a space", "get_request", map[string]any{"token_id": id, "request_id": id, "file": "a b"}, []string{"file must be the id of one of the request's files", `got "a b"`}},
		{"token_id not a string", "get_token", map[string]any{"token_id": 42}, []string{`argument "token_id" must be a string, not the number`}},
		{"unknown argument", "get_token", map[string]any{"token": id}, []string{`unknown argument "token"`, "get_token accepts only api_key, token_id"}},
		{"default_status low", "create_token", map[string]any{"default_status": 199}, []string{"default_status must be a whole number from 200 to 599; got 199"}},
		{"default_status high", "update_token", map[string]any{"token_id": id, "default_status": 600}, []string{"default_status must be a whole number from 200 to 599; got 600"}},
		{"default_status fractional", "create_token", map[string]any{"default_status": 200.5}, []string{"default_status must be a whole number from 200 to 599; got 200.5"}},
		{"default_status as text", "create_token", map[string]any{"default_status": "200"}, []string{`"default_status" must be an integer, not a string`}},
		{"timeout over 30", "create_token", map[string]any{"timeout": 31}, []string{"timeout must be a whole number from 0 to 30; got 31"}},
		{"timeout negative", "update_token", map[string]any{"token_id": id, "timeout": -1}, []string{"timeout must be a whole number from 0 to 30; got -1"}},
		{"listen over 10", "create_token", map[string]any{"listen": 11}, []string{"listen must be a whole number from 0 to 10; got 11"}},
		{"expiry negative", "create_token", map[string]any{"expiry": -1}, []string{"expiry must be a whole number from 0 to 604800; got -1"}},
		{"expiry over a week", "update_token", map[string]any{"token_id": id, "expiry": 604801}, []string{"expiry must be a whole number from 0 to 604800; got 604801"}},
		{"request_limit over", "create_token", map[string]any{"request_limit": 10001}, []string{"request_limit must be a whole number from 0 to 10000; got 10001"}},
		{"alias too short", "create_token", map[string]any{"alias": "ab"}, []string{"alias must be 3 to 32 letters, digits, _ or -", `got "ab"`}},
		{"alias with a space", "update_token", map[string]any{"token_id": id, "alias": "my hook"}, []string{`alias must be 3 to 32`, `got "my hook"`}},
		{"cors not a boolean", "create_token", map[string]any{"cors": "yes"}, []string{`"cors" must be a boolean (true or false), not a string`}},
		{"clone_from neither", "create_token", map[string]any{"clone_from": "a b"}, []string{"clone_from must be a token UUID", `or an alias`, `got "a b"`}},
		{"update without settings", "update_token", map[string]any{"token_id": id}, []string{"update_token needs at least one setting to change", "default_status, default_content"}},
		{"update with clone_from", "update_token", map[string]any{"token_id": id, "clone_from": id}, []string{`unknown argument "clone_from"`}},
		{"sorting unknown", "list_requests", map[string]any{"token_id": id, "sorting": "latest"}, []string{`sorting must be "newest" or "oldest"; got "latest"`}},
		{"per_page zero", "list_requests", map[string]any{"token_id": id, "per_page": 0}, []string{"per_page must be a whole number from 1 to 100; got 0"}},
		{"per_page over 100", "list_requests", map[string]any{"token_id": id, "per_page": 500}, []string{"per_page must be a whole number from 1 to 100; got 500"}},
		{"page zero", "list_requests", map[string]any{"token_id": id, "page": 0}, []string{"page must be a whole number from 1 to 100000; got 0"}},
		{"page fractional", "list_requests", map[string]any{"token_id": id, "page": 1.5}, []string{"page must be a whole number from 1 to 100000; got 1.5"}},
		{"date_from ISO", "list_requests", map[string]any{"token_id": id, "date_from": "2026-11-21T10:00:00Z"}, []string{"date_from must be a UTC date and time written yyyy-MM-dd HH:mm:ss", `got "2026-11-21T10:00:00Z"`}},
		{"date_to month 13", "list_requests", map[string]any{"token_id": id, "date_to": "2026-13-01 00:00:00"}, []string{"date_to must be a UTC date and time", `got "2026-13-01 00:00:00"`}},
		{"dates reversed", "list_requests", map[string]any{"token_id": id, "date_from": "2026-11-21 10:00:00", "date_to": "2026-11-20 10:00:00"}, []string{"date_from (2026-11-21 10:00:00) is after date_to (2026-11-20 10:00:00), so no request could match"}},
		{"delete date_to in words", "delete_requests", map[string]any{"token_id": id, "date_to": "yesterday"}, []string{"date_to must be a UTC date and time", "or an expression relative to now: now, now-30m", `got "yesterday"`}},
		{"expression in months", "delete_requests", map[string]any{"token_id": id, "date_from": "now-1M"}, []string{"date_from must be a UTC date and time", "units s, m, h, d, w", `got "now-1M"`}},
		{"expressions reversed", "list_requests", map[string]any{"token_id": id, "date_from": "now-1h", "date_to": "now-2h"}, []string{"date_from (now-1h, ", " UTC) is after date_to (now-2h, "}},
		{"request_id missing", "get_request", map[string]any{"token_id": id}, []string{"request_id is required"}},
		{"request_id latest", "get_request", map[string]any{"token_id": id, "request_id": "latest"}, []string{"request_id must be a request UUID", `got "latest"`}},
		{"delete request_id not a uuid", "delete_request", map[string]any{"token_id": id, "request_id": "12"}, []string{"request_id must be a request UUID"}},
		{"wait too long", "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 301}, []string{"timeout_seconds must be a whole number from 1 to 300; got 301"}},
		{"wait zero", "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 0}, []string{"timeout_seconds must be a whole number from 1 to 300; got 0"}},
		{"wait query blank", "wait_for_request", map[string]any{"token_id": id, "query": " "}, []string{"query is empty", "matches every request", "nothing was sent"}},
		{"wait after empty", "wait_for_request", map[string]any{"token_id": id, "after_request_id": ""}, []string{"after_request_id is empty", "leave after_request_id out", "nothing was sent"}},
		{"wait after an alias", "wait_for_request", map[string]any{"token_id": id, "after_request_id": "last"}, []string{"after_request_id must be a request UUID", `got "last"`}},
		{"test method", "send_test_request", map[string]any{"token_id": id, "method": "TRACE"}, []string{`method must be "POST", "GET", "PUT", "PATCH" or "DELETE"; got "TRACE"`}},
		{"test path leaves", "send_test_request", map[string]any{"token_id": id, "path": "../other-token"}, []string{"must not hold a segment of dots", "cannot leave it"}},
		{"test path with a query", "send_test_request", map[string]any{"token_id": id, "path": "a?b=1"}, []string{"no ?, #, backslash", "pass query parameters in query"}},
		{"test path to another host", "send_test_request", map[string]any{"token_id": id, "path": `\\evil.example/x`}, []string{"no ?, #, backslash"}},
		{"test header Host", "send_test_request", map[string]any{"token_id": id, "headers": map[string]any{"Host": "evil.example"}}, []string{`header "Host" cannot be set`}},
		{"test header Api-Key", "send_test_request", map[string]any{"token_id": id, "headers": map[string]any{"api-key": "x"}}, []string{`header "api-key" cannot be set`, "never sent to a capture URL"}},
		{"test header line break", "send_test_request", map[string]any{"token_id": id, "headers": map[string]any{"X-A": "1\r\nX-B: 2"}}, []string{`header "X-A": a value is one line`}},
		{"test header X-Original-URL", "send_test_request", map[string]any{"token_id": id, "headers": map[string]any{"x-original-url": "/token/" + id + "/request"}}, []string{`header "x-original-url" cannot be set`, "route a request by"}},
		{"test header method override", "send_test_request", map[string]any{"token_id": id, "method": "POST", "headers": map[string]any{"X-HTTP-Method-Override": "DELETE"}}, []string{`header "X-HTTP-Method-Override" cannot be set`}},
		{"test header bad name", "send_test_request", map[string]any{"token_id": id, "headers": map[string]any{"X A": "1"}}, []string{`header name <a 3-character name, not shown: it may hold a secret> is not a valid HTTP header name: it holds a space at character 2`}},
		{"api_key blank", "get_token", map[string]any{"token_id": id, "api_key": "  "}, []string{"api_key is empty", "leave api_key out to use HOOKSVC_API_KEY"}},
		{"api_key with a newline", "create_token", map[string]any{"api_key": "abc\ndef-secret"}, []string{"api_key must be the key alone"}},
	}
	h := connect(t, config.Config{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.fake.Reset()
			msg := h.failure(t, tt.tool, tt.args)
			contains(t, msg, tt.want...)
			if strings.Contains(msg, "def-secret") {
				t.Errorf("the error repeats the key: %s", msg)
			}
			if got := h.fake.Received(); len(got) != 0 {
				t.Errorf("the API received %d requests, want none: %v", len(got), got)
			}
		})
	}
}

// TestNullIsNoValue: for every tool, every argument given null is refused
// with an error naming it, and nothing reaches the service. encoding/json
// decodes null as if the argument were left out, which for a filter, a
// token or a key would make the call reach further than it says. The
// arguments come from the tools' schemas, so one added later is tried too.
func TestNullIsNoValue(t *testing.T) {
	const id = "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d"
	h := connect(t, config.Config{TokenID: id, APIKey: envKey})
	list, err := h.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tried := 0
	for _, tool := range list.Tools {
		for name := range mcptest.InputSchema(t, tool).Properties {
			tried++
			h.fake.Reset()
			args := mcptest.ArgumentsWith(t, map[string]any{}, name, json.RawMessage("null"))
			res, err := h.session.CallTool(context.Background(), &mcp.CallToolParams{Name: tool.Name, Arguments: args})
			if err != nil || !res.IsError {
				t.Errorf("%s %s null: %v %v, want a tool error", tool.Name, name, err, res)
				continue
			}
			contains(t, mcptest.Text(res), name+" is null", "leave it out", "nothing was sent")
			if got := h.fake.Received(); len(got) != 0 {
				t.Errorf("%s %s null: the service received %v", tool.Name, name, got)
			}
		}
	}
	if tried < 40 {
		t.Errorf("tried %d arguments; the tools' schemas were not read", tried)
	}
	// Nor is null a value inside a map argument.
	for _, name := range []string{"headers", "query"} {
		h.fake.Reset()
		msg := h.failure(t, "send_test_request", map[string]any{name: map[string]any{"X-A": nil}})
		contains(t, msg, name+` holds "X-A": null`, "nothing was sent")
		if got := h.fake.Received(); len(got) != 0 {
			t.Errorf("%s with a null member: the service received %v", name, got)
		}
	}
}

// TestEmptyTokenAndKey: token_id and api_key given empty or blank are
// refused for every tool that takes them, not read as "use the configured
// default" (an empty token_id would address the default token, an empty
// api_key send the configured key), and nothing is sent.
func TestEmptyTokenAndKey(t *testing.T) {
	const id = "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d"
	h := connect(t, config.Config{TokenID: id, APIKey: envKey})
	list, err := h.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tried := 0
	for _, tool := range list.Tools {
		props := mcptest.InputSchema(t, tool).Properties
		for _, name := range []string{"token_id", "api_key"} {
			if props[name] == nil {
				continue
			}
			for _, value := range []string{"", " ", "\t"} {
				tried++
				h.fake.Reset()
				msg := h.failure(t, tool.Name, map[string]any{name: value})
				contains(t, msg, name+" is empty", "leave "+name+" out", "nothing was sent")
				if got := h.fake.Received(); len(got) != 0 {
					t.Errorf("%s %s %q: the service received %v", tool.Name, name, value, got)
				}
			}
		}
	}
	if tried < 60 {
		t.Errorf("tried %d arguments; the tools' schemas were not read", tried)
	}
}
