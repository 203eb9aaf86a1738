package tools

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/hookmcp/internal/signature"
	"github.com/mcpforge/servers/shared/mcptest"
)

// connectSigning is a server configured by cfg (its API URL and timeout
// filled in) on a fake whose clock, and the server's, is c: the fake
// stamps each capture's created_at with it.
func connectSigning(t *testing.T, cfg config.Config, c *clock) *harness {
	t.Helper()
	fake := fakehooksvc.New(fakehooksvc.Options{APIKeys: []string{envKey, callKey}, Now: c.Now})
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	return serveSigning(t, fake, srv.URL, cfg, c)
}

// serveSigning is a server configured by cfg on the API at apiURL (fake,
// when it is one), with clock c.
func serveSigning(t *testing.T, fake *fakehooksvc.Server, apiURL string, cfg config.Config, c *clock) *harness {
	t.Helper()
	cfg.APIURL, _ = url.Parse(apiURL)
	cfg.Timeout = 5 * time.Second
	h := &harness{fake: fake, url: apiURL, logs: &mcptest.SyncBuffer{}}
	server := NewServer(Options{
		Config:  cfg,
		HTTP:    NewHTTPClient("hookmcp-test"),
		Logger:  slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Version: "test",
		Sleep:   func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
		Now:     c.Now,
		Pause:   c.Pause,
	})
	h.session = mcptest.Connect(t, server)
	return h
}

// signed sends body with headers to token id's capture URL and returns the
// captured request's id.
func (h *harness) signed(t *testing.T, id, contentType, body string, headers map[string]string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.url+"/"+id+"/webhook", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 400 || resp.Header.Get("X-Request-Id") == "" {
		t.Fatalf("capture: HTTP %d, X-Request-Id %q", resp.StatusCode, resp.Header.Get("X-Request-Id"))
	}
	return resp.Header.Get("X-Request-Id")
}

// verdict calls verify_signature, which must succeed, checks that its
// text carries every value of its structured result and no secret, and
// returns the result.
func (h *harness) verdict(t *testing.T, args map[string]any, secrets ...string) map[string]any {
	t.Helper()
	res := h.call(t, "verify_signature", args)
	if res.IsError {
		t.Fatalf("verify_signature(%v): %s", args, mcptest.Text(res))
	}
	out := mcptest.Structured(t, res)
	text := mcptest.Text(res)
	for _, name := range []string{"request_id", "verdict", "expected", "message"} {
		if v, _ := out[name].(string); v == "" || !strings.Contains(text, v) {
			t.Errorf("%s = %q is not in the text: %s", name, v, text)
		}
	}
	h.noSecrets(t, text+h.logs.String(), secrets...)
	return out
}

// noSecrets fails when text holds a secret as it is, in base64 or in hex,
// or a 12-character part of one.
func (h *harness) noSecrets(t *testing.T, text string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		for _, form := range []string{s, base64.StdEncoding.EncodeToString([]byte(s)), strings.ToLower(strings.TrimPrefix(s, "whsec_"))} {
			for i := 0; i+12 <= len(form); i++ {
				if strings.Contains(text, form[i:i+12]) {
					t.Errorf("a secret shows (%q): %.400s", form[i:i+12], text)
					break
				}
			}
		}
	}
}

// GitHub's published example, https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries,
// and Slack's, https://api.slack.com/authentication/verifying-requests-from-slack.
const (
	githubDocSecret    = "It's a Secret to Everybody"
	githubDocBody      = "Hello, World!"
	githubDocSignature = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
	slackDocSecret     = "8f742231b10e8888abcd99yyyzzz85a5"
	slackDocTimestamp  = 1531420618
	slackDocBody       = "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c"
	slackDocSignature  = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503"
)

