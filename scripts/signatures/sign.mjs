// Signs webhook requests with each provider's own library, pinned in
// package-lock.json, and prints them as JSON for
// TestVerifySignatureAgainstProviders (hookmcp/internal/tools), which sends
// each to the capture API stand-in and checks hookmcp's verify_signature
// verdict. Each case also carries what the provider's own verification says
// of exactly what is sent (library_valid), judged at the capture time.
//
//   node sign.mjs <capture time, unix seconds>
//
// Run from the folder the packages are installed in (scripts/signatures
// installs them under .cache/signatures). Uses no clock: every timestamp is
// the capture time given, or an offset from it.
import { createHmac } from "node:crypto";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const captured = Number(process.argv[2]);
if (!Number.isInteger(captured) || captured <= 0) {
  console.error("usage: node sign.mjs <capture time, unix seconds>");
  process.exit(2);
}
const here = process.cwd();
const require = createRequire(path.join(here, "package.json"));
const esm = (file) => import(pathToFileURL(path.join(here, "node_modules", file)).href);

const Stripe = require("stripe");
const { Webhook } = require("standardwebhooks");
const { verifySlackRequest } = require("@slack/bolt");
require("@shopify/shopify-api/adapters/web-api");
const { shopifyApi, ApiVersion } = require("@shopify/shopify-api");
const { getHmac } = require("@shopify/shopify-api/test-helpers");
const { sign: githubSign, verify: githubVerify } = await esm("@octokit/webhooks-methods/dist-node/index.js");

// A body with bytes beyond ASCII and a final newline: a checker that
// re-encodes or trims would fail it.
const body = '{"id":"evt_1","object":"event","note":"café ☕ ✓","amount":1999}\n';
const changed = body.replace("evt_1", "evt_2"); // one byte
const fresh = captured - 10;
const old = captured - 3600;

const cases = [];
// add records one case: what is sent, what hookmcp must answer, and what
// the provider's library says of it (verify returns true, or throws or
// returns false).
async function add(c, verify) {
  let libraryValid = false;
  let libraryError = "";
  try {
    libraryValid = (await verify()) !== false;
  } catch (e) {
    libraryError = String(e.message || e).split("\n")[0];
  }
  cases.push({ content_type: "application/json", ...c, library_valid: libraryValid, library_error: libraryError });
}

// Stripe: webhooks.generateTestHeaderString signs; webhooks.signature.verifyHeader
// checks, at the capture time (receivedAt, milliseconds).
{
  const stripe = new Stripe("sk_test_offline_never_used");
  const secret = "whsec_3c1b0e2f5a7d4c9e8b6a0f1d2c3e4b5a";
  const header = (ts) => stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: ts });
  const verify = (payload, h, s) => () => stripe.webhooks.signature.verifyHeader(payload, h, s, 300, undefined, captured * 1000);
  const h = header(fresh);
  await add({ name: "stripe valid", provider: "stripe", secret, body, headers: { "Stripe-Signature": h }, want: "valid" }, verify(body, h, secret));
  await add({ name: "stripe body changed", provider: "stripe", secret, body: changed, headers: { "Stripe-Signature": h }, want: "invalid" }, verify(changed, h, secret));
  const wrong = "whsec_0000000000000000000000000000beef";
  await add({ name: "stripe wrong secret", provider: "stripe", secret: wrong, body, headers: { "Stripe-Signature": h }, want: "invalid" }, verify(body, h, wrong));
  await add({ name: "stripe missing header", provider: "stripe", secret, body, headers: {}, want: "missing_header" }, verify(body, undefined, secret));
  const o = header(old);
  await add({ name: "stripe old timestamp", provider: "stripe", secret, body, headers: { "Stripe-Signature": o }, want: "timestamp_outside_tolerance" }, verify(body, o, secret));
  await add({ name: "stripe old timestamp, tolerance 7200", provider: "stripe", secret, body, headers: { "Stripe-Signature": o }, args: { tolerance_seconds: 7200 }, want: "valid" },
    () => stripe.webhooks.signature.verifyHeader(body, o, secret, 7200, undefined, captured * 1000));
  // A secret being rolled: Stripe signs with both, one v1 each; either
  // matches.
  const rolled = header(fresh).replace(",v1=", ",v1=" + "0".repeat(64) + ",v1=");
  await add({ name: "stripe two v1 signatures, one matching", provider: "stripe", secret, body, headers: { "Stripe-Signature": rolled }, want: "valid" }, verify(body, rolled, secret));
  // A sender that writes milliseconds: parseInt reads all 13 digits and
  // a timestamp ahead of the receipt is not refused.
  const ms = header(captured * 1000);
  await add({ name: "stripe timestamp in milliseconds", provider: "stripe", secret, body, headers: { "Stripe-Signature": ms }, want: "valid" }, verify(body, ms, secret));
  // Items after a space are not read (" v1" is not "v1").
  const spaced = header(fresh).replace(",v1=", ", v1=");
  await add({ name: "stripe space after the comma", provider: "stripe", secret, body, headers: { "Stripe-Signature": spaced }, want: "malformed_header" }, verify(body, spaced, secret));
  // Line endings and a byte order mark are signed bytes like any other.
  const crlf = "\ufeff" + body.replace("\n", "\r\n") + "\r\n";
  const hc = stripe.webhooks.generateTestHeaderString({ payload: crlf, secret, timestamp: fresh });
  await add({ name: "stripe body with CRLF and a BOM", provider: "stripe", secret, body: crlf, headers: { "Stripe-Signature": hc }, want: "valid" }, verify(crlf, hc, secret));
}

