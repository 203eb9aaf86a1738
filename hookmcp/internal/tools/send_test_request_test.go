package tools

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestSendTestRequest: the request reaches the token's capture URL as
// given, without the API key; the answer is the token's response; the
// captured request is named and readable.
func TestSendTestRequest(t *testing.T) {
	h := connect(t, config.Config{APIKey: envKey})
	id := h.createToken(t, map[string]any{"default_status": 201, "default_content": `{"ok":true}`, "default_content_type": "application/json"})
	h.fake.Reset()
	out := h.ok(t, "send_test_request", map[string]any{
		"token_id": id, "path": "/github/push", "query": map[string]any{"delivery": "42"},
		"headers": map[string]any{"X-GitHub-Event": "push"}, "body": `{"ref":"main"}`,
	})
	if out["status"] != 201.0 || out["body"] != `{"ok":true}` || out["encoding"] != "text" || out["content_type"] != "application/json" ||
		out["method"] != "POST" || out["url"] != h.url+"/"+id+"/github/push?delivery=42" {
		t.Errorf("result: %v", out)
	}
	var received []fakehooksvc.Received
	for _, r := range h.fake.Received() {
		if !strings.HasPrefix(r.Path, "/token") {
			received = append(received, r)
		}
	}
	if len(received) != 1 {
		t.Fatalf("the capture URL received %v, want the one request", received)
	}
	sent := received[0]
	if sent.Method != "POST" || sent.Path != "/"+id+"/github/push" || sent.Query.Get("delivery") != "42" || string(sent.Body) != `{"ref":"main"}` ||
		sent.Header.Get("X-GitHub-Event") != "push" || sent.Header.Get("Content-Type") != "application/json" {
		t.Errorf("sent: %v %v", sent, sent.Header)
	}
	if sent.Header.Get("Api-Key") != "" || strings.Contains(sent.String(), envKey) {
		t.Errorf("the API key reached the capture URL: %v", sent.Header)
	}
	got := h.ok(t, "get_request", map[string]any{"token_id": id, "request_id": out["request_id"]})
	if got["body"] != `{"ref":"main"}` || got["method"] != "POST" {
		t.Errorf("the captured request: %v", got)
	}
}

// TestSendTestRequestOtherSender: another sender's request, captured
// right after the test request, is the token's newest; the result still
// names the request sent (the first after the cursor of its method and
// path), and wait_for_request returns it next.
func TestSendTestRequestOtherSender(t *testing.T) {
	c := newClock()
	var h *harness
	var id string
	h = connectClock(t, fakehooksvc.Options{OmitRequestID: true}, c, func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			resp, err := next.RoundTrip(r)
			if err == nil && !strings.HasPrefix(r.URL.Path, "/token") {
				h.send(t, id, "POST", "another sender")
			}
			return resp, err
		})
	}, nil)
	id = h.createToken(t, nil)
	out := h.ok(t, "send_test_request", map[string]any{"token_id": id, "method": "get", "path": "ping", "body": "plain"})
	latest := h.ok(t, "get_latest_request", map[string]any{"token_id": id})
	if latest["body"] != "another sender" || out["request_id"] == latest["request_id"] || out["method"] != "GET" {
		t.Errorf("result: %v (the newest: %v)", out, latest["request_id"])
	}
	sent := h.ok(t, "get_request", map[string]any{"token_id": id, "request_id": out["request_id"]})
	if sent["body"] != "plain" || sent["content_type"] != "text/plain; charset=utf-8" {
		t.Errorf("the request named: %v", sent)
	}
}

