package tools

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/shared/mcptest"
)

// arrival is what a developer's server saw of one request.
type arrival struct {
	method, uri string
	header      http.Header
	body        string
}

// devServer is a loopback server standing for the developer's, answering
// each request with answer.
func devServer(t *testing.T, answer http.HandlerFunc) (*httptest.Server, chan arrival) {
	t.Helper()
	got := make(chan arrival, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- arrival{r.Method, r.RequestURI, r.Header.Clone(), string(body)}
		answer(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

// captureReplayable sends a webhook-like request to a token's capture URL,
// a path and query below it, headers a proxy adds among the sender's.
func (h *harness) captureReplayable(t *testing.T, id, body string, extra map[string]string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.url+"/"+id+"/hooks/stripe?attempt=2&q=it%27s", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Stripe/1.0 (+https://stripe.com/docs/webhooks)")
	req.Header.Set("Stripe-Signature", "t=1700000000,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd")
	req.Header.Set("X-Forwarded-For", "203.0.113.9")
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 400 {
		t.Fatalf("capture: HTTP %d", resp.StatusCode)
	}
}

const replayBody = "{\"id\": \"evt_1\", \"note\": \"it's $HOME `x`\"}"

// checkArrival checks that got is the captured request, below /dev.
func checkArrival(t *testing.T, got arrival) {
	t.Helper()
	if got.method != "POST" || got.uri != "/dev/hooks/stripe?attempt=2&q=it%27s" || got.body != replayBody {
		t.Errorf("arrived %s %s %q, want POST /dev/hooks/stripe?attempt=2&q=it%%27s and the captured body", got.method, got.uri, got.body)
	}
	for name, want := range map[string]string{
		"Content-Type":     "application/json",
		"User-Agent":       "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
		"Stripe-Signature": "t=1700000000,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd",
		"X-Forwarded-For":  "",
	} {
		if v := got.header.Get(name); v != want {
			t.Errorf("header %s = %q, want %q", name, v, want)
		}
	}
}

// TestReplayRequestSends: the captured request arrives at a loopback
// target byte for byte, below target's path, and the target's answer
// comes back with the note on timestamped signatures.
func TestReplayRequestSends(t *testing.T) {
	h := connect(t, config.Config{APIKey: envKey})
	id := h.createToken(t, nil)
	h.captureReplayable(t, id, replayBody, nil)
	dev, got := devServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Handled", "yes")
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, `{"received": true}`)
	})
	out := h.ok(t, "replay_request", map[string]any{"token_id": id, "target": dev.URL + "/dev"})
	checkArrival(t, <-got)
	if out["sent"] != true || out["status"] != float64(202) || out["body"] != `{"received": true}` || out["headers"].(map[string]any)["x-handled"].([]any)[0] != "yes" {
		t.Errorf("result %v, want sent, 202, the body and X-Handled", out)
	}
	if msg, _ := out["message"].(string); !strings.Contains(msg, "refused by the target as a replay") {
		t.Errorf("message %q does not warn of timestamped signatures", msg)
	}
}

// TestReplayRequestAsCurl: the rendered command, run by /bin/sh, makes
// curl send the captured request as it was; nothing is sent by the tool.
func TestReplayRequestAsCurl(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	h := connect(t, config.Config{APIKey: envKey})
	id := h.createToken(t, nil)
	h.captureReplayable(t, id, replayBody, nil)
	dev, got := devServer(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	out := h.ok(t, "replay_request", map[string]any{"token_id": id, "target": dev.URL + "/dev", "as_curl": true})
	if out["sent"] != false || len(got) != 0 {
		t.Fatalf("as_curl sent the request: %v", out)
	}
	cmd, _ := out["curl"].(string)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if stdout, err := exec.CommandContext(ctx, "/bin/sh", "-c", cmd).CombinedOutput(); err != nil || string(stdout) != "ok" {
		t.Fatalf("%s\n%v: %s", cmd, err, stdout)
	}
	checkArrival(t, <-got)
}

// TestReplayRequestRefuses: a target that is not loopback and not under
// --replay-to, a header override of the connection's, and a request that
// holds the API key are refused before anything is sent; as_curl shows
// the key redacted and says so.
func TestReplayRequestRefuses(t *testing.T) {
	h := connect(t, config.Config{APIKey: envKey})
	id := h.createToken(t, nil)
	h.captureReplayable(t, id, replayBody, map[string]string{"X-Api-Key": envKey})
	dev, got := devServer(t, func(http.ResponseWriter, *http.Request) {})
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"target": "https://example.com/hooks"}, "--replay-to"},
		{map[string]any{"target": "http://169.254.169.254/latest"}, "not a loopback address"},
		{map[string]any{"target": dev.URL, "headers": map[string]any{"Host": "x"}}, "not sent on a replay"},
		{map[string]any{"target": dev.URL + "?a=1"}, "query string"},
		{map[string]any{"target": dev.URL, "path": "x"}, "path must"},
		{map[string]any{"target": dev.URL}, "header (its name quoted below) holds the API key"},
	} {
		tt.args["token_id"] = id
		if msg := h.failure(t, "replay_request", tt.args); !strings.Contains(msg, tt.want) || strings.Contains(msg, envKey) {
			t.Errorf("%v: %s, want %q, never the key", tt.args, msg, tt.want)
		}
	}
	// A header override removing the key lets it go.
	h.ok(t, "replay_request", map[string]any{"token_id": id, "target": dev.URL, "headers": map[string]any{"X-Api-Key": ""}})
	if a := <-got; a.header.Get("X-Api-Key") != "" {
		t.Errorf("X-Api-Key arrived: %q", a.header.Get("X-Api-Key"))
	}
	if len(got) != 0 {
		t.Errorf("%d refused requests arrived", len(got))
	}
	out := h.ok(t, "replay_request", map[string]any{"token_id": id, "target": dev.URL, "as_curl": true})
	if cmd, _ := out["curl"].(string); strings.Contains(cmd, envKey) || !strings.Contains(cmd, "X-Api-Key: [REDACTED]") || !strings.Contains(out["message"].(string), "does not reproduce") {
		t.Errorf("as_curl of a request holding the key: %v", out)
	}
}

