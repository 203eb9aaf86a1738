package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestReadRetries: reads are retried on 429, 502, 503 and 504, at most 3
// times, waiting what Retry-After asks (up to 10 s), else backing off.
func TestReadRetries(t *testing.T) {
	tests := []struct {
		name      string
		faults    []fakehooksvc.Fault
		wantWaits []time.Duration
		wantErr   string // empty: the call succeeds
	}{
		{
			name:      "429 with Retry-After, twice",
			faults:    []fakehooksvc.Fault{{Method: "GET", Status: 429, RetryAfter: "2", Times: 2}},
			wantWaits: []time.Duration{2 * time.Second, 2 * time.Second},
		},
		{
			name:      "502 then 504 without Retry-After",
			faults:    []fakehooksvc.Fault{{Method: "GET", Status: 502}, {Method: "GET", Status: 504}},
			wantWaits: []time.Duration{500 * time.Millisecond, time.Second},
		},
		{
			name:      "503 four times gives up after 3 retries",
			faults:    []fakehooksvc.Fault{{Method: "GET", Status: 503, Body: "upstream is down", Times: 4}},
			wantWaits: []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second},
			wantErr:   "the capture API answered 503 Service Unavailable: upstream is down (after 3 retries)",
		},
		{
			name:    "429 asking for more than 10 s is not retried",
			faults:  []fakehooksvc.Fault{{Method: "GET", Status: 429, RetryAfter: "60"}},
			wantErr: "rate limited by the capture API (HTTP 429); it asks to wait 60 s before trying again",
		},
		{
			name:      "429 without Retry-After after 3 retries",
			faults:    []fakehooksvc.Fault{{Method: "GET", Status: 429, Times: 4}},
			wantErr:   "it did not say how long to wait: try again in a minute (gave up after 3 retries)",
			wantWaits: []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second},
		},
		{
			name:    "500 is not retried",
			faults:  []fakehooksvc.Fault{{Method: "GET", Status: 500, Body: "<html>Whoops</html>"}},
			wantErr: "the capture API answered 500 Internal Server Error: <html>Whoops</html>",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := connect(t, config.Config{})
			id := h.createToken(t, nil)
			for _, f := range tt.faults {
				h.fake.Inject(f)
			}
			h.fake.Reset()
			res := h.call(t, "get_token", map[string]any{"token_id": id})
			if tt.wantErr == "" && res.IsError {
				t.Fatalf("failed: %s", mcptest.Text(res))
			}
			if tt.wantErr != "" {
				if !res.IsError {
					t.Fatal("succeeded, want an error")
				}
				contains(t, mcptest.Text(res), tt.wantErr)
			}
			if diff := cmp.Diff(tt.wantWaits, h.recordedWaits()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if got, want := len(h.apiCalls()), len(tt.wantWaits)+1; got != want {
				t.Errorf("the API received %d requests, want %d", got, want)
			}
		})
	}
}

func TestWritesAreNotRetried(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	tests := []struct {
		tool string
		args map[string]any
	}{
		{"create_token", nil},
		{"delete_token", map[string]any{"token_id": id}},
		{"delete_requests", map[string]any{"token_id": id, "all": true}},
	}
	for _, tt := range tests {
		h.fake.Reset()
		h.fake.Inject(fakehooksvc.Fault{Status: 503, RetryAfter: "1"})
		contains(t, h.failure(t, tt.tool, tt.args), "the capture API answered 503")
		if got := len(h.apiCalls()); got != 1 {
			t.Errorf("%s: the API received %d requests, want 1", tt.tool, got)
		}
	}
	if waits := h.recordedWaits(); len(waits) != 0 {
		t.Errorf("a write waited to retry: %v", waits)
	}
}

