package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/hookmcp/internal/signature"
	"github.com/mcpforge/servers/shared/mcptool"
	"github.com/mcpforge/servers/shared/redact"
)

// VerifySignatureArgs are verify_signature's arguments. Header, encoding
// and prefix are hmac-sha256's; the description says so.
type VerifySignatureArgs struct {
	RequestID string `json:"request_id,omitempty"`
	TokenArg
	Provider  string   `json:"provider"`
	Secret    string   `json:"secret,omitempty"`
	Header    string   `json:"header,omitempty"`
	Encoding  string   `json:"encoding,omitempty"`
	Prefix    string   `json:"prefix,omitempty"`
	Tolerance *float64 `json:"tolerance_seconds,omitempty"`
}

// VerifyResult is verify_signature's answer. It never holds the secret or
// the expected signature.
// The token and the provider are the call's, named in the text; the tool
// list's budget has no room to repeat them in the schema.
type VerifyResult struct {
	RequestID string `json:"request_id"`
	Verdict   string `json:"verdict" jsonschema:"valid, invalid, missing_header, malformed_header or timestamp_outside_tolerance"`
	Expected  string `json:"expected" jsonschema:"what a valid signature is, in words: the scheme, the header, what was signed"`
	Message   string `json:"message" jsonschema:"what the request holds, why the verdict, the timestamp judged against the capture time and now, and where the secret came from"`
}

// Bounds of the arguments: a header name, a prefix and a secret are short.
const (
	maxHeaderNameChars = 100
	maxPrefixChars     = 40
	maxSecretBytes     = 4096
)

var (
	toleranceRule = mcptool.Whole{Min: 1, Max: 86400, Default: int(signature.DefaultTolerance / time.Second)}
	encodingRule  = mcptool.Enum{signature.Hex, signature.Base64}
)

func (h *handlers) verifySignatureTool() mcptool.Tool[VerifySignatureArgs, VerifyResult] {
	return mcptool.Tool[VerifySignatureArgs, VerifyResult]{
		Name:         "verify_signature",
		Title:        "Check a webhook signature",
		Description:  "Check a captured request's signature over its exact bytes (request_id, else the latest); hmac-sha256 takes header, encoding, prefix; secret, else the startup one.",
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(true)},
		AdjustInput:  adjustVerifyArgs,
		AdjustOutput: adjustVerifyResult,
		Verbatim:     []string{"expected", "message"},
		Handle:       h.verifySignature,
	}
}

func adjustVerifyArgs(s *jsonschema.Schema) {
	adjustTokenArg(s)
	s.Properties["request_id"].Format = "uuid"
	providers := signature.Providers()
	s.Properties["provider"].Enum = make([]any, len(providers))
	for i, p := range providers {
		s.Properties["provider"].Enum[i] = string(p)
	}
	// The defaults (hex, 300) are left out of the schema for the tool
	// list's budget; the result's words state the tolerance used.
	encodingRule.Schema(s.Properties["encoding"])
	s.Properties["encoding"].Default = nil
	toleranceRule.Schema(s.Properties["tolerance_seconds"])
	s.Properties["tolerance_seconds"].Default = nil
}

func adjustVerifyResult(s *jsonschema.Schema) {
	verdicts := signature.Verdicts()
	s.Properties["verdict"].Enum = make([]any, len(verdicts))
	for i, v := range verdicts {
		s.Properties["verdict"].Enum[i] = string(v)
	}
}

// verifySignature reads the request as get_request does (its object, then
// its raw body by id) and checks its signature. Every error and the result
// pass through a redactor of every secret the call knows, the signing
// secret included, though none is ever written into them.
func (h *handlers) verifySignature(ctx context.Context, req *mcp.CallToolRequest, args VerifySignatureArgs) (*mcp.CallToolResult, VerifyResult, error) {
	secrets := redact.New(append(h.cfg.Secrets(), args.APIKey, args.Secret)...)
	res, out, err := h.verify(ctx, givenArgs(req), args)
	if err != nil {
		return nil, VerifyResult{}, errors.New(secrets.String(err.Error()))
	}
	out.Expected, out.Message = secrets.String(out.Expected), secrets.String(out.Message)
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			tc.Text = secrets.String(tc.Text)
		}
	}
	return res, out, nil
}

