// Package signature checks a captured webhook request's signature as the
// sender's own library would: pure functions over the request's exact body
// bytes and its headers, comparing in constant time (crypto/hmac.Equal).
//
// Its answers say what a valid signature is made of, in words (the scheme,
// the header, what was signed) and what was found; they never hold the
// secret, the expected signature, or any part of either. A received
// signature is not quoted either: when it is valid it is the expected one.
package signature

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Provider names a signing scheme.
type Provider string

// The schemes Verify knows.
const (
	Stripe     Provider = "stripe"
	GitHub     Provider = "github"
	Shopify    Provider = "shopify"
	Slack      Provider = "slack"
	Standard   Provider = "standard" // Standard Webhooks, which Svix signs by
	HMACSHA256 Provider = "hmac-sha256"
)

// Providers lists every scheme, in the order a tool shows them.
func Providers() []Provider {
	return []Provider{Stripe, GitHub, Shopify, Slack, Standard, HMACSHA256}
}

// Timestamped reports whether p's signatures cover a timestamp, which a
// tolerance bounds.
func Timestamped(p Provider) bool {
	return p == Stripe || p == Slack || p == Standard
}

// Verdict is what Verify found.
type Verdict string

// The verdicts.
const (
	Valid   Verdict = "valid"
	Invalid Verdict = "invalid"
	// MissingHeader: a header the scheme needs was not sent.
	MissingHeader Verdict = "missing_header"
	// MalformedHeader: a header is there but not in the scheme's form.
	MalformedHeader Verdict = "malformed_header"
	// OutsideTolerance: the signature matches, but its signed timestamp is
	// further from the capture time than the tolerance allows.
	OutsideTolerance Verdict = "timestamp_outside_tolerance"
)

// Verdicts lists every verdict.
func Verdicts() []Verdict {
	return []Verdict{Valid, Invalid, MissingHeader, MalformedHeader, OutsideTolerance}
}

// DefaultTolerance is how far a signed timestamp may be from the time it is
// judged against: five minutes, as Stripe's, Slack's (Bolt) and Standard
// Webhooks' libraries allow.
const DefaultTolerance = 300 * time.Second

// Encodings of a generic hmac-sha256 signature.
const (
	Hex    = "hex"
	Base64 = "base64"
)

// Scheme says how a request was signed.
type Scheme struct {
	Provider Provider
	// Header, Encoding (Hex or Base64) and Prefix are hmac-sha256's: the
	// header that carries the signature, how it is written, and what comes
	// before it in the header (sha256=), matched in any case.
	Header, Encoding, Prefix string
	// Tolerance is how far a signed timestamp may be from the capture
	// time; DefaultTolerance when zero. Schemes without a timestamp ignore
	// it.
	Tolerance time.Duration
}

// Request is a captured request as Verify reads it.
type Request struct {
	// Body is the body exactly as it arrived.
	Body []byte
	// Headers are its headers, names in any case, each with its values.
	Headers map[string][]string
	// CapturedAt is when the service captured it, which a signed timestamp
	// is judged against; zero when unknown (then Now is).
	CapturedAt time.Time
	// Now is the time of the check; a timestamp is also compared with it,
	// for a receiver that would check the request now.
	Now time.Time
}

// Result is Verify's answer.
type Result struct {
	Verdict Verdict
	// Expected says what a valid signature is, in words: the scheme, the
	// header, what was signed and how the signature is written.
	Expected string
	// Detail says what the request holds and why the verdict is what it
	// is, including the timestamp's judgement where the scheme has one.
	Detail string
}

// maxSignatures bounds the signatures read from one header (Stripe and
// Standard Webhooks send a list, several during a secret's rotation).
const maxSignatures = 100