// TestReplayRequestNoRedirect: a target's redirect is the answer; where it
// points receives nothing.
func TestReplayRequestNoRedirect(t *testing.T) {
	h := connect(t, config.Config{APIKey: envKey})
	id := h.createToken(t, nil)
	h.captureReplayable(t, id, replayBody, nil)
	elsewhere, reached := devServer(t, func(http.ResponseWriter, *http.Request) {})
	dev, _ := devServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/x", http.StatusTemporaryRedirect)
	})
	out := h.ok(t, "replay_request", map[string]any{"token_id": id, "target": dev.URL})
	if out["status"] != float64(307) || !strings.Contains(out["message"].(string), "Redirects are not followed") || len(reached) != 0 {
		t.Errorf("result %v; %d requests reached the redirect's target", out, len(reached))
	}
}

// TestReplayRequestMultipart: a multipart capture, whose body the service
// does not keep, is rebuilt from its field and its downloaded file, under
// the captured boundary, and the result says it was rebuilt.
func TestReplayRequestMultipart(t *testing.T) {
	h := connect(t, config.Config{APIKey: envKey})
	id := h.createToken(t, nil)
	body, contentType := multipartBody()
	h.capture(t, id, http.MethodPost, contentType, body)
	dev, got := devServer(t, func(http.ResponseWriter, *http.Request) {})
	out := h.ok(t, "replay_request", map[string]any{"token_id": id, "target": dev.URL})
	if msg, _ := out["message"].(string); !strings.Contains(msg, "rebuilt from its fields and files") {
		t.Errorf("message %q does not say the body was rebuilt", msg)
	}
	a := <-got
	if a.header.Get("Content-Type") != contentType {
		t.Errorf("Content-Type %q, want the captured %q", a.header.Get("Content-Type"), contentType)
	}
	_, params, _ := mime.ParseMediaType(contentType)
	r := multipart.NewReader(strings.NewReader(a.body), params["boundary"])
	var parts []string
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%v in %q", err, a.body)
		}
		data, _ := io.ReadAll(p)
		parts = append(parts, p.FormName()+"|"+p.FileName()+"|"+string(data))
	}
	if want := []string{"event||upload", "report|report.bin|\xff\x00\xfe"}; strings.Join(parts, ";") != strings.Join(want, ";") {
		t.Errorf("parts %q, want %q", parts, want)
	}
}

