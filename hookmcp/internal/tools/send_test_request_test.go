package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/unicode/norm"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
	"github.com/mcpforge/servers/shared/redact"
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
		"body":               {"body": `{"token":"` + envKey + `"}`},
		"header":             {"headers": map[string]any{"Authorization": "Bearer " + envKey}},
		"query":              {"query": map[string]any{"k": envKey}},
		"path":               {"path": "x/" + envKey},
		"path in capitals":   {"path": "x/" + strings.ToUpper(envKey)},
		"header in capitals": {"headers": map[string]any{"X-Token": strings.ToUpper(envKey)}},
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

// TestSendTestRequestPathNormalisers: behind a proxy that decodes and
// normalises the path as nginx, IIS, Tomcat and CDNs variously do, and
// routes by X-Original-URL or X-Rewrite-URL as IIS does
// (percent-decoding up to three times, overlong UTF-8, backslash as slash,
// Unicode folding, ;parameters cut, trailing dots trimmed, then dot
// segments resolved), no path given to send_test_request reaches anything
// but the token's own capture URL: each is refused (nothing sent) or sent
// and still below /{token}/ however it is read. The proxy forwards the
// path as it read it, so an escape would reach the API's DELETE
// /token/{id}/request: the token keeps every request. Plain paths are sent
// as given.
func TestSendTestRequestPathNormalisers(t *testing.T) {
	fake := fakehooksvc.New(fakehooksvc.Options{APIKeys: []string{envKey, callKey}})
	var (
		mu      sync.Mutex
		escaped []string
		home    string
	)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _, _ := strings.Cut(r.RequestURI, "?")
		if !strings.HasPrefix(raw, "/token") && home != "" {
			// IIS and older Symfony route by these headers in place of
			// the path.
			for _, routing := range []string{"X-Original-Url", "X-Rewrite-Url"} {
				if v := r.Header.Get(routing); v != "" {
					raw = v
				}
			}
			read := normaliseLikeProxies(raw)
			if read != home && !strings.HasPrefix(read, home+"/") {
				mu.Lock()
				escaped = append(escaped, r.Method+" "+raw+" read as "+read)
				mu.Unlock()
			}
			r.URL.Path, r.URL.RawPath = read, ""
		}
		fake.ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	h := serve(t, fake, proxy.URL, config.Config{APIKey: envKey})
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "keep me")
	home = "/" + id

	target := "token/" + id + "/request"
	hostile := []string{
		"%2e%2e/" + target, "%2E%2E/" + target, "%2e%2E/" + target, ".%2e/" + target, "%2e./" + target,
		"..%2f" + target, "%2e%2e%2f" + strings.ReplaceAll(target, "/", "%2f"), "%2e%2e%5c" + target, "..%5c" + target, "%5c..%5c" + target,
		"%252e%252e/" + target, "%25252e%25252e/" + target, "%252e%252e%252f" + target, "%255c..%255c" + target,
		"%c0%ae%c0%ae/" + target, "%C0%AE%C0%AE%C0%AF" + target, "%e0%80%ae%e0%80%ae/" + target, "..%c0%af" + target, "..%c1%9c" + target,
		"%u002e%u002e/" + target, "..;/" + target, ".;/..;/" + target, "x/..;/..;/" + target,
		"．．/" + target, "\uFE52\uFE52/" + target, "\u2025/" + target, "a／..／..／" + target, "a＼..＼..＼" + target,
		"％２ｅ％２ｅ/" + target, "%ef%bc%8e%ef%bc%8e/" + target,
		"../" + target, "a/../../" + target, "./../" + target, ".../" + target, ". ./" + target, ".. /" + target, "... /" + target,
	}
	for _, path := range hostile {
		res := h.call(t, "send_test_request", map[string]any{"token_id": id, "method": "DELETE", "path": path})
		if !res.IsError && strings.ContainsAny(path, "%;") {
			t.Errorf("path %q was sent; a path with %% or ; is refused", path)
		}
	}
	for _, header := range []string{"X-Original-URL", "x-rewrite-url", "X-HTTP-Method-Override", "X-Http-Method", "X-Method-Override"} {
		res := h.call(t, "send_test_request", map[string]any{"token_id": id, "headers": map[string]any{header: "/" + target}})
		if !res.IsError {
			t.Errorf("header %s was sent", header)
		}
	}
	plain := []string{"github/push", "a b/é", "404", "hook.json", "v1.2/x", "a..b", "日本/ünïcödé/x́", "x/y/z/", "a@b:c/(d)+e,f=g!h$i&j'k*~"}
	for _, path := range plain {
		res := h.call(t, "send_test_request", map[string]any{"token_id": id, "path": path})
		if res.IsError {
			t.Errorf("plain path %q refused: %s", path, mcptest.Text(res))
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, e := range escaped {
		t.Errorf("left the capture URL: %s", e)
	}
	page := h.ok(t, "list_requests", map[string]any{"token_id": id, "sorting": "oldest", "per_page": 1})
	if first := page["data"].([]any)[0].(map[string]any); first["content"] != "keep me" {
		t.Errorf("the token's first request is gone: %v", first)
	}
}

// normaliseLikeProxies reads an escaped path as the most lenient chain of
// servers would: up to three rounds of Unicode folding, percent-decoding
// (%uXXXX too), overlong UTF-8 read as ASCII, backslash as slash; then
// ;parameters cut, trailing dots and spaces trimmed from each segment, and
// dot segments resolved.
func normaliseLikeProxies(p string) string {
	overlong := strings.NewReplacer("\xc0\xae", ".", "\xc0\xaf", "/", "\xc1\x9c", "\\", "\xe0\x80\xae", ".", "\xe0\x80\xaf", "/")
	for range 3 {
		p = norm.NFKC.String(p)
		p = percentDecodeLoose(p)
		p = overlong.Replace(p)
		p = strings.ReplaceAll(p, "\\", "/")
	}
	segments := strings.Split(p, "/")
	for i, s := range segments {
		s, _, _ = strings.Cut(s, ";")
		if trimmed := strings.TrimRight(s, ". "); trimmed != "" || !strings.Contains(s, ".") {
			s = trimmed
		} else {
			s = strings.ReplaceAll(strings.TrimSpace(s), " ", "")
			if len(s) > 2 {
				s = ".."
			}
		}
		segments[i] = s
	}
	return path.Clean("/" + strings.Join(segments, "/"))
}

// percentDecodeLoose decodes %XX (either case) and %uXXXX, leaving any
// other % as it is.
func percentDecodeLoose(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '%' {
			if i+5 < len(p) && (p[i+1] == 'u' || p[i+1] == 'U') {
				if n, err := strconv.ParseUint(p[i+2:i+6], 16, 32); err == nil {
					b.WriteRune(rune(n))
					i += 5
					continue
				}
			}
			if i+2 < len(p) {
				if n, err := strconv.ParseUint(p[i+1:i+3], 16, 8); err == nil {
					b.WriteByte(byte(n))
					i += 2
					continue
				}
			}
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// TestSendTestRequestAnswerIsRedacted: a capture service (or a proxy
// before it) that echoes the API key into the answer's Content-Type,
// X-Request-Id (the hosted service's keys are UUIDs, as request ids are),
// a header's name and value, base64 in a header and the body shows it
// nowhere: not in any field of the result, nor in its text. And the
// request named is never the one X-Request-Id names: a forged id (another
// request of the token, captured meanwhile) is not taken; the one sent is
// found through the API by its cursor.
func TestSendTestRequestAnswerIsRedacted(t *testing.T) {
	const key = "0f8fad5b-d9cb-469f-a165-70867728950e"
	fake := fakehooksvc.New(fakehooksvc.Options{APIKeys: []string{key}})
	var forge atomic.Bool
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/token") {
			fake.ServeHTTP(w, r)
			return
		}
		requestID := key
		if forge.Load() {
			// Another sender's request, captured first: its id is the
			// one the answer names.
			other := httptest.NewRequest("POST", r.URL.Path, strings.NewReader("another sender"))
			rec := httptest.NewRecorder()
			fake.ServeHTTP(rec, other)
			requestID = rec.Header().Get("X-Request-Id")
		}
		rec := httptest.NewRecorder()
		fake.ServeHTTP(rec, r)
		for name, values := range rec.Header() {
			w.Header()[name] = values
		}
		w.Header().Set("Content-Type", "text/plain; key="+key)
		w.Header().Set("X-Request-Id", requestID)
		w.Header().Set("X-Echo-"+key, "1")
		w.Header().Set("X-Key", "Bearer "+key)
		w.Header().Set("X-Key-B64", base64.StdEncoding.EncodeToString([]byte(key)))
		w.WriteHeader(rec.Code)
		fmt.Fprintf(w, "you sent key %s", key)
	}))
	t.Cleanup(proxy.Close)
	h := serve(t, fake, proxy.URL, config.Config{APIKey: key})
	id := h.createToken(t, nil)
	secrets := redact.New(key)
	for _, forged := range []bool{false, true} {
		forge.Store(forged)
		res := h.call(t, "send_test_request", map[string]any{"token_id": id, "path": "hook", "body": fmt.Sprint("sent, forged ", forged)})
		if res.IsError {
			t.Fatalf("forged %v: %s", forged, mcptest.Text(res))
		}
		structured, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		for what, text := range map[string]string{"text": mcptest.Text(res), "structured content": string(structured)} {
			if secrets.Contains(text) || strings.Contains(strings.ToLower(text), key) {
				t.Errorf("forged %v: the key is in the result's %s: %s", forged, what, text)
			}
		}
		out := mcptest.Structured(t, res)
		contains(t, out["content_type"].(string), "text/plain; key="+redact.Redacted)
		got := h.ok(t, "get_request", map[string]any{"token_id": id, "request_id": out["request_id"]})
		if got["body"] != fmt.Sprint("sent, forged ", forged) {
			t.Errorf("forged %v: request_id %v names the request %v, not the one sent", forged, out["request_id"], got["body"])
		}
	}
}

