package signature

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// standardHeaders signs body as the standardwebhooks library does, at the
// unix time ts, with the documented Svix secret.
func standardHeaders(t *testing.T, ts int64, body string) map[string][]string {
	t.Helper()
	key, err := StandardKey([]byte(svixSecret))
	if err != nil {
		t.Fatal(err)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(svixID + "." + strconv.FormatInt(ts, 10) + "." + body))
	sig := base64.StdEncoding.EncodeToString(m.Sum(nil))
	return map[string][]string{"webhook-id": {svixID}, "webhook-timestamp": {strconv.FormatInt(ts, 10)}, "webhook-signature": {"v1," + sig}}
}

// TestTimestampCenturiesAway: a signed time further from the capture than
// a time.Duration holds (292 years) is judged as the libraries judge it,
// in whole seconds: standardwebhooks refuses one too new ("Message
// timestamp too new"), however far ahead; stripe-node and Bolt take any
// timestamp not too old, milliseconds included (parseInt and Number read
// 13 digits), so a header signed over one is valid there. The words never
// show a negative count of seconds.
func TestTimestampCenturiesAway(t *testing.T) {
	captured := time.Unix(1700000000, 0)
	body := `{"id":"evt_1"}`
	check := func(name string, s Scheme, secret string, headers map[string][]string, want Verdict, words ...string) {
		t.Helper()
		res, err := Verify(s, []byte(secret), Request{Body: []byte(body), Headers: headers, CapturedAt: captured, Now: captured.Add(time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != want {
			t.Errorf("%s: verdict %s, want %s: %s", name, res.Verdict, want, res.Detail)
		}
		if strings.Contains(res.Detail, " -") {
			t.Errorf("%s: a negative count: %s", name, res.Detail)
		}
		for _, w := range words {
			if !strings.Contains(res.Detail, w) {
				t.Errorf("%s: %q\ndoes not say %q", name, res.Detail, w)
			}
		}
	}
	for _, ts := range []int64{99999999999, 999999999999, 1700000000000} {
		check("standard, "+strconv.FormatInt(ts, 10), Scheme{Provider: Standard}, svixSecret, standardHeaders(t, ts, body), OutsideTolerance,
			"after it was captured", "The signature matches, but the signed timestamp is outside the tolerance.")
	}
	check("standard, a second inside", Scheme{Provider: Standard}, svixSecret, standardHeaders(t, 1700000300, body), Valid)
	check("standard, in 1970", Scheme{Provider: Standard}, svixSecret, standardHeaders(t, 1, body), OutsideTolerance, "before it was captured")

	const secret = "whsec_test_secret"
	stripeAt := func(ts string) map[string][]string {
		m := hmac.New(sha256.New, []byte(secret))
		m.Write([]byte(ts + "." + body))
		return map[string][]string{"stripe-signature": {"t=" + ts + ",v1=" + hex.EncodeToString(m.Sum(nil))}}
	}
	check("stripe, milliseconds", Scheme{Provider: Stripe}, secret, stripeAt("1700000000000"), Valid, "after it was captured", "milliseconds")
	check("stripe, year 33658", Scheme{Provider: Stripe}, secret, stripeAt("999999999999"), Valid, "after it was captured")
	slackAt := func(ts string) map[string][]string {
		m := hmac.New(sha256.New, []byte(secret))
		m.Write([]byte("v0:" + ts + ":" + body))
		return map[string][]string{"x-slack-signature": {"v0=" + hex.EncodeToString(m.Sum(nil))}, "x-slack-request-timestamp": {ts}}
	}
	check("slack, milliseconds", Scheme{Provider: Slack}, secret, slackAt("1700000000000"), Valid, "milliseconds")
	// Past what any library reads exactly (JavaScript's integers end at
	// 2^53, 16 digits), a timestamp is malformed.
	check("stripe, 17 digits", Scheme{Provider: Stripe}, secret, stripeAt("17000000000000000"), MalformedHeader)
}

// TestStandardItemAsTheLibrarySplitsIt: standardwebhooks splits each
// space-separated item on commas and compares the second part, so
// "v1,<sig>,more" carries <sig>.
func TestStandardItemAsTheLibrarySplitsIt(t *testing.T) {
	h := standardHeaders(t, 1614265330, svixBody)
	h["webhook-signature"] = []string{h["webhook-signature"][0] + ",trailing"}
	res, err := Verify(Scheme{Provider: Standard}, []byte(svixSecret), Request{Body: []byte(svixBody), Headers: h, CapturedAt: at(svixTimestamp), Now: at(svixTimestamp)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != Valid {
		t.Errorf("verdict %s, want valid: %s", res.Verdict, res.Detail)
	}
}

// TestHeaderSpelledTwice: a request object that spells one header in two
// cases (a self-hosted API that does not lower-case names) gets the same
// verdict every time: which spelling is read does not depend on the
// order a map is walked in.
func TestHeaderSpelledTwice(t *testing.T) {
	headers := map[string][]string{"X-Hub-Signature-256": {"sha256=" + strings.Repeat("0", 64)}, "x-hub-signature-256": {githubSignature}}
	first := Verdict("")
	for range 50 {
		res, err := Verify(Scheme{Provider: GitHub}, []byte(githubSecret), Request{Body: []byte(githubBody), Headers: headers, Now: time.Unix(1700000000, 0)})
		if err != nil {
			t.Fatal(err)
		}
		if first == "" {
			first = res.Verdict
			if !strings.Contains(res.Detail, "X-Hub-Signature-256 was sent 2 times") {
				t.Errorf("the detail does not say the header came twice: %s", res.Detail)
			}
		}
		if res.Verdict != first {
			t.Fatalf("verdict %s, then %s", first, res.Verdict)
		}
	}
}

// TestLongHeaderCostsItsLength: a signature header of millions of items
// (a request object may be 32 MiB) is read item by item, not split into a
// slice of millions of strings first: checking it allocates a small part
// of the header's own size.
func TestLongHeaderCostsItsLength(t *testing.T) {
	const n = 4 << 20
	for _, tt := range []struct {
		scheme  Scheme
		headers map[string][]string
	}{
		{Scheme{Provider: Stripe}, map[string][]string{"stripe-signature": {"t=1700000000,v1=00" + strings.Repeat(",", n)}}},
		{Scheme{Provider: Standard}, map[string][]string{"webhook-id": {"msg_1"}, "webhook-timestamp": {"1700000000"}, "webhook-signature": {"v1,AAAA" + strings.Repeat(" ", n)}}},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res, err := Verify(tt.scheme, []byte(svixSecret), Request{Body: []byte("{}"), Headers: tt.headers, CapturedAt: time.Unix(1700000000, 0), Now: time.Unix(1700000000, 0)})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != Invalid {
			t.Errorf("%s: verdict %s: %s", tt.scheme.Provider, res.Verdict, res.Detail)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > n/4 {
			t.Errorf("%s: checking a header of %d bytes allocated %d bytes", tt.scheme.Provider, n, grew)
		}
	}
}

// TestEmptyBodyNoted: an empty body signed correctly is valid by the
// arithmetic, but Stripe's and GitHub's libraries refuse an empty payload
// before checking (stripe-node: "No webhook payload was provided.";
// @octokit/webhooks-methods: "secret, eventPayload & signature
// required"), so the answer says a receiver using them refuses it.
func TestEmptyBodyNoted(t *testing.T) {
	mac := func(parts ...string) []byte {
		m := hmac.New(sha256.New, []byte("whsec_test_secret"))
		for _, p := range parts {
			m.Write([]byte(p))
		}
		return m.Sum(nil)
	}
	for _, tt := range []struct {
		scheme  Scheme
		headers map[string][]string
	}{
		{Scheme{Provider: Stripe}, map[string][]string{"stripe-signature": {"t=1700000000,v1=" + hex.EncodeToString(mac("1700000000."))}}},
		{Scheme{Provider: GitHub}, map[string][]string{"x-hub-signature-256": {"sha256=" + hex.EncodeToString(mac())}}},
	} {
		res, err := Verify(tt.scheme, []byte("whsec_test_secret"), Request{Headers: tt.headers, CapturedAt: time.Unix(1700000000, 0), Now: time.Unix(1700000000, 0)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != Valid || !strings.Contains(res.Detail, "The body is empty, which the provider's own library refuses before checking the signature") {
			t.Errorf("%s: %s: %s", tt.scheme.Provider, res.Verdict, res.Detail)
		}
	}
}

// TestShopifyAsValidateReadsIt: @shopify/shopify-api's webhooks.validate
// reads the events header (Shopify-Hmac-Sha256) when it is there, before
// X-Shopify-Hmac-Sha256, and refuses a matching signature whose request
// lacks the topic, shop domain, API version or webhook id headers of its
// kind ("missing_headers"): the answer names the missing ones.
func TestShopifyAsValidateReadsIt(t *testing.T) {
	const secret = "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"
	body := `{"id":1}`
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(body))
	good := base64.StdEncoding.EncodeToString(m.Sum(nil))
	bad := base64.StdEncoding.EncodeToString(make([]byte, 32))
	check := func(name string, headers map[string][]string, want Verdict, says, not string) {
		t.Helper()
		res, err := Verify(Scheme{Provider: Shopify}, []byte(secret), Request{Body: []byte(body), Headers: headers, Now: time.Unix(1700000000, 0)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != want || !strings.Contains(res.Detail, says) || not != "" && strings.Contains(res.Detail, not) {
			t.Errorf("%s: %s: %s", name, res.Verdict, res.Detail)
		}
	}
	all := map[string][]string{"x-shopify-hmac-sha256": {good}, "x-shopify-topic": {"orders/create"}, "x-shopify-shop-domain": {"s.myshopify.com"}, "x-shopify-api-version": {"2025-01"}, "x-shopify-webhook-id": {"w1"}}
	check("all headers", all, Valid, "The signature matches.", "requires")
	check("only the signature", map[string][]string{"x-shopify-hmac-sha256": {good}}, Valid,
		"Shopify's library (webhooks.validate) also requires X-Shopify-Topic, X-Shopify-Shop-Domain, X-Shopify-API-Version and X-Shopify-Webhook-Id; this request lacks X-Shopify-Topic, X-Shopify-Shop-Domain, X-Shopify-API-Version and X-Shopify-Webhook-Id", "")
	events := map[string][]string{"shopify-hmac-sha256": {good}, "x-shopify-hmac-sha256": {bad}, "shopify-topic": {"orders/create"}, "shopify-shop-domain": {"s"}, "shopify-api-version": {"2025-01"}}
	check("events header first", events, Valid, "lacks Shopify-Webhook-Id", "")
}