func (h *handlers) verify(ctx context.Context, g given, args VerifySignatureArgs) (*mcp.CallToolResult, VerifyResult, error) {
	scheme, err := schemeOf(g, args)
	if err != nil {
		return nil, VerifyResult{}, err
	}
	secret, from, err := h.signingSecret(g, scheme.Provider, args.Secret)
	if err != nil {
		return nil, VerifyResult{}, err
	}
	if g.blank("request_id") {
		return nil, VerifyResult{}, errors.New("request_id is empty: pass a request UUID, or leave request_id out to check the token's latest request; nothing was sent")
	}
	if args.RequestID != "" && !hooksvc.UUIDPattern.MatchString(args.RequestID) {
		return nil, VerifyResult{}, fmt.Errorf("request_id must be a request UUID such as %s; got %s. list_requests shows the ids of a token's requests; leave it out for the latest", hooksvc.ExampleUUID, hooksvc.Quote(args.RequestID))
	}
	id, key, err := h.access(args.TokenID, args.APIKey)
	if err != nil {
		return nil, VerifyResult{}, err
	}
	meta, err := h.requestToVerify(ctx, key, id, hooksvc.RequestID(strings.ToLower(args.RequestID)))
	if err != nil {
		return nil, VerifyResult{}, err
	}
	if kind := map[string]string{"email": "an email", "dns": "a DNS lookup"}[meta.Type]; kind != "" {
		return nil, VerifyResult{}, fmt.Errorf("request %s is %s, not an HTTP request: webhook signatures are HTTP headers; pass the request_id of a web request", meta.UUID, kind)
	}
	// The bytes as the sender sent them, even where they hold a key or a
	// secret that every shown answer redacts; nothing of them is shown.
	body, err := h.client.SignedBody(ctx, key, id, meta.UUID)
	if err != nil {
		return nil, VerifyResult{}, err
	}
	captured := metaResult(id, meta)
	if len(body) == 0 && isMultipart(captured.ContentType) {
		return nil, VerifyResult{}, fmt.Errorf("request %s is multipart/form-data, and the service keeps no raw body of a multipart request (only its fields and files), so the signed bytes are gone and its signature cannot be checked", meta.UUID)
	}
	// Zero when the service gave none it could read: the timestamp is then
	// judged against now, and the answer says so.
	when, _ := time.ParseInLocation(hooksvc.DateLayout, meta.CreatedAt, time.UTC)
	checked, err := signature.Verify(scheme, secret, signature.Request{Body: body, Headers: captured.Headers, CapturedAt: when, Now: h.now()})
	if err != nil {
		return nil, VerifyResult{}, fmt.Errorf("%s: %v", scheme.Provider, err)
	}
	h.seeMeta(id, meta)
	out := VerifyResult{
		RequestID: string(meta.UUID), Verdict: string(checked.Verdict),
		Expected: checked.Expected, Message: checked.Detail + " The secret came from " + from + ".",
	}
	if checked.Verdict == signature.Invalid && strings.TrimSpace(string(secret)) != string(secret) {
		// A secret pasted with its line break is the commonest wrong one.
		out.Message += " The secret begins or ends with white space, which signing secrets do not: check how it was copied."
	}
	summary := fmt.Sprintf("Signature of request %s (token %s) by %s: %s.", out.RequestID, id, scheme.Provider, out.Verdict)
	return mcptool.Text(summary, out.Message, out.Expected), out, nil
}

// requestToVerify is the request object named, or the token's newest.
func (h *handlers) requestToVerify(ctx context.Context, key string, id hooksvc.TokenID, requestID hooksvc.RequestID) (requestMeta, error) {
	if requestID != "" {
		item, err := h.client.GetRequest(ctx, key, id, requestID)
		if err != nil {
			return requestMeta{}, err
		}
		meta, err := decodeMeta(item)
		meta.UUID = requestID
		return meta, err
	}
	item, ok, err := h.client.LatestRequest(ctx, key, id)
	if err != nil {
		return requestMeta{}, err
	}
	if !ok {
		return requestMeta{}, fmt.Errorf("token %s has not captured any request yet, so there is no signature to check; have the sender deliver to %s, then call verify_signature again (or wait_for_request first)", id, h.client.CaptureURL(id))
	}
	return decodeMeta(item)
}

