package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/hookmcp/internal/signature"
	"github.com/mcpforge/servers/shared/mcptest"
)

// neverAfter is a fake's listen timer that never fires: a held sender
// waits until a response is set for it.
func neverAfter(time.Duration) <-chan time.Time { return nil }

// sent is what a sender received from a capture URL.
type sent struct {
	status int
	header http.Header
	body   string
	err    error
}

// sender posts body to the token's capture URL as a webhook sender would,
// with a plain HTTP client, and delivers what it receives.
func (h *harness) sender(ctx context.Context, id, contentType, body string) <-chan sent {
	out := make(chan sent, 1)
	go func() {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url+"/"+id, strings.NewReader(body))
		if err != nil {
			out <- sent{err: err}
			return
		}
		req.Header.Set("Content-Type", contentType)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			out <- sent{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		out <- sent{status: resp.StatusCode, header: resp.Header, body: string(b), err: err}
	}()
	return out
}

// held waits until the fake has n captures of token id, the last one held
// (the fake registers a held sender with the capture, in one step), and
// returns the newest request's id as the assistant reads it.
func (h *harness) held(ctx context.Context, t *testing.T, id string, n int) string {
	t.Helper()
	err := h.fake.Await(ctx, func(received []fakehooksvc.Received) bool {
		count := 0
		for _, r := range received {
			if r.Path == "/"+id {
				count++
			}
		}
		return count >= n
	})
	if err != nil {
		t.Fatalf("the sender's request never arrived: %v", err)
	}
	return h.ok(t, "get_latest_request", map[string]any{"token_id": id})["request_id"].(string)
}

func received(ctx context.Context, t *testing.T, sender <-chan sent) sent {
	t.Helper()
	select {
	case got := <-sender:
		if got.err != nil {
			t.Fatalf("the sender failed: %v", got.err)
		}
		return got
	case <-ctx.Done():
		t.Fatal("the sender received nothing")
		return sent{}
	}
}

// setResponseCalls are the set-response calls the fake received.
func (h *harness) setResponseCalls() []fakehooksvc.Received {
	var out []fakehooksvc.Received
	for _, r := range h.fake.Received() {
		if strings.HasSuffix(r.Path, "/response") {
			out = append(out, r)
		}
	}
	return out
}

// TestSetResponseAnswersSender: a sender held by a listening token
// receives exactly the status, content and headers set; the key goes to
// the API only, and the result says the sender was waiting.
func TestSetResponseAnswersSender(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h := connectFake(t, fakehooksvc.Options{After: neverAfter}, config.Config{APIKey: envKey})
	id := h.createToken(t, map[string]any{"listen": 5})
	sender := h.sender(ctx, id, "application/json", `{"event":"order.paid"}`)
	rid := h.held(ctx, t, id, 1)
	res := h.call(t, "set_response", map[string]any{
		"token_id": id, "request_id": rid, "status": 202, "content": "queued: é",
		"headers": map[string]any{"X-Reply": "from the assistant", "Content-Type": "text/plain; charset=utf-8"},
	})
	if res.IsError {
		t.Fatal(mcptest.Text(res))
	}
	got := received(ctx, t, sender)
	if got.status != 202 || got.body != "queued: é" || got.header.Get("X-Reply") != "from the assistant" || got.header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("the sender received %d %q %v", got.status, got.body, got.header)
	}
	out := mcptest.Structured(t, res)
	want := map[string]any{
		"token_id": id, "request_id": rid, "sender_waiting": true,
		"message": "The sender of request " + rid + " was waiting and received HTTP 202, 10 bytes of content, 2 header(s) (the API answered {\"status\":3}).",
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	// Every value is in the text too.
	text := mcptest.Text(res)
	contains(t, text, want["message"].(string), `"sender_waiting":true`, `"request_id":"`+rid+`"`)
	calls := h.setResponseCalls()
	if len(calls) != 1 {
		t.Fatalf("%d set-response calls, want 1", len(calls))
	}
	call := calls[0]
	var body map[string]any
	if err := json.Unmarshal(call.Body, &body); err != nil {
		t.Fatal(err)
	}
	if call.Method != "PUT" || call.Path != "/token/"+id+"/request/"+rid+"/response" || call.Header.Get("Api-Key") != envKey ||
		body["content"] != base64.StdEncoding.EncodeToString([]byte("queued: é")) || body["status"] != 202.0 {
		t.Errorf("the API got %s %s, key %q, body %s", call.Method, call.Path, call.Header.Get("Api-Key"), call.Body)
	}
	for _, r := range h.fake.Received() {
		if r.Path == "/"+id && r.Header.Get("Api-Key") != "" {
			t.Error("the capture URL received the key")
		}
	}
	// A second answer to the same request (a retry by the model) finds the
	// sender gone, and is told that an earlier answer may be why.
	again := h.call(t, "set_response", map[string]any{"token_id": id, "request_id": rid, "status": 500})
	if out := mcptest.Structured(t, again); again.IsError || out["sender_waiting"] != false {
		t.Errorf("a second answer: %v", out)
	}
	contains(t, mcptest.Text(again), "an earlier set_response had answered it")
}