// TestSendTestRequestNotListedYet: a service that does not list the
// capture yet is asked again a few times; then the result has no request
// id (the answer's X-Request-Id is never taken for one), and says so.
func TestSendTestRequestNotListedYet(t *testing.T) {
	c := newClock()
	h := connectClock(t, fakehooksvc.Options{}, c, func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if strings.HasPrefix(r.URL.Query().Get("query"), "sorting:>") {
				return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Request: r,
					Body: io.NopCloser(strings.NewReader(`{"data":[],"total":0,"per_page":20,"current_page":1,"is_last_page":true,"from":1,"to":0}`))}, nil
			}
			return next.RoundTrip(r)
		})
	}, nil)
	id := h.createToken(t, nil)
	out := h.ok(t, "send_test_request", map[string]any{"token_id": id, "body": "plain"})
	if _, named := out["request_id"]; named {
		t.Errorf("result: %v, want no request_id", out)
	}
	contains(t, out["note"].(string), "there is no request id")
	if got := c.paused(); len(got) != sentReadTries-1 {
		t.Errorf("paused %v, want %d pauses between %d reads", got, sentReadTries-1, sentReadTries)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestSendTestRequestStaysHome: no path reaches anything but the token's
// own capture URL on the configured service, and nothing holding the key
// is sent.
func TestSendTestRequestStaysHome(t *testing.T) {
	h := connect(t, config.Config{APIKey: envKey})
	id := h.createToken(t, nil)
	var strays atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { strays.Add(1) }))
	t.Cleanup(other.Close)
	otherHost := strings.TrimPrefix(other.URL, "http://")
	for _, path := range []string{
		"//" + otherHost + "/x", other.URL + "/", "@" + otherHost, "%2e%2e/%2e%2e/token", "a/../../b", "..%2f..%2f" + otherHost,
		"/\\" + otherHost, "%00/x", "\t/" + otherHost,
	} {
		h.fake.Reset()
		res := h.call(t, "send_test_request", map[string]any{"token_id": id, "path": path})
		captures := 0
		for _, r := range h.fake.Received() {
			switch {
			case r.Method == "GET" && r.Path == "/token/"+id+"/requests":
				// The listings that read the cursor and find the request.
			case !strings.HasPrefix(r.Path, "/"+id+"/") && r.Path != "/"+id:
				t.Errorf("path %q reached %s", path, r.Path)
			default:
				captures++
			}
		}
		if !res.IsError && captures != 1 {
			t.Errorf("path %q: %s", path, mcptest.Text(res))
		}
	}
	for name, args := range map[string]map[string]any{
		"body":   {"body": `{"token":"` + envKey + `"}`},
		"header": {"headers": map[string]any{"Authorization": "Bearer " + envKey}},
		"query":  {"query": map[string]any{"k": envKey}},
		"path":   {"path": "x/" + envKey},
	} {
		h.fake.Reset()
		args["token_id"] = id
		msg := h.failure(t, "send_test_request", args)
		contains(t, msg, "holds the API key", "nothing was sent")
		if strings.Contains(msg, envKey) || len(h.fake.Received()) != 0 {
			t.Errorf("%s: %s; sent %v", name, msg, h.fake.Received())
		}
	}
	if diff := cmp.Diff([]string(nil), h.apiCalls()); diff != "" {
		t.Errorf("API calls: %s", diff)
	}
	if n := strays.Load(); n != 0 {
		t.Errorf("another host on loopback received %d requests", n)
	}
}

// TestSendTestRequestSamePathSender: another sender posts the same body
// to the same method and path, without the query, between the cursor read
// and the capture; the result names the request sent, by X-Request-Id
// where the answer has it, else by what was sent (its query differs).
func TestSendTestRequestSamePathSender(t *testing.T) {
	for _, omit := range []bool{false, true} {
		c := newClock()
		var h *harness
		var id string
		h = connectClock(t, fakehooksvc.Options{OmitRequestID: omit}, c, func(next http.RoundTripper) http.RoundTripper {
			return roundTripFunc(func(r *http.Request) (*http.Response, error) {
				if !strings.HasPrefix(r.URL.Path, "/token") {
					other, err := http.NewRequest("POST", h.url+"/"+id+"/hook", strings.NewReader("mine"))
					if err != nil {
						return nil, err
					}
					other.Header.Set("Content-Type", "text/plain; charset=utf-8")
					resp, err := http.DefaultClient.Do(other)
					if err != nil {
						return nil, err
					}
					resp.Body.Close()
				}
				return next.RoundTrip(r)
			})
		}, nil)
		id = h.createToken(t, nil)
		out := h.ok(t, "send_test_request", map[string]any{"token_id": id, "path": "hook", "query": map[string]any{"a": "b"}, "body": "mine"})
		got := h.ok(t, "get_request", map[string]any{"token_id": id, "request_id": out["request_id"]})
		if got["url"] != h.url+"/"+id+"/hook?a=b" {
			t.Errorf("without X-Request-Id %v: named %v, another sender's request (%v)", omit, out["request_id"], got["url"])
		}
	}
}

// TestSendTestRequestParallel: sends of one server running at once never
// name the same request, even when they send the same thing and the
// answers carry no X-Request-Id.
func TestSendTestRequestParallel(t *testing.T) {
	for _, omit := range []bool{false, true} {
		c := newClock()
		h := connectClock(t, fakehooksvc.Options{OmitRequestID: omit}, c, nil, nil)
		for range 10 {
			id := h.createToken(t, nil)
			var wg sync.WaitGroup
			ids := make([]any, 2)
			for j := range ids {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, err := h.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "send_test_request", Arguments: map[string]any{"token_id": id, "body": "same"}})
					if err != nil || res.IsError {
						t.Errorf("send_test_request: %v %v", err, res)
						return
					}
					ids[j] = res.StructuredContent.(map[string]any)["request_id"]
				}()
			}
			wg.Wait()
			if ids[0] == nil || ids[0] == ids[1] {
				t.Errorf("without X-Request-Id %v: two parallel sends named %v and %v", omit, ids[0], ids[1])
			}
		}
	}
}

// TestSendTestRequestMarksNothingSeen: sending shows no request, so a
// wait that follows returns a real sender's request captured before the
// test one and never shown, then the test one, then nothing.
func TestSendTestRequestMarksNothingSeen(t *testing.T) {
	c := newClock()
	h := connectClock(t, fakehooksvc.Options{}, c, nil, nil)
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "real sender, never shown")
	h.ok(t, "send_test_request", map[string]any{"token_id": id, "body": "test"})
	for _, want := range []string{"real sender, never shown", "test", ""} {
		out := h.ok(t, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 1})
		if out["body"] != want || out["captured"] != (want != "") {
			t.Errorf("got %q (captured %v), want %q", out["body"], out["captured"], want)
		}
	}
}