// TestReplayRequestAnswerBounded: a target's long answer comes back cut
// at 64 KiB, saying so, and a key it echoes is redacted in the body, the
// headers and the text, whole even where it straddles the cut.
func TestReplayRequestAnswerBounded(t *testing.T) {
	h := connect(t, config.Config{APIKey: envKey})
	id := h.createToken(t, nil)
	h.captureReplayable(t, id, replayBody, nil)
	dev, _ := devServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Echo", envKey)
		// A second key straddles the 64 KiB cut.
		_, _ = io.WriteString(w, envKey+strings.Repeat("x", maxReplayAnswer-5-len(envKey))+envKey+strings.Repeat("x", 100<<10))
	})
	res := h.call(t, "replay_request", map[string]any{"token_id": id, "target": dev.URL})
	text := mcptest.Text(res)
	out := mcptest.Structured(t, res)
	body, _ := out["body"].(string)
	if res.IsError || len(body) > maxReplayAnswer || !strings.Contains(out["message"].(string), "the first 64 KiB of a longer body") {
		t.Errorf("body of %d bytes, message %v; want at most %d and the cut said", len(body), out["message"], maxReplayAnswer)
	}
	if strings.Contains(text, envKey[:5]) || !strings.Contains(text, `"x-echo":["[REDACTED]"]`) || !strings.HasPrefix(body, "[REDACTED]") {
		t.Errorf("the echoed key is not redacted everywhere: %.300s", text)
	}
}

// TestReplayRequestSecretInHeaderName: the key in a captured header's
// name, not its value, is refused too, and as_curl never shows it.
func TestReplayRequestSecretInHeaderName(t *testing.T) {
	h := connect(t, config.Config{APIKey: envKey})
	id := h.createToken(t, nil)
	h.captureReplayable(t, id, replayBody, map[string]string{"X-" + envKey: "1"})
	dev, got := devServer(t, func(http.ResponseWriter, *http.Request) {})
	if msg := h.failure(t, "replay_request", map[string]any{"token_id": id, "target": dev.URL}); !strings.Contains(msg, "holds the API key") || strings.Contains(strings.ToLower(msg), envKey) {
		t.Errorf("failure %q, want the key's header refused, never named", msg)
	}
	if len(got) != 0 {
		t.Errorf("the request arrived: %+v", <-got)
	}
	out := h.ok(t, "replay_request", map[string]any{"token_id": id, "target": dev.URL, "as_curl": true})
	if cmd, _ := out["curl"].(string); strings.Contains(strings.ToLower(cmd), envKey) || !strings.Contains(out["message"].(string), "does not reproduce") {
		t.Errorf("as_curl of a header named by the key: %v", out)
	}
}

// TestReplayRequestSecretInCompressedBody: a body sent gzip- or
// deflate-compressed holds the key the target reads once it inflates it;
// it is refused as a plain one is.
func TestReplayRequestSecretInCompressedBody(t *testing.T) {
	h := connect(t, config.Config{APIKey: envKey})
	dev, got := devServer(t, func(http.ResponseWriter, *http.Request) {})
	plain := `{"api_key": "` + envKey + `"}`
	for encoding, compress := range map[string]func(io.Writer) io.WriteCloser{
		"gzip":    func(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) },
		"deflate": func(w io.Writer) io.WriteCloser { return zlib.NewWriter(w) },
	} {
		var buf bytes.Buffer
		zw := compress(&buf)
		_, _ = io.WriteString(zw, plain)
		zw.Close()
		id := h.createToken(t, nil)
		h.captureReplayable(t, id, buf.String(), map[string]string{"Content-Encoding": encoding})
		if msg := h.failure(t, "replay_request", map[string]any{"token_id": id, "target": dev.URL}); !strings.Contains(msg, "body (once inflated) holds the API key") {
			t.Errorf("%s: failure %q, want the compressed body refused", encoding, msg)
		}
		out := h.ok(t, "replay_request", map[string]any{"token_id": id, "target": dev.URL, "as_curl": true})
		if cmd, _ := out["curl"].(string); strings.Contains(cmd, "Content-Encoding") || !strings.Contains(cmd, `{"api_key": "[REDACTED]"}`) {
			t.Errorf("%s: as_curl shows %q, want the body inflated and redacted", encoding, cmd)
		}
	}
	if len(got) != 0 {
		t.Errorf("a request arrived: %+v", <-got)
	}
}