// TestSetResponseSlackChallenge: Slack's url_verification: the assistant
// reads the challenge the sender posted and answers it as Slack expects,
// the challenge alone as plain text.
func TestSetResponseSlackChallenge(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h := connectFake(t, fakehooksvc.Options{After: neverAfter}, config.Config{})
	id := h.createToken(t, map[string]any{"listen": 10})
	// Slack's own example (api.slack.com/events/url_verification).
	challenge := "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"
	sender := h.sender(ctx, id, "application/json", `{"token":"Jhj5dZrVaK7ZwHHjRyZWjbDl","challenge":"`+challenge+`","type":"url_verification"}`)
	h.held(ctx, t, id, 1)
	// The assistant reads the challenge from the capture.
	latest := h.ok(t, "get_latest_request", map[string]any{"token_id": id})
	var event struct{ Challenge string }
	if err := json.Unmarshal([]byte(latest["body"].(string)), &event); err != nil || event.Challenge != challenge {
		t.Fatalf("the captured body %v: %v", latest["body"], err)
	}
	// The token as the user has it at hand: the capture URL pasted into
	// Slack's settings.
	out := h.ok(t, "set_response", map[string]any{
		"token_id": h.url + "/" + id, "request_id": latest["request_id"], "status": 200, "content": event.Challenge,
		"headers": map[string]any{"content-type": "text/plain"},
	})
	got := received(ctx, t, sender)
	if got.status != 200 || got.body != challenge || got.header.Get("Content-Type") != "text/plain" || out["sender_waiting"] != true || out["token_id"] != id {
		t.Errorf("Slack received %d %q %v; result %v", got.status, got.body, got.header, out)
	}
}

// TestSetResponseRetry: a 500 set for a sender makes it retry, and the
// retry, held in turn, is answered 200.
func TestSetResponseRetry(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h := connectFake(t, fakehooksvc.Options{After: neverAfter}, config.Config{})
	id := h.createToken(t, map[string]any{"listen": 3})
	var statuses []int
	for attempt := 1; attempt <= 2; attempt++ {
		sender := h.sender(ctx, id, "application/json", fmt.Sprintf(`{"attempt":%d}`, attempt))
		rid := h.held(ctx, t, id, attempt)
		status, content := 500, `{"error":"try again"}`
		if attempt == 2 {
			status, content = 200, `{"ok":true}`
		}
		h.ok(t, "set_response", map[string]any{"token_id": id, "request_id": rid, "status": status, "content": content,
			"headers": map[string]any{"Content-Type": "application/json", "Retry-After": "1"}})
		got := received(ctx, t, sender)
		if got.body != content {
			t.Errorf("attempt %d received %q, want %q", attempt, got.body, content)
		}
		statuses = append(statuses, got.status)
	}
	if !cmp.Equal(statuses, []int{500, 200}) {
		t.Errorf("the sender received %v, want 500 then 200", statuses)
	}
}