// TestRetryWithinTimeout: a wait that would outlast the call's timeout is
// not taken.
func TestRetryWithinTimeout(t *testing.T) {
	h := connect(t, config.Config{Timeout: 1500 * time.Millisecond})
	id := h.createToken(t, nil)
	h.fake.Inject(fakehooksvc.Fault{Method: "GET", Status: 429, RetryAfter: "2"})
	contains(t, h.failure(t, "get_token", map[string]any{"token_id": id}), "it asks to wait 2 s")
	if waits := h.recordedWaits(); len(waits) != 0 {
		t.Errorf("waited %v past the timeout", waits)
	}
}

// TestWrongAPIURL: an API URL that answers 404 to the API's paths is said
// to be the wrong base URL, not a missing token, and the path to check named.
func TestWrongAPIURL(t *testing.T) {
	h := connect(t, config.Config{})
	wrong := h.reconnect(t, config.Config{APIURL: mustParse(t, h.url+"/not-the-api")})
	contains(t, wrong.failure(t, "create_token", nil), "Creating a token failed: "+h.url+"/not-the-api answered HTTP 404 to POST /token (Not found.): "+
		"nothing is served there, so "+h.url+"/not-the-api is not the capture API's base URL. Check the path of HOOKSVC_API_URL (--api-url)")
}

// TestUnreachableAPI: a refused connection says what was being done, that
// nothing listens there, and which setting holds the URL.
func TestUnreachableAPI(t *testing.T) {
	h := connect(t, config.Config{})
	addr := mcptest.ClosedPort(t)
	h2 := h.reconnect(t, config.Config{APIURL: mustParse(t, "http://"+addr)})
	contains(t, h2.failure(t, "create_token", nil), "Creating a token failed: could not reach the capture API at http://"+addr+
		": the connection to "+addr+" was refused: no server is listening there. Check the URL's host and port, and that the server is running. "+
		"The URL comes from HOOKSVC_API_URL (--api-url)")
	id := h.createToken(t, nil)
	contains(t, h2.failure(t, "list_requests", map[string]any{"token_id": id}), "Listing the requests of token "+id+" failed: could not reach the capture API")
}

// TestAPIURLIsAWebPage: an API URL that answers with a web page, whatever
// its status, is said to be a web page and not the API, by its title.
func TestAPIURLIsAWebPage(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
		io.WriteString(w, "<!DOCTYPE html><html><head><title>Acme Home</title></head><body>"+r.Header.Get("Api-Key")+"</body></html>")
	}))
	t.Cleanup(site.Close)
	h := connect(t, config.Config{})
	page := h.reconnect(t, config.Config{APIURL: mustParse(t, site.URL), APIKey: envKey})
	const id = "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d"
	for _, call := range []struct {
		tool, doing, status string
		args                map[string]any
	}{
		{"get_token", "Reading token " + id, "HTTP 200", map[string]any{"token_id": id}},
		{"create_token", "Creating a token", "HTTP 405 Method Not Allowed", nil},
	} {
		text := page.failure(t, call.tool, call.args)
		contains(t, text, call.doing+" failed: "+site.URL+" answered "+call.status+` with a web page (HTML) titled "Acme Home", not the capture API's JSON: `+
			"that URL is a web page, not the API. HOOKSVC_API_URL (--api-url) must be the API's base URL (for the hosted service: https://webhook.site)")
	}
	if strings.Contains(page.logs.String(), envKey) {
		t.Error("the key shows in a log line")
	}
}