// GitHub: @octokit/webhooks-methods sign and verify.
{
  const secret = "gh-webhook-secret-5f2a9c";
  const h = await githubSign(secret, body);
  const verify = (payload, sig, s) => () => githubVerify(s, payload, sig);
  await add({ name: "github valid", provider: "github", secret, body, headers: { "X-Hub-Signature-256": h, "X-GitHub-Event": "push" }, want: "valid" }, verify(body, h, secret));
  await add({ name: "github body changed", provider: "github", secret, body: changed, headers: { "X-Hub-Signature-256": h }, want: "invalid" }, verify(changed, h, secret));
  await add({ name: "github wrong secret", provider: "github", secret: "gh-webhook-secret-000000", body, headers: { "X-Hub-Signature-256": h }, want: "invalid" }, verify(body, h, "gh-webhook-secret-000000"));
  await add({ name: "github missing header", provider: "github", secret, body, headers: { "X-GitHub-Event": "push" }, want: "missing_header" }, verify(body, undefined, secret));
}

// Shopify: the library's test helper getHmac signs; shopify.webhooks.validate
// checks (which also wants the topic, domain, version and id headers).
{
  const secret = "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";
  const shopify = (s) => shopifyApi({ apiKey: "key", apiSecretKey: s, scopes: [], hostName: "app.example.com", apiVersion: ApiVersion.January25, isEmbeddedApp: false, logger: { level: 0, log: () => {} } });
  const others = { "X-Shopify-Topic": "orders/create", "X-Shopify-Shop-Domain": "shop.myshopify.com", "X-Shopify-API-Version": "2025-01", "X-Shopify-Webhook-Id": "b54557e4-bdd9-4b37-8a5f-bf7d70bcd043" };
  const h = getHmac(body, secret);
  const verify = (payload, headers, s) => async () => {
    const result = await shopify(s).webhooks.validate({ rawBody: payload, rawRequest: new Request("https://app.example.com/webhooks", { method: "POST", headers }) });
    if (!result.valid) throw new Error(`not valid: ${result.reason}`);
  };
  const headers = { ...others, "X-Shopify-Hmac-Sha256": h };
  await add({ name: "shopify valid", provider: "shopify", secret, body, headers, want: "valid" }, verify(body, headers, secret));
  await add({ name: "shopify body changed", provider: "shopify", secret, body: changed, headers, want: "invalid" }, verify(changed, headers, secret));
  const wrong = "shpss_00000000000000000000000000000000";
  await add({ name: "shopify wrong secret", provider: "shopify", secret: wrong, body, headers, want: "invalid" }, verify(body, headers, wrong));
  await add({ name: "shopify missing header", provider: "shopify", secret, body, headers: others, want: "missing_header" }, verify(body, others, secret));
  // Event webhooks: Shopify-* headers, read first when there (a wrong
  // X-Shopify-Hmac-Sha256 beside them is not looked at).
  const events = { "Shopify-Topic": "orders/create", "Shopify-Shop-Domain": "shop.myshopify.com", "Shopify-API-Version": "2025-01", "Shopify-Webhook-Id": "b54557e4-bdd9-4b37-8a5f-bf7d70bcd043", "Shopify-Hmac-Sha256": h, "X-Shopify-Hmac-Sha256": getHmac(changed, secret) };
  await add({ name: "shopify event headers", provider: "shopify", secret, body, headers: events, want: "valid" }, verify(body, events, secret));
}