// Verify checks r's signature under s with secret. Its error says why the
// check could not be made (a scheme or secret that is not usable); it never
// holds the secret.
func Verify(s Scheme, secret []byte, r Request) (Result, error) {
	if len(secret) == 0 {
		return Result{}, errors.New("the signing secret is empty")
	}
	if s.Tolerance == 0 {
		s.Tolerance = DefaultTolerance
	}
	if s.Tolerance < 0 {
		return Result{}, errors.New("the tolerance must not be negative")
	}
	c := check{s: s, secret: secret, r: r}
	switch s.Provider {
	case Stripe:
		return c.stripe(), nil
	case GitHub:
		return c.github(), nil
	case Shopify:
		return c.shopify(), nil
	case Slack:
		return c.slack(), nil
	case Standard:
		key, err := StandardKey(secret)
		if err != nil {
			return Result{}, err
		}
		c.secret = key
		return c.standard(), nil
	case HMACSHA256:
		if err := s.checkGeneric(); err != nil {
			return Result{}, err
		}
		return c.generic(), nil
	}
	return Result{}, fmt.Errorf("unknown provider %q", s.Provider)
}

// StandardKey is the HMAC key of a Standard Webhooks secret: the base64
// after "whsec_", decoded, as the standardwebhooks library reads it.
func StandardKey(secret []byte) ([]byte, error) {
	encoded := strings.TrimPrefix(string(secret), "whsec_")
	key, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil || len(key) == 0 {
		return nil, errors.New("a Standard Webhooks (Svix) secret is whsec_ followed by base64, as the sender's dashboard shows it; the one given is not (it is not shown)")
	}
	return key, nil
}

func (s Scheme) checkGeneric() error {
	if s.Header == "" {
		return errors.New("hmac-sha256 needs the name of the header that carries the signature")
	}
	if s.Encoding != Hex && s.Encoding != Base64 {
		return fmt.Errorf("the encoding must be %s or %s, not %q", Hex, Base64, s.Encoding)
	}
	return nil
}

// check is one verification.
type check struct {
	s      Scheme
	secret []byte
	r      Request
}

// mac is the HMAC-SHA256 of the parts, in order.
func (c check) mac(parts ...[]byte) []byte {
	h := hmac.New(sha256.New, c.secret)
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum(nil)
}

// header is the first value of the header name (in any case), how many
// values it had, and whether it was sent at all. A name spelled in more
// than one case (an API that does not lower-case names) is one header: its
// values are counted together and the spellings read in sorted order, so
// the verdict does not depend on the order a map is walked in.
func (c check) header(name string) (value string, count int, ok bool) {
	var spellings []string
	for k, values := range c.r.Headers {
		if strings.EqualFold(k, name) && len(values) > 0 {
			spellings = append(spellings, k)
		}
	}
	if len(spellings) == 0 {
		return "", 0, false
	}
	slices.Sort(spellings)
	for _, k := range spellings {
		count += len(c.r.Headers[k])
	}
	return c.r.Headers[spellings[0]][0], count, true
}

// body describes the signed body.
func (c check) body() string {
	return fmt.Sprintf("the body's %d bytes exactly as captured", len(c.r.Body))
}

func missing(expected, name string) Result {
	return Result{Verdict: MissingHeader, Expected: expected, Detail: fmt.Sprintf("The request has no %s header.", name)}
}

func malformed(expected, why string) Result {
	return Result{Verdict: MalformedHeader, Expected: expected, Detail: why}
}

// several notes a header sent more than once, of which the first is read.
func several(name string, count int) string {
	if count < 2 {
		return ""
	}
	return fmt.Sprintf(" %s was sent %d times; the first was checked.", name, count)
}

// matchAny reports whether any of the received texts equals want, each
// compared in constant time, as the providers' libraries compare the
// encoded signatures.
func matchAny(want string, received []string) bool {
	found := false
	for _, got := range received {
		if hmac.Equal([]byte(got), []byte(want)) {
			found = true
		}
	}
	return found
}

// verdict combines the signature's match and the timestamp's judgement: a
// signature that does not match is invalid whatever its timestamp; one
// that matches is valid only inside the tolerance.
func verdict(expected string, matched bool, found string, ts timestampJudgement) Result {
	res := Result{Verdict: Valid, Expected: expected}
	switch {
	case !matched:
		res.Verdict = Invalid
		res.Detail = found + " The signature does not match: the secret differs from the one the sender signed with, or the signed bytes differ from what was captured."
	case ts.outside:
		res.Verdict = OutsideTolerance
		res.Detail = found + " The signature matches, but the signed timestamp is outside the tolerance."
	default:
		res.Detail = found + " The signature matches."
	}
	if ts.words != "" {
		res.Detail += " " + ts.words
	}
	return res
}