// TestSetResponseSenderGone: once listen seconds pass (the fake's timer,
// fired by the test) the sender has its default answer and is gone: the
// result says no sender was waiting and how to have one held. A token
// that does not listen holds none.
func TestSetResponseSenderGone(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	timer := make(chan time.Time)
	waits := make(chan time.Duration, 10)
	h := connectFake(t, fakehooksvc.Options{After: func(d time.Duration) <-chan time.Time {
		waits <- d
		return timer
	}}, config.Config{})
	id := h.createToken(t, map[string]any{"listen": 4, "default_status": 201, "default_content": "default"})
	sender := h.sender(ctx, id, "text/plain", "hello")
	rid := h.held(ctx, t, id, 1)
	select {
	case timer <- time.Time{}:
	case <-ctx.Done():
		t.Fatal("the held sender never waited on the listen timer")
	}
	if got := received(ctx, t, sender); got.status != 201 || got.body != "default" {
		t.Errorf("after listen the sender received %d %q, want the token's 201 default", got.status, got.body)
	}
	if d := <-waits; d != 4*time.Second {
		t.Errorf("the sender was held %v, want listen's 4s", d)
	}
	res := h.call(t, "set_response", map[string]any{"token_id": id, "request_id": rid, "status": 200, "content": "late"})
	out := mcptest.Structured(t, res)
	if res.IsError || out["sender_waiting"] != false {
		t.Errorf("result %v", out)
	}
	contains(t, mcptest.Text(res), "No sender was waiting for request "+rid, "HTTP 200, 4 bytes of content, 0 header(s); token "+id+" listens 4 s now", `the API answered {"status":2}`, "nothing was delivered", "update_token listen, 1 to 10 s", `"sender_waiting":false`)

	// listen 0: the sender is answered at once; nothing holds it.
	h.ok(t, "update_token", map[string]any{"token_id": id, "listen": 0})
	if got := received(ctx, t, h.sender(ctx, id, "text/plain", "now")); got.status != 201 {
		t.Errorf("with listen 0 the sender received %d", got.status)
	}
	rid = h.held(ctx, t, id, 2)
	res = h.call(t, "set_response", map[string]any{"token_id": id, "request_id": rid, "status": 200})
	if out := mcptest.Structured(t, res); res.IsError || out["sender_waiting"] != false {
		t.Errorf("with listen 0: %v", out)
	}
	contains(t, mcptest.Text(res), "token "+id+" does not listen now (listen 0)")
}

// TestSetResponseAnswers: an answer of another shape is shown and not
// read as delivered; a refusal is an error; nothing is sent twice.
func TestSetResponseAnswers(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "x")
	rid := h.ok(t, "get_latest_request", map[string]any{"token_id": id})["request_id"].(string)
	path := "/token/" + id + "/request/" + rid + "/response"

	h.fake.Inject(fakehooksvc.Fault{Method: "PUT", Path: path, Status: 200, Body: `{"status":1}`})
	res := h.call(t, "set_response", map[string]any{"token_id": id, "request_id": rid, "status": 200})
	out := mcptest.Structured(t, res)
	if _, said := out["sender_waiting"]; said {
		t.Errorf("an answer of another shape: %v", out)
	}
	contains(t, mcptest.Text(res), `answered {"status":1}, which does not say whether a sender was waiting`, "token "+id+" does not listen now (listen 0)", "update_token listen, 1 to 10 s")

	h.fake.Inject(fakehooksvc.Fault{Method: "PUT", Path: path, Status: 503})
	before := len(h.setResponseCalls())
	contains(t, h.failure(t, "set_response", map[string]any{"token_id": id, "request_id": rid, "status": 200}),
		"Setting the response of request "+rid+" of token "+id+" failed: the capture API answered 503",
		"Whether the response was set, and the sender received it, is unknown", "a second set_response would find no sender waiting")
	if n := len(h.setResponseCalls()) - before; n != 1 {
		t.Errorf("a 503 was sent %d times, want once: a second try would find no sender and hide the first", n)
	}

	// A rate limit sets nothing, and the sender is held for seconds only:
	// waiting out a Retry-After of a minute leaves nobody to answer.
	h.fake.Inject(fakehooksvc.Fault{Method: "PUT", Path: path, Status: 429, RetryAfter: "60"})
	before = len(h.setResponseCalls())
	contains(t, h.failure(t, "set_response", map[string]any{"token_id": id, "request_id": rid, "status": 200}),
		"rate limited by the capture API (HTTP 429)", "Nothing was set", "10 s at most", "have the sender send again")
	if n := len(h.setResponseCalls()) - before; n != 1 {
		t.Errorf("a 429 was sent %d times, want once", n)
	}

	unknown := "00000000-0000-4000-8000-000000000001"
	contains(t, h.failure(t, "set_response", map[string]any{"token_id": id, "request_id": unknown, "status": 200}),
		"request "+unknown+" of token "+id+" was not found or expired (HTTP 404)", "list_requests shows the token's request ids", "Nothing was set")
}