// Slack: its libraries verify and do not sign, so the request is signed by
// Slack's documented recipe (api.slack.com/authentication/verifying-requests-from-slack)
// and Bolt's verifySlackRequest, at the capture time, is the judge; Slack's
// own published example, captured years later, is the old timestamp.
{
  const secret = "0f1e2d3c4b5a69788796a5b4c3d2e1f0";
  const slackSign = (ts, payload, s) => "v0=" + createHmac("sha256", s).update(`v0:${ts}:${payload}`).digest("hex");
  const verify = (payload, headers, s) => () =>
    verifySlackRequest({ signingSecret: s, body: payload, headers: { "x-slack-signature": headers["X-Slack-Signature"], "x-slack-request-timestamp": Number(headers["X-Slack-Request-Timestamp"]) }, nowMilliseconds: captured * 1000 });
  const headers = { "X-Slack-Request-Timestamp": String(fresh), "X-Slack-Signature": slackSign(fresh, body, secret) };
  await add({ name: "slack valid", provider: "slack", secret, body, headers, want: "valid" }, verify(body, headers, secret));
  await add({ name: "slack body changed", provider: "slack", secret, body: changed, headers, want: "invalid" }, verify(changed, headers, secret));
  const wrong = "00000000000000000000000000000000";
  await add({ name: "slack wrong secret", provider: "slack", secret: wrong, body, headers, want: "invalid" }, verify(body, headers, wrong));
  const noSig = { "X-Slack-Request-Timestamp": String(fresh) };
  await add({ name: "slack missing header", provider: "slack", secret, body, headers: noSig, want: "missing_header" }, verify(body, noSig, secret));
  const docBody = "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
  const docHeaders = { "X-Slack-Request-Timestamp": "1531420618", "X-Slack-Signature": "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503" };
  await add({ name: "slack published example, old timestamp", provider: "slack", secret: "8f742231b10e8888abcd99yyyzzz85a5", body: docBody, content_type: "application/x-www-form-urlencoded", headers: docHeaders, want: "timestamp_outside_tolerance" },
    verify(docBody, docHeaders, "8f742231b10e8888abcd99yyyzzz85a5"));
  const oldHeaders = { "X-Slack-Request-Timestamp": String(old), "X-Slack-Signature": slackSign(old, body, secret) };
  await add({ name: "slack old timestamp", provider: "slack", secret, body, headers: oldHeaders, want: "timestamp_outside_tolerance" }, verify(body, oldHeaders, secret));
  const msHeaders = { "X-Slack-Request-Timestamp": String(captured * 1000), "X-Slack-Signature": slackSign(captured * 1000, body, secret) };
  await add({ name: "slack timestamp in milliseconds", provider: "slack", secret, body, headers: msHeaders, want: "valid" }, verify(body, msHeaders, secret));
}

// Standard Webhooks: standardwebhooks' Webhook.sign and verify; verify reads
// the clock, which is the capture time while it runs.
{
  const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const id = "msg_2Lh9KRb0pzN4LeJ1n3iYQ";
  const headersAt = (ts, wh) => ({ "webhook-id": id, "webhook-timestamp": String(ts), "webhook-signature": wh.sign(id, new Date(ts * 1000), body) });
  const verify = (payload, headers, s) => () => {
    const realNow = Date.now;
    Date.now = () => captured * 1000;
    try {
      new Webhook(s).verify(payload, headers);
    } finally {
      Date.now = realNow;
    }
  };
  const wh = new Webhook(secret);
  const headers = headersAt(fresh, wh);
  await add({ name: "standard valid", provider: "standard", secret, body, headers, want: "valid" }, verify(body, headers, secret));
  await add({ name: "standard body changed", provider: "standard", secret, body: changed, headers, want: "invalid" }, verify(changed, headers, secret));
  const wrong = "whsec_" + Buffer.from("another secret, 32 bytes long!!!").toString("base64");
  await add({ name: "standard wrong secret", provider: "standard", secret: wrong, body, headers, want: "invalid" }, verify(body, headers, wrong));
  const noSig = { "webhook-id": id, "webhook-timestamp": String(fresh) };
  await add({ name: "standard missing header", provider: "standard", secret, body, headers: noSig, want: "missing_header" }, verify(body, noSig, secret));
  const oldHeaders = headersAt(old, wh);
  await add({ name: "standard old timestamp", provider: "standard", secret, body, headers: oldHeaders, want: "timestamp_outside_tolerance" }, verify(body, oldHeaders, secret));
  // Svix's own header names, as Svix sends them (standardwebhooks reads
  // the webhook- names, onto which the svix package maps them).
  const svix = { "svix-id": id, "svix-timestamp": headers["webhook-timestamp"], "svix-signature": headers["webhook-signature"] };
  await add({ name: "standard valid, svix headers", provider: "standard", secret, body, headers: svix, want: "valid" }, verify(body, headers, secret));
  // Ahead of the capture: refused as "too new", an hour ahead as
  // centuries ahead (past what a Go time.Duration holds).
  for (const [name, ts] of [["an hour ahead", captured + 3600], ["in the year 5138", 99999999999], ["in milliseconds", captured * 1000]]) {
    const ahead = headersAt(ts, wh);
    await add({ name: `standard timestamp ${name}`, provider: "standard", secret, body, headers: ahead, want: "timestamp_outside_tolerance" }, verify(body, ahead, secret));
  }
  // A secret being rolled: space-separated items, the matching one last,
  // one of another version, and one with a trailing comma part.
  const sig = headers["webhook-signature"];
  const several = { ...headers, "webhook-signature": `v1a,xyz v1,${"A".repeat(43)}= ${sig},extra` };
  await add({ name: "standard several signatures, one matching", provider: "standard", secret, body, headers: several, want: "valid" }, verify(body, several, secret));
  // The secret's base64 without whsec_ is the same key.
  const bare = secret.slice("whsec_".length);
  await add({ name: "standard secret without whsec_", provider: "standard", secret: bare, body, headers, want: "valid" }, verify(body, headers, bare));
}

process.stdout.write(JSON.stringify(cases));