// schemeOf checks the scheme's arguments: header, encoding and prefix are
// hmac-sha256's alone (the other providers fix their headers).
func schemeOf(g given, args VerifySignatureArgs) (signature.Scheme, error) {
	var names []string
	for _, p := range signature.Providers() {
		names = append(names, string(p))
	}
	if args.Provider == "" {
		return signature.Scheme{}, fmt.Errorf("provider is required: one of %s (standard is Standard Webhooks, which Svix signs by); nothing was sent", strings.Join(names, ", "))
	}
	if _, err := oneOf(mcptool.Enum(names), "provider", args.Provider); err != nil {
		return signature.Scheme{}, fmt.Errorf("%v (standard is Standard Webhooks and Svix; hmac-sha256 with header, encoding and prefix for another sender); nothing was sent", err)
	}
	scheme := signature.Scheme{Provider: signature.Provider(args.Provider)}
	tolerance, err := toleranceRule.Value("tolerance_seconds", args.Tolerance)
	if err != nil {
		return signature.Scheme{}, fmt.Errorf("%v (how far the signed timestamp may be from the capture time; %d, five minutes, when left out); nothing was sent", err, toleranceRule.Default)
	}
	scheme.Tolerance = time.Duration(tolerance) * time.Second
	if _, ok := g["tolerance_seconds"]; ok && !signature.Timestamped(scheme.Provider) {
		return signature.Scheme{}, fmt.Errorf("tolerance_seconds is for stripe, slack and standard, whose signatures cover a timestamp; %s's does not: leave tolerance_seconds out; nothing was sent", scheme.Provider)
	}
	if scheme.Provider != signature.HMACSHA256 {
		for _, name := range []string{"header", "encoding", "prefix"} {
			if _, ok := g[name]; ok {
				return signature.Scheme{}, fmt.Errorf("%s is for provider hmac-sha256 only: %s signs in headers of its own; leave %s out; nothing was sent", name, scheme.Provider, name)
			}
		}
		return scheme, nil
	}
	if args.Header == "" {
		return signature.Scheme{}, errors.New("header is required with provider hmac-sha256: the name of the header that carries the signature, such as X-Signature; nothing was sent")
	}
	if len(args.Header) > maxHeaderNameChars || strings.ContainsFunc(args.Header, func(r rune) bool { return !isTokenChar(r) }) {
		return signature.Scheme{}, fmt.Errorf("header must be a header name (at most %d letters, digits and !#$%%&'*+-.^_`|~), such as X-Signature; got %s; nothing was sent", maxHeaderNameChars, hooksvc.Quote(args.Header))
	}
	if g.blank("encoding") {
		return signature.Scheme{}, errors.New("encoding is empty: pass hex or base64, or leave it out for hex; nothing was sent")
	}
	if scheme.Encoding, err = oneOf(encodingRule, "encoding", args.Encoding); err != nil {
		return signature.Scheme{}, fmt.Errorf("%v; nothing was sent", err)
	}
	if len(args.Prefix) > maxPrefixChars || strings.ContainsFunc(args.Prefix, func(r rune) bool { return r < 0x21 || r > 0x7e }) {
		return signature.Scheme{}, fmt.Errorf("prefix must be at most %d visible ASCII characters, what comes before the signature in the header (such as sha256=); got %s; nothing was sent", maxPrefixChars, hooksvc.Quote(args.Prefix))
	}
	scheme.Header, scheme.Prefix = args.Header, args.Prefix
	return scheme, nil
}

// isTokenChar reports a character RFC 9110 allows in a header name.
func isTokenChar(r rune) bool {
	return r < 0x7f && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r))
}

// signingSecret is the call's secret, else the one configured for the
// provider, and where it came from in words (never the secret).
func (h *handlers) signingSecret(g given, provider signature.Provider, secret string) ([]byte, string, error) {
	if g.blank("secret") {
		return nil, "", fmt.Errorf("secret is empty: pass the signing secret, or leave secret out to use the one set at startup (--signing-secret %s=VARIABLE); nothing was sent", provider)
	}
	if secret != "" {
		if len(secret) > maxSecretBytes {
			return nil, "", fmt.Errorf("secret is %d bytes, over %d: a signing secret is shorter; pass the secret alone (it is not shown); nothing was sent", len(secret), maxSecretBytes)
		}
		return []byte(secret), "the secret argument", nil
	}
	if s, ok := h.cfg.SigningSecrets[provider]; ok {
		return []byte(s.Value), fmt.Sprintf("%s (--signing-secret %s=%s)", s.Variable, provider, s.Variable), nil
	}
	return nil, "", fmt.Errorf("no secret for %s: pass secret, or have hookmcp started with --signing-secret %s=VARIABLE (or %s) naming an environment variable that holds it%s; nothing was sent",
		provider, provider, config.SigningSecretsVariable, configured(h.cfg))
}

// configured names the providers that have a secret set at startup.
func configured(cfg config.Config) string {
	if len(cfg.SigningSecrets) == 0 {
		return ""
	}
	var names []string
	for _, p := range signature.Providers() {
		if _, ok := cfg.SigningSecrets[p]; ok {
			names = append(names, string(p))
		}
	}
	return ". Secrets are set for: " + strings.Join(names, ", ")
}