// TestAPIURLIsACaptureURL: HOOKSVC_API_URL set to a token's capture URL
// sends the API's requests there, where they are captured and answered with
// the token's default response. With a key set, a request without it goes
// first and is captured: no call sends anything more, and the key never
// goes there. Without a key, the first call is captured and says so, and
// later calls send nothing. Every call names the base URL to use, and no
// delete is reported done.
func TestAPIURLIsACaptureURL(t *testing.T) {
	h := connect(t, config.Config{})
	capture := h.createToken(t, nil)
	other := h.createToken(t, nil)
	calls := []struct {
		tool, doing string
		args        map[string]any
	}{
		{"create_token", "Creating a token", nil},
		{"get_token", "Reading token " + other, map[string]any{"token_id": other}},
		{"delete_token", "Deleting token " + other, map[string]any{"token_id": other}},
		{"list_requests", "Listing the requests of token " + other, map[string]any{"token_id": other}},
	}
	nothingSent := func(doing, how string) string {
		return doing + " failed: nothing was sent: HOOKSVC_API_URL (" + h.url + "/" + capture + ") is a capture URL of token " + capture +
			", not the capture API (" + how + "). Set HOOKSVC_API_URL to the service's base URL, " + h.url + ", when starting hookmcp"
	}

	keyed := h.reconnect(t, config.Config{APIURL: mustParse(t, h.url+"/"+capture), APIKey: envKey})
	h.fake.Reset()
	for _, call := range calls {
		text := keyed.failure(t, call.tool, call.args)
		contains(t, text, nothingSent(call.doing, "a request sent there without the key, to check, was captured"))
		if strings.Contains(text, envKey) || strings.Contains(text, "The API key was sent") {
			t.Errorf("%s: %s", call.tool, text)
		}
	}
	received := h.fake.Received()
	if len(received) != 1 || received[0].Header.Get("Api-Key") != "" {
		t.Errorf("the capture URL received %v, want one request without the key", received)
	}

	keyless := h.reconnect(t, config.Config{APIURL: mustParse(t, h.url+"/"+capture)})
	h.fake.Reset()
	for i, call := range calls {
		text := keyless.failure(t, call.tool, call.args)
		if i == 0 {
			contains(t, text, call.doing+" failed: HOOKSVC_API_URL ("+h.url+"/"+capture+") is a capture URL, not the capture API: "+
				"the request was captured by token "+capture+" and answered with its default response (HTTP 200, text/html) instead of the API's JSON. "+
				"Set HOOKSVC_API_URL to the service's base URL, "+h.url+", when starting hookmcp (and HOOKSVC_TOKEN_ID="+capture+" to make that token the default)")
		} else {
			contains(t, text, nothingSent(call.doing, "an earlier call was captured there"))
		}
	}
	if got := len(h.fake.Received()); got != 1 {
		t.Errorf("the capture URL received %d requests, want 1", got)
	}
	h.ok(t, "get_token", map[string]any{"token_id": other}) // the delete did not happen
}

// TestKeyRefused: a key that is sent and refused is said to be refused, by
// where it came from, and never shown; only a call that sent none is told
// to set one.
func TestKeyRefused(t *testing.T) {
	h := connect(t, config.Config{APIKey: envKey})
	private := h.createToken(t, map[string]any{"api_key": envKey})
	const wrongKey = "wrong-env-key-000000"
	wrong := h.reconnect(t, config.Config{APIKey: wrongKey})
	text := wrong.failure(t, "get_token", map[string]any{"token_id": private})
	contains(t, text, "Reading token "+private+" failed: the API key in HOOKSVC_API_KEY was refused (the API answered HTTP 401): "+
		"it is not a valid key, or not the key of the account that owns the token. Check the key in the account's settings and start hookmcp with the right one")
	text += wrong.failure(t, "get_token", map[string]any{"token_id": private, "api_key": "wrong-call-key-0000"})
	contains(t, text, "the api_key passed in this call was refused (the API answered HTTP 401)", "or leave api_key out to use HOOKSVC_API_KEY")
	for _, never := range []string{wrongKey, "wrong-call-key-0000", "Set HOOKSVC_API_KEY"} {
		if strings.Contains(text, never) {
			t.Errorf("%q shows in %q", never, text)
		}
	}
	keyless := h.reconnect(t, config.Config{})
	contains(t, keyless.failure(t, "get_token", map[string]any{"token_id": private}),
		"no API key was sent, and this needs one: the token is private to an account. Set HOOKSVC_API_KEY in hookmcp's environment to that account's key, or pass api_key")
}