// TestVerifySignature: the providers' published examples, captured by the
// fake and checked through an MCP session, with the secret as an argument
// and from a variable named at startup; the latest request by default;
// each verdict; the capture time (the fake's clock) as what a timestamp is
// judged against; no secret in any result or log line.
func TestVerifySignature(t *testing.T) {
	c := newClock()
	c.now = time.Unix(slackDocTimestamp+20, 0)
	cfg := config.Config{SigningSecrets: map[signature.Provider]config.SigningSecret{"slack": {Variable: "SLACK_SIGNING_SECRET", Value: slackDocSecret}}}
	h := connectSigning(t, cfg, c)
	id := h.createToken(t, nil)
	github := h.signed(t, id, "text/plain", githubDocBody, map[string]string{"X-Hub-Signature-256": githubDocSignature})
	slack := h.signed(t, id, "application/x-www-form-urlencoded", slackDocBody,
		map[string]string{"X-Slack-Signature": slackDocSignature, "X-Slack-Request-Timestamp": "1531420618"})

	out := h.verdict(t, map[string]any{"token_id": id, "request_id": github, "provider": "github", "secret": githubDocSecret}, githubDocSecret)
	if out["verdict"] != "valid" || out["request_id"] != github || !strings.Contains(out["message"].(string), "The secret came from the secret argument.") {
		t.Errorf("github: %v", out)
	}
	contains(t, out["expected"].(string), "X-Hub-Signature-256 is sha256= then the hex HMAC-SHA256", "of the body's 13 bytes exactly as captured")

	// The latest request, and the secret from startup, named by its
	// variable.
	out = h.verdict(t, map[string]any{"token_id": id, "provider": "slack"}, slackDocSecret)
	if out["verdict"] != "valid" || out["request_id"] != slack {
		t.Errorf("slack, latest: %v", out)
	}
	contains(t, out["message"].(string), "judged against the capture time, 2018-07-12 18:37:18 UTC: 20 seconds before it was captured",
		"The secret came from SLACK_SIGNING_SECRET (--signing-secret slack=SLACK_SIGNING_SECRET).")

	for _, tt := range []struct {
		name string
		args map[string]any
		want signature.Verdict
		says string
	}{
		{"wrong secret", map[string]any{"request_id": github, "provider": "github", "secret": "It's a Secret to Nobody"}, signature.Invalid, "does not match"},
		{"secret pasted with its line break", map[string]any{"request_id": github, "provider": "github", "secret": githubDocSecret + "\n"}, signature.Invalid, "The secret begins or ends with white space"},
		{"another provider's headers", map[string]any{"request_id": github, "provider": "shopify", "secret": githubDocSecret}, signature.MissingHeader, "no X-Shopify-Hmac-Sha256 header"},
		{"generic, base64 of a hex header", map[string]any{"request_id": github, "provider": "hmac-sha256", "secret": githubDocSecret, "header": "X-Hub-Signature-256", "encoding": "base64", "prefix": "sha256="}, signature.MalformedHeader, "is not the base64 of 32 bytes"},
		{"generic, as GitHub", map[string]any{"request_id": github, "provider": "hmac-sha256", "secret": githubDocSecret, "header": "x-hub-signature-256", "prefix": "sha256="}, signature.Valid, "The signature matches."},
	} {
		tt.args["token_id"] = id
		out := h.verdict(t, tt.args, githubDocSecret)
		if out["verdict"] != string(tt.want) || !strings.Contains(out["message"].(string), tt.says) {
			t.Errorf("%s: %v", tt.name, out)
		}
	}

	// Captured six minutes after it was signed: outside Slack's five,
	// unless the call allows more.
	c.advance(6 * time.Minute)
	late := h.signed(t, id, "application/x-www-form-urlencoded", slackDocBody,
		map[string]string{"X-Slack-Signature": slackDocSignature, "X-Slack-Request-Timestamp": "1531420618"})
	out = h.verdict(t, map[string]any{"token_id": id, "request_id": late, "provider": "slack"}, slackDocSecret)
	if out["verdict"] != "timestamp_outside_tolerance" {
		t.Errorf("late: %v", out)
	}
	out = h.verdict(t, map[string]any{"token_id": id, "request_id": late, "provider": "slack", "tolerance_seconds": 600}, slackDocSecret)
	if out["verdict"] != "valid" {
		t.Errorf("late, tolerance 600: %v", out)
	}
}