// stripe checks Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=...], the
// HMAC of "<t>.<body>" with the endpoint secret (whsec_...) as it is, as
// stripe-node's webhooks.signature.verifyHeader does: items split on ",",
// each name and value on "=", no spaces trimmed.
func (c check) stripe() Result {
	const name = "Stripe-Signature"
	expected := "Stripe: Stripe-Signature holds t=<unix seconds> and one or more v1=<hex>, each the HMAC-SHA256, keyed with the endpoint secret (whsec_… as given), of t, a dot, then " + c.body() + fmt.Sprintf("; t must be at most %s before the capture.", seconds(c.s.Tolerance))
	value, count, ok := c.header(name)
	if !ok {
		return missing(expected, name)
	}
	var t string
	var signatures []string
	// Item by item: a header of millions of commas is not made into a
	// slice of millions of strings.
	for item := range strings.SplitSeq(value, ",") {
		k, v, _ := strings.Cut(item, "=")
		v, _, _ = strings.Cut(v, "=")
		switch k {
		case "t":
			t = v
		case "v1":
			if len(signatures) < maxSignatures {
				signatures = append(signatures, v)
			}
		}
	}
	ts, err := parseUnix(t)
	if err != nil {
		return malformed(expected, "Stripe-Signature has no t=<unix seconds> item"+reason(t)+"."+several(name, count))
	}
	if len(signatures) == 0 {
		return malformed(expected, "Stripe-Signature has no v1= signature (the only scheme Stripe's libraries check)."+several(name, count))
	}
	want := hex.EncodeToString(c.mac([]byte(strconv.FormatInt(ts, 10)), []byte("."), c.r.Body))
	found := fmt.Sprintf("Stripe-Signature has t=%d and %s.", ts, plural(len(signatures), "v1 signature")) + several(name, count)
	return c.emptyRefused(verdict(expected, matchAny(want, signatures), found, c.judge(ts, false)))
}

// emptyRefused notes, on a valid signature over an empty body, that
// stripe-node ("No webhook payload was provided.") and
// @octokit/webhooks-methods refuse an empty payload before checking: the
// signature is right, and the receiver refuses the request all the same.
func (c check) emptyRefused(res Result) Result {
	if len(c.r.Body) == 0 && res.Verdict == Valid {
		res.Detail += " The body is empty, which the provider's own library refuses before checking the signature: a receiver using it refuses this request."
	}
	return res
}

// github checks X-Hub-Signature-256: sha256=<hex of the HMAC of the body>,
// as @octokit/webhooks-methods' verify does.
func (c check) github() Result {
	const name = "X-Hub-Signature-256"
	expected := "GitHub: X-Hub-Signature-256 is sha256= then the hex HMAC-SHA256, keyed with the webhook's secret, of " + c.body() + "."
	value, count, ok := c.header(name)
	if !ok {
		note := ""
		if _, _, legacy := c.header("X-Hub-Signature"); legacy {
			note = " It has X-Hub-Signature, GitHub's older SHA-1 signature, which is not checked."
		}
		res := missing(expected, name)
		res.Detail += note
		return res
	}
	hexPart, found := strings.CutPrefix(value, "sha256=")
	if !found || !isHex(hexPart, sha256.Size) {
		return malformed(expected, "X-Hub-Signature-256 is not sha256= followed by 64 hex digits."+several(name, count))
	}
	want := "sha256=" + hex.EncodeToString(c.mac(c.r.Body))
	return c.emptyRefused(verdict(expected, matchAny(want, []string{value}), "X-Hub-Signature-256 holds a sha256 signature."+several(name, count), timestampJudgement{}))
}