// TestSetResponseBadArguments: every bad argument is refused, naming the
// argument, the rule and the fix, with nothing sent.
func TestSetResponseBadArguments(t *testing.T) {
	h := connect(t, config.Config{APIKey: envKey, SigningSecrets: map[signature.Provider]config.SigningSecret{
		"stripe": {Variable: "STRIPE_WEBHOOK_SECRET", Value: responseSigningSecret},
		// GitHub's secret is the user's choice, and may read as a header name.
		"github": {Variable: "GH_SECRET", Value: wordySecret},
	}})
	id := h.createToken(t, nil)
	rid := "0e1d2c3b-4a59-4687-9564-738291a0b1c2"
	many := map[string]any{}
	for i := range 51 {
		many[fmt.Sprintf("X-H%d", i)] = "v"
	}
	tests := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"no status", map[string]any{}, []string{"status is required", "200 to 599"}},
		{"status 1xx", map[string]any{"status": 101}, []string{"status must be a whole number from 200 to 599; got 101", "1xx are interim answers", "nothing was sent"}},
		{"status 600", map[string]any{"status": 600}, []string{"status must be a whole number from 200 to 599; got 600"}},
		{"status 200.5", map[string]any{"status": 200.5}, []string{"status must be a whole number from 200 to 599; got 200.5"}},
		{"status a string", map[string]any{"status": "200"}, []string{"status", "integer"}},
		{"content too long", map[string]any{"status": 200, "content": strings.Repeat("a", 1<<20+1)}, []string{"content is 1048577 bytes; set_response sends at most 1048576 (1 MiB)"}},
		{"content with 204", map[string]any{"status": 204, "content": "x"}, []string{"content must be left out with status 204", "use 200"}},
		{"too many headers", map[string]any{"status": 200, "headers": many}, []string{"headers may hold at most 50 entries; got 51"}},
		{"bad header name", map[string]any{"status": 200, "headers": map[string]any{"Bad Name": "v"}}, []string{"headers:", "Nothing was sent"}},
		{"connection header", map[string]any{"status": 200, "headers": map[string]any{"content-length": "5"}}, []string{`header "content-length" cannot be set`, "the service writes them itself", "leave it out"}},
		{"header injection", map[string]any{"status": 200, "headers": map[string]any{"X-A": "v\r\nSet-Cookie: a=b"}}, []string{`header "X-A": a value is one line of printable ASCII of at most 8000 bytes, without control characters`}},
		{"key in content", map[string]any{"status": 200, "content": "key=" + envKey}, []string{"the content holds a secret (the API key or a configured signing secret)", "remove it; nothing was sent"}},
		{"key in a header, any case", map[string]any{"status": 200, "headers": map[string]any{"X-Echo": strings.ToUpper(callKey)}, "api_key": callKey}, []string{`the header "X-Echo" holds a secret`}},
		{"key in base64 in content", map[string]any{"status": 200, "content": base64.StdEncoding.EncodeToString([]byte("user:" + envKey))}, []string{"the content holds a secret"}},
		{"key percent-encoded in a header", map[string]any{"status": 200, "headers": map[string]any{"Location": "https://example.com/?k=" + percentAll(envKey)}}, []string{`the header "Location" holds a secret`}},
		{"key partly JSON-escaped in content", map[string]any{"status": 200, "content": `{"k":"\u0065nv-key-0123456789"}`}, []string{"the content holds a secret"}},
		{"key as HTML references in content", map[string]any{"status": 200, "content": "<p>&#101;&#x6e;v-key-0123456789</p>"}, []string{"the content holds a secret"}},
		{"key in a header name", map[string]any{"status": 200, "headers": map[string]any{"X-" + envKey: "v"}}, []string{"the name of a header holds a secret"}},
		{"signing secret in content", map[string]any{"status": 200, "content": `{"secret":"` + responseSigningSecret + `"}`}, []string{"the content holds a secret (the API key or a configured signing secret)"}},
		{"signing secret without whsec_ in a header", map[string]any{"status": 200, "headers": map[string]any{"X-S": strings.TrimPrefix(responseSigningSecret, "whsec_")}}, []string{`the header "X-S" holds a secret`}},
		{"key in the name of a bad header", map[string]any{"status": 200, "headers": map[string]any{"K" + envKey: "a\nb"}}, []string{"a value is one line"}},
		{"key in the name of a header given twice", map[string]any{"status": 200, "headers": map[string]any{"K" + envKey: "a", "k" + envKey: "b"}}, []string{"are one header"}},
		{"signing secret in the name of a bad header", map[string]any{"status": 200, "headers": map[string]any{strings.TrimPrefix(responseSigningSecret, "whsec_"): "\u00e9"}}, []string{"a value is one line"}},
		{"a secret that reads as a header name, in a bad header", map[string]any{"status": 200, "headers": map[string]any{wordySecret: "a\nb"}}, []string{"a value is one line"}},
		{"a secret that reads as a header name, as a connection header", map[string]any{"status": 200, "headers": map[string]any{"Connection": "x", wordySecret: "v"}}, []string{"cannot be set"}},
		{"a secret that reads as a header name, given twice", map[string]any{"status": 200, "headers": map[string]any{wordySecret: "a", strings.ToUpper(wordySecret): "b"}}, []string{"are one header"}},
		{"value with outer spaces", map[string]any{"status": 200, "headers": map[string]any{"X-A": " padded\t"}}, []string{`header "X-A": a value has no spaces or tabs at its start or end`, "HTTP drops them"}},
		{"content with 205", map[string]any{"status": 205, "content": "x"}, []string{"content must be left out with status 205"}},
		{"one header in two cases", map[string]any{"status": 200, "headers": map[string]any{"X-Reply": "a", "x-reply": "b"}}, []string{`headers "X-Reply" and "x-reply" are one header`, "HTTP header names ignore case", "give it once"}},
		{"non-ASCII value", map[string]any{"status": 200, "headers": map[string]any{"X-A": "caf\u00e9"}}, []string{`header "X-A": a value is one line of printable ASCII`, "percent-encode"}},
		{"a character some servers cut to a line feed", map[string]any{"status": 200, "headers": map[string]any{"X-A": "a\u010aSet-Cookie: b=c"}}, []string{`header "X-A": a value is one line of printable ASCII`}},
		{"line separator", map[string]any{"status": 200, "headers": map[string]any{"X-A": "a\u2028b"}}, []string{`header "X-A": a value is one line of printable ASCII`}},
		{"obs-fold", map[string]any{"status": 200, "headers": map[string]any{"X-A": "a\r\n b"}}, []string{`header "X-A": a value is one line of printable ASCII`}},
		{"request id", map[string]any{"status": 200, "request_id": "latest"}, []string{"request_id must be a request UUID", "list_requests"}},
		{"unknown argument", map[string]any{"status": 200, "content_type": "text/plain"}, []string{"unknown argument", "set_response accepts only"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.fake.Reset()
			args := map[string]any{"token_id": id, "request_id": rid}
			for k, v := range tt.args {
				args[k] = v
			}
			text := h.failure(t, "set_response", args)
			contains(t, text, tt.want...)
			if strings.Contains(text, envKey) || strings.Contains(strings.ToLower(text), strings.ToLower(callKey)) || strings.Contains(text, strings.TrimPrefix(responseSigningSecret, "whsec_")) || strings.Contains(strings.ToLower(text), wordySecret) {
				t.Errorf("the error shows a key: %s", text)
			}
			if calls := h.apiCalls(); len(calls) != 0 {
				t.Errorf("sent %v, want nothing", calls)
			}
		})
	}
}

// responseSigningSecret is a configured signing secret, which no response
// may carry to a sender.
const responseSigningSecret = "whsec_c2lnbmluZy1zZWNyZXQtZm9yLXRlc3Rz"

// wordySecret is a signing secret as a user may choose one.
const wordySecret = "my-github-hook-secret"

// percentAll writes every byte of s as a percent escape.
func percentAll(s string) string {
	var b strings.Builder
	for i := range len(s) {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}