// TestVerifySignatureRefusals: what cannot be checked is a tool error that
// names the argument, the rule and the fix, and never the secret; a
// multipart capture, whose raw body the service does not keep, cannot be
// checked.
func TestVerifySignatureRefusals(t *testing.T) {
	h := connectSigning(t, config.Config{}, newClock())
	id := h.createToken(t, nil)
	plain := h.signed(t, id, "text/plain", "x", nil)
	body, contentType := multipartBody()
	multipart := h.signed(t, id, contentType, body, map[string]string{"X-Hub-Signature-256": githubDocSignature})
	empty := h.createToken(t, nil)
	dns, err := h.fake.CaptureDNS(id, fakehooksvc.DNSLookup{Name: "probe"})
	if err != nil {
		t.Fatal(err)
	}
	const secret = "whsec_NeverShown0123456789"
	for _, tt := range []struct {
		name  string
		args  map[string]any
		wants []string
	}{
		{"multipart", map[string]any{"token_id": id, "request_id": multipart, "provider": "github", "secret": secret}, []string{"request " + multipart + " is multipart/form-data", "keeps no raw body", "cannot be checked"}},
		{"a DNS lookup", map[string]any{"token_id": id, "request_id": dns, "provider": "github", "secret": secret}, []string{"request " + dns + " is a DNS lookup, not an HTTP request"}},
		{"nothing captured", map[string]any{"token_id": empty, "provider": "github", "secret": secret}, []string{"has not captured any request yet", h.url + "/" + empty}},
		{"no secret", map[string]any{"token_id": id, "provider": "stripe"}, []string{"no secret for stripe", "--signing-secret stripe=VARIABLE", "HOOKSVC_SIGNING_SECRETS"}},
		{"blank secret", map[string]any{"token_id": id, "provider": "stripe", "secret": " "}, []string{"secret is empty"}},
		{"no provider", map[string]any{"token_id": id, "secret": secret}, []string{"provider is required: one of stripe, github, shopify, slack, standard, hmac-sha256"}},
		{"unknown provider", map[string]any{"token_id": id, "provider": "Stripe", "secret": secret}, []string{`provider must be`, `got "Stripe"`}},
		{"header for stripe", map[string]any{"token_id": id, "provider": "stripe", "secret": secret, "header": "X-Sig"}, []string{"header is for provider hmac-sha256 only"}},
		{"hmac without header", map[string]any{"token_id": id, "provider": "hmac-sha256", "secret": secret}, []string{"header is required with provider hmac-sha256"}},
		{"bad header name", map[string]any{"token_id": id, "provider": "hmac-sha256", "secret": secret, "header": "X Sig"}, []string{"header must be a header name"}},
		{"bad encoding", map[string]any{"token_id": id, "provider": "hmac-sha256", "secret": secret, "header": "X-Sig", "encoding": "base32"}, []string{`encoding must be "hex" or "base64"`}},
		{"tolerance without a timestamp", map[string]any{"token_id": id, "provider": "github", "secret": secret, "tolerance_seconds": 600}, []string{"tolerance_seconds is for stripe, slack and standard", "github's does not"}},
		{"tolerance", map[string]any{"token_id": id, "provider": "slack", "secret": secret, "tolerance_seconds": 0}, []string{"tolerance_seconds must be a whole number from 1 to 86400; got 0"}},
		{"standard secret not base64", map[string]any{"token_id": id, "request_id": plain, "provider": "standard", "secret": "whsec_not base64, " + secret}, []string{"standard: a Standard Webhooks (Svix) secret is whsec_ followed by base64", "it is not shown"}},
		{"request id", map[string]any{"token_id": id, "request_id": "latest", "provider": "github", "secret": secret}, []string{"request_id must be a request UUID", "leave it out for the latest"}},
		// The decoder's refusal of a secret that is not a string does not
		// quote it.
		{"secret not a string", map[string]any{"token_id": id, "provider": "github", "secret": []string{secret}}, []string{"secret"}},
		{"secret an object", map[string]any{"token_id": id, "provider": "github", "secret": map[string]any{"k": secret}}, []string{"secret"}},
		{"blank request id", map[string]any{"token_id": id, "request_id": "", "provider": "github", "secret": secret}, []string{"request_id is empty"}},
	} {
		msg := h.failure(t, "verify_signature", tt.args)
		contains(t, msg, tt.wants...)
		h.noSecrets(t, msg, secret)
	}
	h.noSecrets(t, h.logs.String(), secret)
}