// TestKeyNeverShown: the API key appears in no result, error or log line,
// even when the API echoes it.
func TestKeyNeverShown(t *testing.T) {
	h := connect(t, config.Config{APIKey: envKey})
	id := h.createToken(t, map[string]any{"default_content": "echo " + envKey})
	h.capture(t, id, "POST", "text/plain", "the key is "+envKey)
	var texts []string
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"get_token", map[string]any{"token_id": id}},
		{"list_requests", map[string]any{"token_id": id}},
		{"get_latest_request", map[string]any{"token_id": id}},
		{"get_latest_request", map[string]any{"token_id": id, "api_key": callKey}},
		{"get_token", map[string]any{"token_id": "00000000-0000-4000-8000-000000000000", "api_key": callKey}},
		{"update_token", map[string]any{"token_id": id, "alias": "x y"}},
	} {
		res := h.call(t, call.tool, call.args)
		texts = append(texts, mcptest.Text(res))
		structured, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(structured))
	}
	h.fake.Inject(fakehooksvc.Fault{Method: "GET", Status: 500, Body: "bad key " + envKey})
	texts = append(texts, h.failure(t, "get_token", map[string]any{"token_id": id}))
	h.fake.Inject(fakehooksvc.Fault{Method: "GET", Status: 500, Body: "bad key " + callKey})
	texts = append(texts, h.failure(t, "get_token", map[string]any{"token_id": id, "api_key": callKey}))
	texts = append(texts, h.logs.String())
	all := strings.Join(texts, "\n")
	for _, key := range []string{envKey, callKey} {
		if strings.Contains(all, key) {
			t.Errorf("the key %s shows in a result, error or log:\n%s", key, all)
		}
	}
	contains(t, all, "echo [REDACTED]", "the key is [REDACTED]", "bad key [REDACTED]")
}

func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hang.Close()
	defer close(release) // before Close, which waits for the handler
	h := connect(t, config.Config{})
	slow := h.reconnect(t, config.Config{APIURL: mustParse(t, hang.URL), Timeout: 200 * time.Millisecond})
	contains(t, slow.failure(t, "create_token", nil), "Creating a token failed: the capture API at "+hang.URL+" did not answer in time: timed out after 200 ms. "+
		"The time limit of one call is HOOKSVC_TIMEOUT (--timeout), 200ms here: raise it when starting hookmcp (up to 10m)")
}

// TestKeyRedactedInEveryEncoding: a key is redacted where the answer comes
// in, before any encoding: a body that is not UTF-8 (returned base64) holds
// no key once decoded, for the configured key and a call's own, and an API
// that writes JSON escapes (\u0065, \/) cannot slip a key past the redactor.
func TestKeyRedactedInEveryEncoding(t *testing.T) {
	h := connect(t, config.Config{APIKey: envKey})
	id := h.createToken(t, nil)
	for _, key := range []string{envKey, callKey} {
		own := h.createToken(t, map[string]any{"api_key": key})
		h.capture(t, own, "POST", "application/octet-stream", "\xff\xfe key="+key+" \x00")
		out := h.ok(t, "get_latest_request", map[string]any{"token_id": own, "api_key": key})
		body, err := base64.StdEncoding.DecodeString(out["body"].(string))
		if out["encoding"] != "base64" || err != nil {
			t.Fatalf("encoding %v, %v", out["encoding"], err)
		}
		if strings.Contains(string(body), key) || !strings.Contains(string(body), "key=[REDACTED] ") {
			t.Errorf("decoded body %q", body)
		}
	}
	escaped := `\u0065nv-key-0123456789`
	h.fake.Inject(fakehooksvc.Fault{Method: "GET", Status: 200, Times: 1,
		Body: `{"uuid":"` + id + `","default_content":"echo ` + escaped + `","url":"https:\/\/x\/` + strings.ReplaceAll(envKey, "-", `\u002d`) + `"}`})
	res := h.call(t, "get_token", map[string]any{"token_id": id})
	structured, _ := json.Marshal(res.StructuredContent)
	for _, text := range []string{string(structured), mcptest.Text(res)} {
		var decoded any
		if err := json.Unmarshal([]byte(text), &decoded); err != nil {
			t.Fatalf("not JSON: %v: %s", err, text)
		}
		again, _ := json.Marshal(decoded)
		if strings.Contains(string(again), envKey) || !strings.Contains(string(again), "echo [REDACTED]") {
			t.Errorf("decoded result holds the key or lost the marker: %s", again)
		}
	}
}