// shopify checks X-Shopify-Hmac-Sha256: the base64 HMAC of the body keyed
// with the app's client secret, as @shopify/shopify-api's webhooks.validate
// does.
// Shopify's event webhooks carry it as Shopify-Hmac-Sha256, which the
// library reads first when it is there, with headers of the same kind.
func (c check) shopify() Result {
	expected := "Shopify: X-Shopify-Hmac-Sha256 (Shopify-Hmac-Sha256 for events) is the base64 (padded) HMAC-SHA256, keyed with the app's client secret, of " + c.body() + "."
	prefix := "X-Shopify-"
	if _, _, events := c.header("Shopify-Hmac-Sha256"); events {
		prefix = "Shopify-"
	}
	name := prefix + "Hmac-Sha256"
	value, count, ok := c.header(name)
	if !ok {
		return missing(expected, name)
	}
	if raw, err := base64.StdEncoding.DecodeString(value); err != nil || len(raw) != sha256.Size {
		return malformed(expected, name+" is not the padded base64 of 32 bytes (44 characters)."+several(name, count))
	}
	want := base64.StdEncoding.EncodeToString(c.mac(c.r.Body))
	res := verdict(expected, matchAny(want, []string{value}), name+" holds a signature."+several(name, count), timestampJudgement{})
	if res.Verdict != Valid {
		return res
	}
	// webhooks.validate refuses a matching signature without these
	// ("missing_headers"); Shopify always sends them, a hand-made test
	// request may not.
	var required, lacking []string
	for _, h := range []string{"Topic", "Shop-Domain", "API-Version", "Webhook-Id"} {
		required = append(required, prefix+h)
		if _, _, ok := c.header(prefix + h); !ok {
			lacking = append(lacking, prefix+h)
		}
	}
	if len(lacking) > 0 {
		res.Detail += fmt.Sprintf(" Shopify's library (webhooks.validate) also requires %s; this request lacks %s, so a receiver using it refuses the request (missing headers).", and(required), and(lacking))
	}
	return res
}