// TestVerifySignatureRedactsConfiguredSecrets: a signing secret set at
// startup shows in no verify_signature answer and no log line, even when a
// sender put it in the captured request (a misconfigured sender that sends
// its secret as the signature), in any encoding.
func TestVerifySignatureRedactsConfiguredSecrets(t *testing.T) {
	const secret = "whsec_ConfiguredSecret0123"
	h := connectSigning(t, config.Config{SigningSecrets: map[signature.Provider]config.SigningSecret{"github": {Variable: "GH_SECRET", Value: secret}}}, newClock())
	id := h.createToken(t, nil)
	h.signed(t, id, "text/plain", "body "+secret, map[string]string{"X-Hub-Signature-256": "sha256=" + secret, "X-Echo": base64.StdEncoding.EncodeToString([]byte(secret))})
	out := h.verdict(t, map[string]any{"token_id": id, "provider": "github"}, secret)
	if out["verdict"] != "malformed_header" {
		t.Errorf("verdict: %v", out)
	}
	h.noSecrets(t, h.logs.String(), secret)
}

// TestVerifySignatureAgainstProviders: requests signed by each provider's
// own library, pinned (scripts/signatures/sign.mjs: stripe's
// webhooks.generateTestHeaderString, @octokit/webhooks-methods' sign,
// @shopify/shopify-api's getHmac, standardwebhooks' Webhook.sign, and
// Slack's documented recipe checked by Bolt's verifySlackRequest), are sent
// to the fake's capture URL and checked through a real MCP session: valid;
// and with one byte of the body changed, a wrong secret, a header left out
// and an old timestamp, the verdict each must give, which the library's
// own verification agrees with (it accepts exactly the valid ones).
// scripts/signatures installs the libraries and runs this test.
func TestVerifySignatureAgainstProviders(t *testing.T) {
	dir, script := os.Getenv("SIGNATURES_DIR"), os.Getenv("SIGNATURES_SCRIPT")
	if dir == "" || script == "" {
		t.Skip("SIGNATURES_DIR and SIGNATURES_SCRIPT are not set; scripts/signatures installs the providers' libraries and runs this test")
	}
	// The capture time the fake stamps, and the time the libraries judge
	// timestamps at: no wall clock.
	captured := time.Date(2026, 11, 26, 3, 0, 0, 0, time.UTC)
	cmd := exec.Command("node", script, strconvUnix(captured))
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(dir, "node_modules"))
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, stderr.String())
	}
	var cases []struct {
		Name         string            `json:"name"`
		Provider     string            `json:"provider"`
		Secret       string            `json:"secret"`
		Body         string            `json:"body"`
		ContentType  string            `json:"content_type"`
		Want         string            `json:"want"`
		Headers      map[string]string `json:"headers"`
		Args         map[string]any    `json:"args"`
		LibraryValid bool              `json:"library_valid"`
		LibraryError string            `json:"library_error"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatalf("the script's answer: %v: %.300s", err, raw)
	}
	c := newClock()
	c.now = captured
	h := connectSigning(t, config.Config{}, c)
	id := h.createToken(t, nil)
	seen := map[string]map[string]bool{}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			if tc.ContentType == "" || tc.Want == "" {
				t.Fatalf("the script's case has no content type or verdict: %+v", tc)
			}
			rid := h.signed(t, id, tc.ContentType, tc.Body, tc.Headers)
			args := map[string]any{"token_id": id, "request_id": rid, "provider": tc.Provider, "secret": tc.Secret}
			for k, v := range tc.Args {
				args[k] = v
			}
			out := h.verdict(t, args, tc.Secret)
			if out["verdict"] != tc.Want {
				t.Errorf("verdict %v, want %s: %s", out["verdict"], tc.Want, out["message"])
			}
			if (out["verdict"] == "valid") != tc.LibraryValid {
				t.Errorf("verdict %v, but the provider's library says valid=%v (%s)", out["verdict"], tc.LibraryValid, tc.LibraryError)
			}
			if seen[tc.Provider] == nil {
				seen[tc.Provider] = map[string]bool{}
			}
			seen[tc.Provider][tc.Want] = true
		})
	}
	for _, p := range []string{"stripe", "github", "shopify", "slack", "standard"} {
		wants := []string{"valid", "invalid", "missing_header"}
		if p == "stripe" || p == "slack" || p == "standard" {
			wants = append(wants, "timestamp_outside_tolerance")
		}
		for _, w := range wants {
			if !seen[p][w] {
				t.Errorf("%s: no case of %s was run", p, w)
			}
		}
	}
}

func strconvUnix(t time.Time) string {
	b, _ := json.Marshal(t.Unix())
	return string(b)
}

// TestVerifySignatureOddAnswers: a request object of odd shapes (header
// values that are not strings, a capture time that is not one, PHP's []
// for a map) reads loosely, as get_request reads it: the string values
// are checked, and a timestamp with no capture time is judged against now.
func TestVerifySignatureOddAnswers(t *testing.T) {
	for _, tt := range []struct {
		name, object string
		provider     string
		want         signature.Verdict
		says         string
	}{
		{"odd header values", `"headers":{"x-hub-signature-256":[1,null,{},"` + githubDocSignature + `"]},"created_at":[]`, "github", signature.Valid, "The signature matches."},
		{"headers as []", `"headers":[],"created_at":null`, "github", signature.MissingHeader, "no X-Hub-Signature-256 header"},
		{"no capture time", `"headers":{"x-slack-signature":"` + slackDocSignature + `","x-slack-request-timestamp":["1531420618"]},"created_at":"yesterday"`, "slack", signature.Valid, "the capture time is unknown, so it is judged against now"},
	} {
		api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/raw") {
				body := githubDocBody
				if tt.provider == "slack" {
					body = slackDocBody
				}
				w.Write([]byte(body))
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"uuid":"` + someRequest + `","type":"web",` + tt.object + `}`))
		}))
		t.Cleanup(api.Close)
		c := newClock()
		c.now = time.Unix(slackDocTimestamp+30, 0)
		h := serveSigning(t, nil, api.URL, config.Config{}, c)
		secret := githubDocSecret
		if tt.provider == "slack" {
			secret = slackDocSecret
		}
		out := h.verdict(t, map[string]any{"token_id": someToken, "request_id": someRequest, "provider": tt.provider, "secret": secret}, secret)
		if out["verdict"] != string(tt.want) || !strings.Contains(out["message"].(string), tt.says) {
			t.Errorf("%s: %v", tt.name, out)
		}
	}
}