// panickingTransport stands for a fault deep below a handler.
type panickingTransport struct{}

func (panickingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	var m map[string]int
	m["boom"]++
	return nil, nil
}

// TestHandlerPanicIsAToolError: a panic under any tool or the resource is an
// error for that call, logged with its stack, and the server keeps serving.
func TestHandlerPanicIsAToolError(t *testing.T) {
	logs := &mcptest.SyncBuffer{}
	u, _ := url.Parse("http://127.0.0.1:1")
	server := NewServer(Options{
		Config:  config.Config{APIURL: u, Timeout: time.Second},
		HTTP:    &http.Client{Transport: panickingTransport{}},
		Logger:  slog.New(slog.NewTextHandler(logs, nil)),
		Version: "test",
	})
	session := mcptest.Connect(t, server)
	const id = "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d"
	for _, tool := range []string{"create_token", "get_token", "list_requests", "get_latest_request", "delete_requests", "delete_token"} {
		res := mcptest.Call(t, context.Background(), session, tool, map[string]any{"token_id": id})
		switch tool {
		case "create_token":
			res = mcptest.Call(t, context.Background(), session, tool, map[string]any{})
		case "delete_requests":
			res = mcptest.Call(t, context.Background(), session, tool, map[string]any{"token_id": id, "all": true})
		}
		if !res.IsError || !strings.Contains(mcptest.Text(res), "internal error in "+tool+"; the server keeps running") {
			t.Errorf("%s: isError=%v %q", tool, res.IsError, mcptest.Text(res))
		}
	}
	_, err := session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: requestsURI(id)})
	if err == nil || !strings.Contains(err.Error(), "internal error in reading") {
		t.Errorf("resource: %v", err)
	}
	contains(t, logs.String(), "a handler panicked", "assignment to entry in nil map", "goroutine")
}

// TestAPIErrorsBounded: however long the message the capture API (or
// whatever answers at HOOKSVC_API_URL) sends, in any of the shapes hookmcp
// quotes from (Laravel's validation errors, nested or flat, the error
// envelope, a bare message, a web page's title), with any status, an error
// quotes a bounded part of it: at most 2 KB in all, without the last-resort
// cut.
func TestAPIErrorsBounded(t *testing.T) {
	huge, _ := json.Marshal(strings.Repeat("m", 1_100_000))
	bodies := map[string]string{
		"validation":      `{"message":"The given data was invalid.","errors":{"alias":[` + string(huge) + `]}}`,
		"flat validation": `{"alias":[` + string(huge) + `],"cors":[` + string(huge) + `]}`,
		"envelope":        `{"success":false,"error":{"message":` + string(huge) + `}}`,
		"message":         `{"message":` + string(huge) + `}`,
		"web page":        `<html><head><title>` + strings.Repeat("t", 1_100_000) + `</title></head></html>`,
		"plain":           strings.Repeat("p", 1_100_000),
	}
	refused := 0
	for _, status := range []int{200, 400, 401, 403, 404, 422, 500} {
		for shape, body := range bodies {
			h := connect(t, config.Config{})
			id := h.createToken(t, nil)
			h.fake.Inject(fakehooksvc.Fault{Path: "/token", Status: status, Body: body})
			res := h.call(t, "update_token", map[string]any{"token_id": id, "cors": true})
			if !res.IsError {
				continue // a 200 with a body the tool takes
			}
			refused++
			if text := mcptest.Text(res); len(text) > 2_048 || strings.Contains(text, "the error was cut") {
				t.Errorf("%d %s: the error is %d bytes: %.300s…", status, shape, len(text), text)
			}
		}
	}
	if refused < 35 {
		t.Errorf("only %d of the answers were errors", refused)
	}
}