// and joins names as a sentence lists them.
func and(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// slack checks X-Slack-Signature: v0=<hex of the HMAC of
// "v0:<X-Slack-Request-Timestamp>:<body>">, as Bolt's verifySlackRequest
// does (which refuses a timestamp more than five minutes old).
func (c check) slack() Result {
	const sigName, tsName = "X-Slack-Signature", "X-Slack-Request-Timestamp"
	expected := "Slack: X-Slack-Signature is v0= then the hex HMAC-SHA256, keyed with the app's signing secret, of v0:, X-Slack-Request-Timestamp as sent, a colon, then " + c.body() + fmt.Sprintf("; the timestamp must be at most %s before the capture.", seconds(c.s.Tolerance))
	value, count, ok := c.header(sigName)
	if !ok {
		return missing(expected, sigName)
	}
	t, tsCount, ok := c.header(tsName)
	if !ok {
		return missing(expected, tsName)
	}
	ts, err := parseUnix(t)
	if err != nil {
		return malformed(expected, "X-Slack-Request-Timestamp is not unix seconds"+reason(t)+"."+several(tsName, tsCount))
	}
	hexPart, prefixed := strings.CutPrefix(value, "v0=")
	if !prefixed || !isHex(hexPart, sha256.Size) {
		return malformed(expected, "X-Slack-Signature is not v0= followed by 64 hex digits."+several(sigName, count))
	}
	want := "v0=" + hex.EncodeToString(c.mac([]byte("v0:"+t+":"), c.r.Body))
	found := fmt.Sprintf("X-Slack-Request-Timestamp is %d; X-Slack-Signature holds a v0 signature.", ts) + several(sigName, count) + several(tsName, tsCount)
	return verdict(expected, matchAny(want, []string{value}), found, c.judge(ts, false))
}

// standard checks Standard Webhooks' webhook-id, webhook-timestamp and
// webhook-signature (space-separated v1,<base64> items), the HMAC of
// "<id>.<timestamp>.<body>" keyed with the secret's decoded bytes, as the
// standardwebhooks library does; Svix sends the same under svix-id,
// svix-timestamp and svix-signature, read when webhook-id is absent.
func (c check) standard() Result {
	prefix := "webhook-"
	if _, _, ok := c.header("webhook-id"); !ok {
		if _, _, svix := c.header("svix-id"); svix {
			prefix = "svix-"
		}
	}
	idName, tsName, sigName := prefix+"id", prefix+"timestamp", prefix+"signature"
	expected := fmt.Sprintf("Standard Webhooks: %s holds space-separated v1,<base64> items, each the HMAC-SHA256, keyed with the secret's bytes (the base64 after whsec_, decoded), of %s, a dot, %s, a dot, then %s; the timestamp must be within %s of the capture.",
		sigName, idName, tsName, c.body(), seconds(c.s.Tolerance))
	id, idCount, ok := c.header(idName)
	if !ok {
		return missing(expected, idName+" (nor svix-id)")
	}
	t, tsCount, ok := c.header(tsName)
	if !ok {
		return missing(expected, tsName)
	}
	value, count, ok := c.header(sigName)
	if !ok {
		return missing(expected, sigName)
	}
	ts, err := parseUnix(t)
	if err != nil {
		return malformed(expected, tsName+" is not unix seconds"+reason(t)+"."+several(tsName, tsCount))
	}
	var signatures []string
	others := 0
	for item := range strings.SplitSeq(value, " ") {
		// The library compares the part between the first comma and
		// the next (JavaScript's destructured split).
		version, rest, _ := strings.Cut(item, ",")
		sig, _, _ := strings.Cut(rest, ",")
		switch {
		case version != "v1":
			others++
		case len(signatures) < maxSignatures:
			signatures = append(signatures, sig)
		}
	}
	if len(signatures) == 0 {
		return malformed(expected, sigName+" has no v1,<base64> item (the only version checked)."+several(sigName, count))
	}
	want := base64.StdEncoding.EncodeToString(c.mac([]byte(id+"."+strconv.FormatInt(ts, 10)+"."), c.r.Body))
	found := fmt.Sprintf("%s is %d; %s holds %s", tsName, ts, sigName, plural(len(signatures), "v1 signature"))
	if others > 0 {
		found += fmt.Sprintf(" and %s of other versions, not checked", plural(others, "item"))
	}
	found += "." + several(idName, idCount) + several(tsName, tsCount) + several(sigName, count)
	return verdict(expected, matchAny(want, signatures), found, c.judge(ts, true))
}

// generic checks an HMAC-SHA256 of the body, hex or base64, after an
// optional prefix, in the header the scheme names. The signature is
// compared as bytes: hex in either case, base64 in either alphabet, padded
// or not.
func (c check) generic() Result {
	name := c.s.Header
	written := "hex"
	if c.s.Encoding == Base64 {
		written = "base64"
	}
	after := ""
	if c.s.Prefix != "" {
		after = fmt.Sprintf(" after the prefix %q", c.s.Prefix)
	}
	expected := fmt.Sprintf("HMAC-SHA256: %s holds%s the %s HMAC-SHA256, keyed with the secret as given, of %s.", name, after, written, c.body())
	value, count, ok := c.header(name)
	if !ok {
		return missing(expected, name)
	}
	rest := value
	if c.s.Prefix != "" {
		if len(value) < len(c.s.Prefix) || !strings.EqualFold(value[:len(c.s.Prefix)], c.s.Prefix) {
			return malformed(expected, fmt.Sprintf("%s does not start with the prefix %q.", name, c.s.Prefix)+several(name, count))
		}
		rest = value[len(c.s.Prefix):]
	}
	got, ok := decodeMAC(strings.TrimSpace(rest), c.s.Encoding)
	if !ok {
		return malformed(expected, fmt.Sprintf("%s%s is not the %s of 32 bytes (an HMAC-SHA256).", name, after, written)+several(name, count))
	}
	return verdict(expected, hmac.Equal(got, c.mac(c.r.Body)), name+" holds a signature."+several(name, count), timestampJudgement{})
}

// decodeMAC reads a 32-byte MAC written in encoding.
func decodeMAC(text, encoding string) ([]byte, bool) {
	if encoding == Hex {
		b, err := hex.DecodeString(text)
		return b, err == nil && len(b) == sha256.Size
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(text); err == nil && len(b) == sha256.Size {
			return b, true
		}
	}
	return nil, false
}

func isHex(s string, size int) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == size
}

// maxTimestampDigits bounds a timestamp: 16 digits are what JavaScript's
// parseInt and Number, which Stripe's, Slack's and Standard Webhooks'
// libraries read it with, hold exactly, and take in unix seconds (10
// digits) written in milliseconds (13) or microseconds (16) by mistake.
const maxTimestampDigits = 16