// TestSendTestRequestPathBestFitRefused: characters that Windows best-fit
// conversion turns into / or \ (which NFKC leaves alone), and any other
// Unicode symbol or punctuation, are refused in a test path, naming the
// character; nothing is sent.
func TestSendTestRequestPathBestFitRefused(t *testing.T) {
	for _, p := range []string{
		"..\u2215..\u2215token\u2215x\u2215request", // DIVISION SLASH
		"..\u2044..\u2044token",                     // FRACTION SLASH
		"..\u2216..\u2216token",                     // SET MINUS (best-fit \)
		"..\u00a5..\u00a5token",                     // YEN SIGN (\ in cp932)
		"€/😀", "a\u00a0b", "x<y>", "a|b", "a\u200bb",
	} {
		segs, err := pathSegments(p)
		if err == nil {
			t.Errorf("path %q accepted as %q", p, segs)
			continue
		}
		if !strings.Contains(err.Error(), "send_test_request refuses") || !strings.Contains(err.Error(), "Nothing was sent") {
			t.Errorf("path %q: %v", p, err)
		}
	}
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	h.fake.Reset()
	res := h.call(t, "send_test_request", map[string]any{"token_id": id, "path": "..\u2215..\u2215token"})
	if !res.IsError || !strings.Contains(mcptest.Text(res), "U+2215") {
		t.Errorf("want a refusal naming U+2215: %s", mcptest.Text(res))
	}
	for _, r := range h.fake.Received() {
		if r.Method != "GET" {
			t.Errorf("sent %s %s", r.Method, r.Path)
		}
	}
}