// TestConfiguredSigningSecretRedactedEverywhere: a signing secret set at
// startup is a startup secret like the API key: a captured request that
// holds it (a sender that echoes it, a test that posts it) shows it in no
// tool's result, not get_request's, get_latest_request's, list_requests'
// nor wait_for_request's, in its body, its headers or its query, as it
// is, without its whsec_ prefix (the key material Standard Webhooks
// decodes) or in base64; nor the requests resource.
func TestConfiguredSigningSecretRedactedEverywhere(t *testing.T) {
	const secret = "whsec_StartupSigningSecret42"
	cfg := config.Config{APIKey: envKey, SigningSecrets: map[signature.Provider]config.SigningSecret{"stripe": {Variable: "STRIPE_WEBHOOK_SECRET", Value: secret}}}
	h := connectSigning(t, cfg, newClock())
	id := h.createToken(t, nil)
	rid := h.signed(t, id, "text/plain", "secret="+secret+" b64="+base64.StdEncoding.EncodeToString([]byte(secret))+" bare="+strings.TrimPrefix(secret, "whsec_"),
		map[string]string{"X-Echo": secret})
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		// First: it waits from the newest request shown.
		{"wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 1}},
		{"get_request", map[string]any{"token_id": id, "request_id": rid}},
		{"get_latest_request", map[string]any{"token_id": id}},
		{"list_requests", map[string]any{"token_id": id}},
	} {
		res := h.call(t, call.tool, call.args)
		structured, _ := json.Marshal(res.StructuredContent)
		text := mcptest.Text(res) + string(structured)
		if !strings.Contains(text, "[REDACTED]") {
			t.Errorf("%s: no redaction marker: %.600s", call.tool, text)
		}
		h.noSecrets(t, text, secret)
	}
	read, err := h.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: requestsURI(id)})
	if err != nil {
		t.Fatal(err)
	}
	listing, _ := json.Marshal(read)
	if !strings.Contains(string(listing), "[REDACTED]") {
		t.Errorf("the requests resource has no redaction marker: %.600s", listing)
	}
	h.noSecrets(t, string(listing), secret)
}