// parseUnix reads whole unix seconds, digits only.
func parseUnix(s string) (int64, error) {
	if s == "" {
		return 0, errors.New("none")
	}
	if len(s) > maxTimestampDigits || strings.TrimLeft(s, "0123456789") != "" {
		return 0, errors.New("not digits")
	}
	return strconv.ParseInt(s, 10, 64)
}

// reason says why a timestamp was not read, without quoting it at length.
func reason(s string) string {
	if s == "" {
		return ""
	}
	if strings.TrimLeft(s, "0123456789") == "" {
		return fmt.Sprintf(" (it has %d digits, over the %d any library reads exactly)", len(s), maxTimestampDigits)
	}
	return fmt.Sprintf(" (it has %d characters that are not whole seconds)", len(s))
}

// timestampJudgement is a signed timestamp judged against the capture time
// and against now.
type timestampJudgement struct {
	outside bool
	words   string
}

// judge judges the signed time ts: against the capture time when it is
// known (the verdict), else against now; and against now too, for a
// receiver that would check the request now. A one-sided judge (Stripe,
// Slack) refuses only a timestamp too old, as their libraries do; Standard
// Webhooks also refuses one too far ahead.
//
// Ages are whole seconds in int64, as the libraries count them (now floored
// to the second, minus the timestamp): a Duration saturates 292 years out,
// and the negated minimum Duration is itself, which judged a timestamp
// centuries ahead as inside a two-sided tolerance. ts has at most 16
// digits, so no subtraction overflows.
func (c check) judge(ts int64, twoSided bool) timestampJudgement {
	signed := time.Unix(ts, 0).UTC()
	tol := int64(c.s.Tolerance / time.Second)
	age := func(ref time.Time) int64 { return ref.Unix() - ts }
	outside := func(ref time.Time) bool {
		a := age(ref)
		return a > tol || (twoSided && -a > tol)
	}
	rule := "older than"
	if twoSided {
		rule = "further than"
	}
	words := fmt.Sprintf("Signed at %s UTC; ", signed.Format(time.DateTime))
	var j timestampJudgement
	if !c.r.CapturedAt.IsZero() {
		j.outside = outside(c.r.CapturedAt)
		words += fmt.Sprintf("judged against the capture time, %s UTC: %s; the tolerance is %s, refused when %s that.", c.r.CapturedAt.UTC().Format(time.DateTime), relative(age(c.r.CapturedAt), "captured"), count(tol), rule)
		nowOutside := outside(c.r.Now)
		switch {
		case nowOutside && !j.outside:
			words += " Against now, " + relative(age(c.r.Now), "now") + ", a receiver checking it now would refuse it."
		case !nowOutside:
			words += " Against now it is also within the tolerance."
		default:
			words += " Against now, " + relative(age(c.r.Now), "now") + ", it is outside too."
		}
	} else {
		j.outside = outside(c.r.Now)
		words += fmt.Sprintf("the capture time is unknown, so it is judged against now: %s; the tolerance is %s, refused when %s that.", relative(age(c.r.Now), "now"), count(tol), rule)
	}
	if ts >= 1e12 {
		// 13 digits and more: unix seconds stay at 10 digits until 2286.
		words += " The timestamp looks like milliseconds (or finer), where the scheme signs unix seconds: check the sender's clock unit."
	}
	j.words = words
	return j
}

// relative says how far the signed time is from a reference, age seconds
// before it.
func relative(age int64, ref string) string {
	switch {
	case age > 0:
		return count(age) + " before " + refWords(ref)
	case age < 0:
		return count(-age) + " after " + refWords(ref)
	}
	return "the same second as " + refWords(ref)
}

func refWords(ref string) string {
	if ref == "captured" {
		return "it was captured"
	}
	return ref
}

// seconds writes a duration in whole seconds, with a readable form when
// long.
func seconds(d time.Duration) string { return count(int64(d / time.Second)) }

// count writes n seconds, with a readable form when long: hours and
// minutes, or years past what a Duration holds.
func count(n int64) string {
	const maxDuration = int64(math.MaxInt64 / time.Second)
	switch {
	case n < 120:
		return plural(int(n), "second")
	case n > maxDuration:
		return fmt.Sprintf("%d seconds (over %d years)", n, n/(365*24*3600))
	}
	return fmt.Sprintf("%d seconds (%s)", n, time.Duration(n)*time.Second)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
