package signature

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
	"time"
)

// The providers' own published examples. Stripe and Shopify publish none
// with a secret and a body; their libraries sign the requests of
// TestVerifySignatureAgainstProviders (internal/tools, run by
// scripts/signatures).
const (
	// https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries
	// ("Testing the webhook payload validation").
	githubSecret    = "It's a Secret to Everybody"
	githubBody      = "Hello, World!"
	githubSignature = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"

	// https://api.slack.com/authentication/verifying-requests-from-slack
	// (the worked example of "Validating a request").
	slackSecret    = "8f742231b10e8888abcd99yyyzzz85a5"
	slackTimestamp = "1531420618"
	slackBody      = "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c"
	slackSignature = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503"

	// https://docs.svix.com/receiving/verifying-payloads/how (the example
	// of "Verifying using our official libraries").
	svixSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	svixID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	svixTimestamp = "1614265330"
	svixBody      = `{"test": 2432232314}`
	svixSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func at(unix string) time.Time {
	var n int64
	for _, c := range unix {
		n = n*10 + int64(c-'0')
	}
	return time.Unix(n, 0)
}

type example struct {
	name    string
	scheme  Scheme
	secret  string
	body    string
	headers map[string][]string
	at      time.Time
}

func documented() []example {
	return []example{
		{"github", Scheme{Provider: GitHub}, githubSecret, githubBody,
			map[string][]string{"x-hub-signature-256": {githubSignature}}, time.Unix(1700000000, 0)},
		{"slack", Scheme{Provider: Slack}, slackSecret, slackBody,
			map[string][]string{"x-slack-signature": {slackSignature}, "x-slack-request-timestamp": {slackTimestamp}}, at(slackTimestamp).Add(time.Minute)},
		{"svix headers", Scheme{Provider: Standard}, svixSecret, svixBody,
			map[string][]string{"svix-id": {svixID}, "svix-timestamp": {svixTimestamp}, "svix-signature": {svixSignature}}, at(svixTimestamp).Add(10 * time.Second)},
		{"standard headers", Scheme{Provider: Standard}, svixSecret, svixBody,
			map[string][]string{"Webhook-Id": {svixID}, "Webhook-Timestamp": {svixTimestamp}, "Webhook-Signature": {"v2,abc " + svixSignature}}, at(svixTimestamp)},
		// GitHub's example read as a generic scheme, and Slack's hex as
		// base64.
		{"hmac-sha256 hex with prefix", Scheme{Provider: HMACSHA256, Header: "X-Hub-Signature-256", Encoding: Hex, Prefix: "SHA256="}, githubSecret, githubBody,
			map[string][]string{"x-hub-signature-256": {githubSignature}}, time.Unix(1700000000, 0)},
		{"hmac-sha256 base64", Scheme{Provider: HMACSHA256, Header: "X-Signature", Encoding: Base64}, githubSecret, githubBody,
			map[string][]string{"x-signature": {base64.RawURLEncoding.EncodeToString(mustHex(strings.TrimPrefix(githubSignature, "sha256=")))}}, time.Unix(1700000000, 0)},
	}
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func (e example) verify(t *testing.T) Result {
	t.Helper()
	res, err := Verify(e.scheme, []byte(e.secret), Request{Body: []byte(e.body), Headers: e.headers, CapturedAt: e.at, Now: e.at.Add(time.Hour)})
	if err != nil {
		t.Fatalf("%s: %v", e.name, err)
	}
	noLeak(t, e.name, res, e.secret)
	return res
}

// noLeak fails when a result holds the secret or any signature the
// example carries (the received one is the expected one when valid), or a
// 12-character part of one.
func noLeak(t *testing.T, name string, res Result, secret string) {
	t.Helper()
	text := res.Expected + " " + res.Detail
	forbidden := []string{secret, githubSignature[7:], slackSignature[3:], svixSignature[3:], strings.TrimPrefix(svixSecret, "whsec_")}
	for _, f := range forbidden {
		for i := 0; i+12 <= len(f); i++ {
			if strings.Contains(text, f[i:i+12]) {
				t.Errorf("%s: the result shows %q, part of a secret or signature: %s", name, f[i:i+12], text)
				break
			}
		}
	}
}

// TestPublishedExamples: each provider's own published example is valid,
// and each change a receiver meets gives its verdict: one byte of the body,
// the secret, a header left out, a header that is not in the scheme's form,
// and (where signed) a timestamp past the tolerance.
func TestPublishedExamples(t *testing.T) {
	for _, e := range documented() {
		t.Run(e.name, func(t *testing.T) {
			if res := e.verify(t); res.Verdict != Valid {
				t.Fatalf("verdict %s, want valid: %s %s", res.Verdict, res.Expected, res.Detail)
			}
			changed := e
			changed.body = e.body[:3] + string(e.body[3]^1) + e.body[4:]
			if res := changed.verify(t); res.Verdict != Invalid || !strings.Contains(res.Detail, "does not match") {
				t.Errorf("one byte changed: %s %s", res.Verdict, res.Detail)
			}
			wrong := e
			wrong.secret = strings.Replace(e.secret, e.secret[len(e.secret)-4:], "AAAA", 1)
			if res := wrong.verify(t); res.Verdict != Invalid {
				t.Errorf("wrong secret: %s %s", res.Verdict, res.Detail)
			}
			for name := range e.headers {
				less := e
				less.headers = map[string][]string{}
				for k, v := range e.headers {
					if k != name {
						less.headers[k] = v
					}
				}
				if res := less.verify(t); res.Verdict != MissingHeader || !strings.Contains(strings.ToLower(res.Detail), strings.ToLower(name)) {
					t.Errorf("without %s: %s %s", name, res.Verdict, res.Detail)
				}
				odd := e
				odd.headers = map[string][]string{}
				for k, v := range e.headers {
					odd.headers[k] = v
				}
				odd.headers[name] = []string{"not a signature"}
				if strings.HasSuffix(name, "id") || strings.HasSuffix(strings.ToLower(name), "-id") {
					continue // any text is an id
				}
				if res := odd.verify(t); res.Verdict != MalformedHeader {
					t.Errorf("%s malformed: %s %s", name, res.Verdict, res.Detail)
				}
			}
			if e.scheme.Provider == Slack || e.scheme.Provider == Standard {
				late := e
				late.at = e.at.Add(6 * time.Minute)
				res := late.verify(t)
				if res.Verdict != OutsideTolerance || !strings.Contains(res.Detail, "The signature matches, but") || !strings.Contains(res.Detail, "judged against the capture time") {
					t.Errorf("captured 6 minutes late: %s %s", res.Verdict, res.Detail)
				}
				wrongAndLate := late
				wrongAndLate.secret = wrong.secret
				if res := wrongAndLate.verify(t); res.Verdict != Invalid {
					t.Errorf("wrong secret, late: %s %s", res.Verdict, res.Detail)
				}
			}
		})
	}
}

// TestTimestampJudged: the verdict judges against the capture time, and
// the detail says how the timestamp stands against now as well; without a
// capture time, against now. Stripe and Slack refuse only a timestamp too
// old, as their libraries do; Standard Webhooks one too new as well.
func TestTimestampJudged(t *testing.T) {
	slack := documented()[1]
	signed := at(slackTimestamp)
	check := func(name string, s Scheme, e example, captured, now time.Time, want Verdict, words ...string) {
		t.Helper()
		res, err := Verify(s, []byte(e.secret), Request{Body: []byte(e.body), Headers: e.headers, CapturedAt: captured, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != want {
			t.Errorf("%s: verdict %s, want %s: %s", name, res.Verdict, want, res.Detail)
		}
		for _, w := range words {
			if !strings.Contains(res.Detail, w) {
				t.Errorf("%s: %q\ndoes not say %q", name, res.Detail, w)
			}
		}
	}
	check("in time, judged now too", slack.scheme, slack, signed.Add(2*time.Second), signed.Add(3*time.Hour), Valid,
		"Signed at 2018-07-12 18:36:58 UTC", "judged against the capture time, 2018-07-12 18:37:00 UTC: 2 seconds before it was captured; the tolerance is 300 seconds (5m0s), refused when older than that.",
		"Against now, 10800 seconds (3h0m0s) before now, a receiver checking it now would refuse it.")
	check("in time both ways", slack.scheme, slack, signed, signed.Add(time.Minute), Valid, "the same second as it was captured", "Against now it is also within the tolerance.")
	check("301 s", slack.scheme, slack, signed.Add(301*time.Second), signed.Add(301*time.Second), OutsideTolerance, "301 seconds (5m1s) before it was captured", "it is outside too")
	check("a tolerance of 600 s", Scheme{Provider: Slack, Tolerance: 600 * time.Second}, slack, signed.Add(301*time.Second), signed.Add(301*time.Second), Valid, "the tolerance is 600 seconds")
	check("from the future, one-sided", slack.scheme, slack, signed.Add(-time.Hour), signed.Add(-time.Hour), Valid, "3600 seconds (1h0m0s) after it was captured")
	check("no capture time", slack.scheme, slack, time.Time{}, signed.Add(10*time.Second), Valid, "the capture time is unknown, so it is judged against now: 10 seconds before now")
	svix := documented()[2]
	check("from the future, two-sided", svix.scheme, svix, at(svixTimestamp).Add(-301*time.Second), at(svixTimestamp), OutsideTolerance, "301 seconds (5m1s) after it was captured", "refused when further than that")
}

// TestStripeHeaderAsStripeReadsIt: Stripe-Signature is read as
// stripe-node's parseHeader reads it: items split on commas, names matched
// exactly, other schemes (v0) ignored, several v1 signatures (a secret
// being rolled) any of which may match.
func TestStripeHeaderAsStripeReadsIt(t *testing.T) {
	const secret = "whsec_test_secret"
	body := []byte(`{"id":"evt_1"}`)
	sign := func(ts string) string {
		m := hmac.New(sha256.New, []byte(secret))
		m.Write([]byte(ts + "."))
		m.Write(body)
		return hex.EncodeToString(m.Sum(nil))
	}
	captured := time.Unix(1700000010, 0)
	good := sign("1700000000")
	for _, tt := range []struct {
		name, header string
		want         Verdict
	}{
		{"one v1", "t=1700000000,v1=" + good, Valid},
		{"rolled secret", "t=1700000000,v1=" + strings.Repeat("0", 64) + ",v1=" + good + ",v0=abc", Valid},
		{"upper-case hex, which Stripe's compare refuses", "t=1700000000,v1=" + strings.ToUpper(good), Invalid},
		{"only v0", "t=1700000000,v0=" + good, MalformedHeader},
		{"no t", "v1=" + good, MalformedHeader},
		{"t not digits", "t=17e8,v1=" + good, MalformedHeader},
		{"space after comma", "t=1700000000, v1=" + good, MalformedHeader},
		{"empty", "", MalformedHeader},
		{"old", "t=1699990000,v1=" + sign("1699990000"), OutsideTolerance},
	} {
		res, err := Verify(Scheme{Provider: Stripe}, []byte(secret), Request{Body: body, Headers: map[string][]string{"stripe-signature": {tt.header}}, CapturedAt: captured, Now: captured})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != tt.want {
			t.Errorf("%s: %s, want %s: %s", tt.name, res.Verdict, tt.want, res.Detail)
		}
		if strings.Contains(res.Expected+res.Detail, good[:12]) || strings.Contains(res.Expected+res.Detail, secret) {
			t.Errorf("%s: the result shows the signature or the secret: %s %s", tt.name, res.Expected, res.Detail)
		}
	}
}

// TestUnusable: what cannot be checked is an error that never holds the
// secret.
func TestUnusable(t *testing.T) {
	for _, tt := range []struct {
		name   string
		scheme Scheme
		secret string
		want   string
	}{
		{"empty secret", Scheme{Provider: GitHub}, "", "secret is empty"},
		{"standard secret not base64", Scheme{Provider: Standard}, "whsec_not*base64!", "whsec_ followed by base64"},
		{"no header", Scheme{Provider: HMACSHA256, Encoding: Hex}, "secret-123", "name of the header"},
		{"odd encoding", Scheme{Provider: HMACSHA256, Header: "X-Sig", Encoding: "base32"}, "secret-123", "hex or base64"},
		{"unknown", Scheme{Provider: "paypal"}, "secret-123", "unknown provider"},
	} {
		_, err := Verify(tt.scheme, []byte(tt.secret), Request{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
			continue
		}
		if tt.secret != "" && strings.Contains(err.Error(), strings.TrimPrefix(tt.secret, "whsec_")) {
			t.Errorf("%s: the error shows the secret: %v", tt.name, err)
		}
	}
}

// FuzzVerifyHeaders: whatever a request's signature headers hold, every
// scheme answers one of its verdicts without panicking, in bounded words
// that never hold the secret, nor the expected signature or a 12-character
// part of it in hex or base64.
func FuzzVerifyHeaders(f *testing.F) {
	for _, e := range documented() {
		for _, v := range e.headers {
			f.Add(v[0], slackTimestamp, []byte(e.body))
		}
	}
	f.Add("t=1531420618,v1=abc,v1=,=,t=", "", []byte("{}"))
	f.Add("v1,AAAA v1, ,v1", "99999999999999", []byte(nil))
	f.Add("sha256=ZZ", "-1", []byte("x"))
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	f.Fuzz(func(t *testing.T, signature, timestamp string, body []byte) {
		headers := map[string][]string{
			"stripe-signature": {signature}, "x-hub-signature-256": {signature}, "x-shopify-hmac-sha256": {signature},
			"x-slack-signature": {signature}, "x-slack-request-timestamp": {timestamp},
			"webhook-id": {timestamp}, "webhook-timestamp": {timestamp}, "webhook-signature": {signature}, "x-sig": {signature},
		}
		captured := time.Unix(1531420618, 0)
		for _, s := range []Scheme{{Provider: Stripe}, {Provider: GitHub}, {Provider: Shopify}, {Provider: Slack}, {Provider: Standard},
			{Provider: HMACSHA256, Header: "X-Sig", Encoding: Hex, Prefix: "sha256="}, {Provider: HMACSHA256, Header: "X-Sig", Encoding: Base64}} {
			res, err := Verify(s, []byte(secret), Request{Body: body, Headers: headers, CapturedAt: captured, Now: captured.Add(time.Hour)})
			if err != nil {
				t.Fatalf("%s: %v", s.Provider, err)
			}
			known := false
			for _, v := range Verdicts() {
				known = known || v == res.Verdict
			}
			if !known {
				t.Fatalf("%s: verdict %q", s.Provider, res.Verdict)
			}
			text := res.Expected + " " + res.Detail
			if len(text) > 2000 {
				t.Fatalf("%s: %d bytes of words", s.Provider, len(text))
			}
			key := []byte(secret)
			if s.Provider == Standard {
				key, _ = StandardKey(key)
			}
			var macs [][]byte
			for _, signed := range [][]byte{body, []byte(timestamp + "." + string(body)), []byte("v0:" + timestamp + ":" + string(body)), []byte(timestamp + "." + timestamp + "." + string(body))} {
				m := hmac.New(sha256.New, key)
				m.Write(signed)
				macs = append(macs, m.Sum(nil))
			}
			forbidden := []string{secret[6:]}
			for _, m := range macs {
				forbidden = append(forbidden, hex.EncodeToString(m), base64.StdEncoding.EncodeToString(m))
			}
			for _, f := range forbidden {
				for i := 0; i+12 <= len(f); i++ {
					// The signature as received may be quoted by no
					// answer either; a part of the fuzzed header that
					// happens to spell one is not the answer's doing.
					if strings.Contains(text, f[i:i+12]) && !strings.Contains(signature+timestamp, f[i:i+12]) {
						t.Fatalf("%s: the words hold %q: %s", s.Provider, f[i:i+12], text)
					}
				}
			}
		}
	})
}