// TestVerifySignatureOverBytesThatHoldASecret: verify_signature checks the
// bytes as they arrived even where they hold the API key or a configured
// signing secret, which every shown answer redacts: the signature covers
// the bytes the sender sent, not the redacted ones, and nothing of the
// body is shown. A body that is not UTF-8 and has CRLF line endings is
// checked as its bytes too.
func TestVerifySignatureOverBytesThatHoldASecret(t *testing.T) {
	const secret = "whsec_StartupSigningSecret42"
	cfg := config.Config{APIKey: envKey, SigningSecrets: map[signature.Provider]config.SigningSecret{"github": {Variable: "GH_SECRET", Value: secret}}}
	h := connectSigning(t, cfg, newClock())
	id := h.createToken(t, nil)
	for _, body := range []string{
		"api key " + envKey + " in the body",
		"signing secret " + secret + " in the body",
		"\xff\xfe not UTF-8\r\nline two\r\n",
	} {
		m := hmac.New(sha256.New, []byte(secret))
		m.Write([]byte(body))
		rid := h.signed(t, id, "application/octet-stream", body, map[string]string{"X-Hub-Signature-256": "sha256=" + hex.EncodeToString(m.Sum(nil))})
		out := h.verdict(t, map[string]any{"token_id": id, "request_id": rid, "provider": "github"}, secret, envKey)
		if out["verdict"] != "valid" {
			t.Errorf("%q: %v", body, out)
		}
	}
}

// TestVerifySignatureRequestOfAnotherToken: a request id is read under the
// token named, so another token's request is not found there, and the
// error says where its ids are listed.
func TestVerifySignatureRequestOfAnotherToken(t *testing.T) {
	h := connectSigning(t, config.Config{}, newClock())
	mine, theirs := h.createToken(t, nil), h.createToken(t, nil)
	rid := h.signed(t, theirs, "text/plain", githubDocBody, map[string]string{"X-Hub-Signature-256": githubDocSignature})
	msg := h.failure(t, "verify_signature", map[string]any{"token_id": mine, "request_id": rid, "provider": "github", "secret": githubDocSecret})
	contains(t, msg, "request "+rid+" of token "+mine, "list_requests shows the token's request ids")
	h.noSecrets(t, msg+h.logs.String(), githubDocSecret)
}
