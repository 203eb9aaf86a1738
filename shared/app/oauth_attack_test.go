package app

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// oauthSend posts body to target with header and returns the status,
// the headers and the body of the answer.
func oauthSend(t *testing.T, target, body string, header http.Header) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for name, values := range header {
		for _, v := range values {
			req.Header.Add(name, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(got)
}

// signWith makes a JWT with claims signed by key with alg and the extra
// protected headers.
func signWith(t *testing.T, alg jose.SignatureAlgorithm, key any, headers map[jose.HeaderKey]any, embedJWK bool, claims map[string]any) string {
	t.Helper()
	opts := &jose.SignerOptions{EmbedJWK: embedJWK}
	for k, v := range headers {
		opts = opts.WithHeader(k, v)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	token, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// signRaw makes a JWS of payload, whatever it is, signed by key with ES256.
func signRaw(t *testing.T, key any, kid, payload string) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", kid))
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign([]byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	token, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// TestOAuthHostileTokens: what an attacker with network access, or an
// issuer of another make, can put in a token or a request. Headers that
// name other keys (jwk, jku, x5u) are never followed, an unknown crit
// header, a symmetric key in the JWKS or an algorithm the key does not
// name make the token fail; claims of the wrong type are refused naming
// the claim; scopes come as a string or a list in scope or scp; a token in
// the URL, or two Authorization headers, are refused as invalid_request;
// and no token shows in an answer or the log.
func TestOAuthHostileTokens(t *testing.T) {
	iss := newTestIssuer(t)
	iss.publish(jose.JSONWebKey{Key: []byte("a-shared-secret-of-32-bytes-long"), KeyID: "oct", Algorithm: "HS256", Use: "sig"})
	var followed atomic.Int64
	lure := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		followed.Add(1)
		http.NotFound(w, r)
	}))
	defer lure.Close()
	clock := &testClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	static := "static-token-of-the-operator"
	target, log, _ := oauthServer(t, iss, clock, static, "")
	now := clock.Now()
	claims := func(change func(map[string]any)) map[string]any {
		c := map[string]any{"iss": iss.srv.URL, "aud": target, "sub": "someone", "exp": now.Add(time.Hour).Unix(), "scope": "mcp:read"}
		if change != nil {
			change(c)
		}
		return c
	}
	stranger, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	good := sign(t, jose.ES256, iss.ec, "ec", claims(nil))
	rsaJWK, err := json.Marshal(jose.JSONWebKey{Key: iss.rsa.Public(), KeyID: "rsa"})
	if err != nil {
		t.Fatal(err)
	}
	bearer := func(token string) http.Header { return http.Header{"Authorization": {"Bearer " + token}} }
	for _, c := range []struct {
		name   string
		token  string // the one the test checks never shows
		query  string
		header http.Header
		status int
		want   string // in WWW-Authenticate
	}{
		{"scp a space-separated string (Microsoft Entra)", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { delete(c, "scope"); c["scp"] = "openid mcp:read" })), "", nil, 200, ""},
		{"scope a list", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["scope"] = []string{"mcp:read"} })), "", nil, 200, ""},
		{"scope named twice, and null scp", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["scope"] = "mcp:read mcp:read"; c["scp"] = nil })), "", nil, 200, ""},
		{"a scope with a space in a list", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { delete(c, "scope"); c["scp"] = []string{"mcp:read "} })), "", nil, 403, `error="insufficient_scope"`},
		{"scope of another type", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["scope"] = 7 })), "", nil, 401, "claim scope"},
		{"iss with a trailing slash", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["iss"] = iss.srv.URL + "/" })), "", nil, 200, ""},
		{"iss in capitals", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["iss"] = strings.ToUpper(iss.srv.URL) })), "", nil, 401, "another issuer"},
		{"iss with a look-alike", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["iss"] = strings.Replace(iss.srv.URL, "1", "\u0661", 1) })), "", nil, 401, "another issuer"},
		{"iss with a path", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["iss"] = iss.srv.URL + "/other" })), "", nil, 401, "another issuer"},
		{"no iss", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { delete(c, "iss") })), "", nil, 401, "another issuer"},
		{"iss not a string", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["iss"] = []string{iss.srv.URL} })), "", nil, 401, "claim iss"},
		{"aud in capitals", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["aud"] = strings.ToUpper(target) })), "", nil, 401, "another audience"},
		{"aud with a port added", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["aud"] = strings.Replace(target, "/mcp", ":80/mcp", 1) })), "", nil, 401, "another audience"},
		{"exp a string", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["exp"] = "9999999999" })), "", nil, 401, "claim exp is not"},
		{"exp huge", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["exp"] = 1e300 })), "", nil, 401, "claim exp is not"},
		{"exp negative", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["exp"] = -1 })), "", nil, 401, "expired"},
		{"exp a fraction", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["exp"] = float64(now.Unix()) + 3600.5 })), "", nil, 200, ""},
		{"exp null", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["exp"] = nil })), "", nil, 401, "no expiry"},
		{"nbf huge", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["nbf"] = 9.3e18 })), "", nil, 401, "claim nbf is not"},
		{"iat ahead", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["iat"] = now.Add(time.Hour).Unix() })), "", nil, 401, "not valid yet"},
		{"claims not an object", signRaw(t, iss.ec, "ec", `[1]`), "", nil, 401, "claims are not a JSON object"},
		{"an unknown crit header", signWith(t, jose.ES256, iss.ec, map[jose.HeaderKey]any{"kid": "ec", "crit": []string{"x-policy"}, "x-policy": 1}, false, claims(nil)), "", nil, 401, "does not verify"},
		{"a stranger's key embedded (jwk)", signWith(t, jose.ES256, stranger, nil, true, claims(nil)), "", nil, 401, "does not verify"},
		{"jku and x5u naming the stranger's keys", signWith(t, jose.ES256, stranger, map[jose.HeaderKey]any{"kid": "lure", "jku": lure.URL + "/jwks", "x5u": lure.URL + "/cert"}, false, claims(nil)), "", nil, 401, "does not publish"},
		{"HS256 under the kid of an oct key in the JWKS", sign(t, jose.HS256, []byte("a-shared-secret-of-32-bytes-long"), "oct", claims(nil)), "", nil, 401, "accepted algorithm"},
		{"ES256 under the kid of an oct key", sign(t, jose.ES256, iss.ec, "oct", claims(nil)), "", nil, 401, "does not publish"},
		{"HS256 keyed with the public JWK", sign(t, jose.HS256, rsaJWK, "rsa", claims(nil)), "", nil, 401, "accepted algorithm"},
		{"HS256 keyed with the modulus", sign(t, jose.HS256, iss.rsa.N.Bytes(), "rsa", claims(nil)), "", nil, 401, "accepted algorithm"},
		{"PS256 under a key that says RS256", sign(t, jose.PS256, iss.rsa, "rsa", claims(nil)), "", nil, 401, "for another algorithm"},
		{"lowercase bearer", good, "", http.Header{"Authorization": {"bearer " + good}}, 200, ""},
		{"lowercase bearer, the static token", static, "", http.Header{"Authorization": {"bearer " + static}}, 200, ""},
		{"the token in the query only", good, "access_token=" + good, http.Header{}, 400, `error="invalid_request"`},
		{"the token in the query and the header", good, "access%5Ftoken=" + good, bearer(good), 400, `error="invalid_request"`},
		{"the static token in the query and the header", static, "access_token=" + static, bearer(static), 400, `error="invalid_request"`},
		{"two Authorization headers", good, "", http.Header{"Authorization": {"Bearer " + good, "Bearer " + static}}, 400, `error="invalid_request"`},
	} {
		at := target
		if c.query != "" {
			at += "?" + c.query
		}
		header := c.header
		if header == nil {
			header = bearer(c.token)
		}
		status, answer, body := oauthSend(t, at, initialize, header)
		challenge := answer.Get("WWW-Authenticate")
		if status != c.status || !strings.Contains(challenge, c.want) {
			t.Errorf("%s: HTTP %d, WWW-Authenticate %q (%s); want %d and %q", c.name, status, challenge, strings.TrimSpace(body), c.status, c.want)
		}
		if status != 200 && !strings.Contains(challenge, `resource_metadata="`+protectedResourceMetadataURL(target)+`"`) {
			t.Errorf("%s: WWW-Authenticate %q does not name the metadata", c.name, challenge)
		}
		for _, spelling := range []string{c.token, url.QueryEscape(c.token), strings.ToLower(c.token)} {
			if strings.Contains(challenge+body, spelling) || strings.Contains(log.String(), spelling) {
				t.Errorf("%s: the token shows in the answer or the log", c.name)
			}
		}
	}
	if n := followed.Load(); n != 0 {
		t.Errorf("a URL named in a token's header was fetched %d times", n)
	}
}

// TestOAuthCallNameJudgedIsRun: a tools/call whose name is given twice
// (or in another case) is judged by the name that runs: a read-only token
// never gets the writing tool to run, whichever name the decoder keeps.
func TestOAuthCallNameJudgedIsRun(t *testing.T) {
	iss := newTestIssuer(t)
	clock := &testClock{now: time.Now()}
	target, _, _ := oauthServer(t, iss, clock, "", iss.srv.URL+"/jwks")
	reader := sign(t, jose.ES256, iss.ec, "ec", map[string]any{"iss": iss.srv.URL, "aud": target, "exp": clock.Now().Add(time.Hour).Unix(), "scope": "mcp:read"})
	header := http.Header{"Authorization": {"Bearer " + reader}, "Mcp-Protocol-Version": {"2025-06-18"}}
	for _, params := range []string{
		`{"name":"look","name":"change","arguments":{}}`,
		`{"name":"change","name":"look","arguments":{}}`,
		`{"name":"look","Name":"change","arguments":{}}`,
		`{"NAME":"change","name":"look","arguments":{}}`,
	} {
		status, _, body := oauthSend(t, target, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":`+params+`}`, header)
		if status != 200 || strings.Contains(body, `"changed"`) || !strings.Contains(body, `"result"`) && !strings.Contains(body, `"error"`) {
			t.Errorf("%s: HTTP %d, %s", params, status, body)
		}
	}
	// A batch (protocol 2025-03-26) has each of its calls judged.
	header.Set("Mcp-Protocol-Version", "2025-03-26")
	status, _, body := oauthSend(t, target, `[{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"look","arguments":{}}},`+
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"change","arguments":{}}}]`, header)
	if strings.Contains(body, `"changed"`) || !strings.Contains(body, `"looked"`) || !strings.Contains(body, "Tool change was not called") {
		t.Errorf("a batch: HTTP %d, %s", status, body)
	}
}

// privateAddress is an address of this machine on a private network
// (RFC 1918, or an IPv6 unique local address), or "" when it has none.
func privateAddress() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if prefix, ok := a.(*net.IPNet); ok && prefix.IP.IsPrivate() {
			return prefix.IP.String()
		}
	}
	return ""
}

// TestOAuthIssuerOnPrivateNetwork: an issuer the operator names on a
// private network (a Keycloak in the same cluster), even by its IP, whose
// metadata does not list PKCE (as Microsoft Entra's), has its keys read:
// the go-sdk's discovery refuses both, guards for a client handed URLs by
// a server it does not trust, not for the operator's own --oauth-issuer.
// Metadata naming another issuer is still refused.
func TestOAuthIssuerOnPrivateNetwork(t *testing.T) {
	addr := privateAddress()
	if addr == "" {
		t.Skip("this machine has no address on a private network")
	}
	listener, err := net.Listen("tcp", net.JoinHostPort(addr, "0"))
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	srv := httptest.NewUnstartedServer(mux)
	srv.Listener = listener
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"issuer": srv.URL, "authorization_endpoint": srv.URL + "/authorize", "token_endpoint": srv.URL + "/token",
			"jwks_uri": srv.URL + "/jwks", "response_types_supported": []string{"code"},
		})
	})
	mux.HandleFunc("GET /wrong/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"issuer": srv.URL, "jwks_uri": srv.URL + "/jwks"})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: "ec", Algorithm: "ES256", Use: "sig"}}})
	})
	srv.StartTLS()
	defer srv.Close()
	client := newOAuthHTTPClient()
	transport, ok := client.Transport.(*http.Transport)
	if !ok {
		t.Fatalf("the OAuth client's transport is %T, not one of its own", client.Transport)
	}
	// httptest's certificate names loopback only.
	transport.TLSClientConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	transport.TLSClientConfig.ServerName = "127.0.0.1"
	log := newSyncLog()
	cache := newJWKSCache(srv.URL, "", client, slog.New(slog.NewTextHandler(log, nil)), time.Now)
	if keys, err := cache.lookup(context.Background(), "ec", "ES256"); err != nil || len(keys) != 1 {
		t.Errorf("the keys of an issuer at %s: %d keys, %v; log:\n%s", srv.URL, len(keys), err, log.String())
	}
	// Metadata that names another issuer is not believed.
	wrong := newJWKSCache(srv.URL+"/wrong", "", client, slog.New(slog.NewTextHandler(log, nil)), time.Now)
	if _, err := wrong.lookup(context.Background(), "ec", "ES256"); err != errKeysUnavailable || !strings.Contains(log.String(), "names the issuer") {
		t.Errorf("metadata naming another issuer: %v; log:\n%s", err, log.String())
	}
}

// TestOAuthToolReplacedInPlace: a read-only tool replaced in place by one
// that writes (a saved query reloaded as a mutation of the same name) is
// judged by what it is now at once, not by the list as it was until the
// server's notice of the change comes.
func TestOAuthToolReplacedInPlace(t *testing.T) {
	iss := newTestIssuer(t)
	clock := &testClock{now: time.Now()}
	target, _, server := oauthServer(t, iss, clock, "", iss.srv.URL+"/jwks")
	reader := sign(t, jose.ES256, iss.ec, "ec", map[string]any{"iss": iss.srv.URL, "aud": target, "exp": clock.Now().Add(time.Hour).Unix(), "scope": "mcp:read"})
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	session, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: target, HTTPClient: &http.Client{Transport: bearerTransport{reader}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	for round := range 20 {
		res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "look", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("round %d: look, read-only: %v, %v", round, httpToolText(res), err)
		}
		var ran atomic.Bool
		server.AddTool(&mcp.Tool{Name: "look", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ran.Store(true)
			return &mcp.CallToolResult{}, nil
		})
		res, err = session.CallTool(context.Background(), &mcp.CallToolParams{Name: "look", Arguments: map[string]any{}})
		if err != nil || !res.IsError || ran.Load() {
			t.Fatalf("round %d: look replaced by a tool that writes, called with mcp:read at once: %v, %v; ran %v", round, httpToolText(res), err, ran.Load())
		}
		server.AddTool(&mcp.Tool{Name: "look", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "looked"}}}, nil
		})
	}
}

// TestOAuthChallengeInBrowser: a page of an allowed origin can read the
// challenge of a 401 (WWW-Authenticate is exposed), as the TypeScript
// SDK's OAuth client in a browser must to find the metadata, and the
// metadata itself from any origin; a page of another origin gets 403 and
// no challenge, so it learns nothing of the server's issuer.
func TestOAuthChallengeInBrowser(t *testing.T) {
	iss := newTestIssuer(t)
	target, _, _ := oauthServer(t, iss, &testClock{now: time.Now()}, "", iss.srv.URL+"/jwks", "https://app.example.com:443")
	status, answer, _ := oauthSend(t, target, initialize, http.Header{"Origin": {"https://app.example.com"}})
	if status != 401 || answer.Get("Access-Control-Allow-Origin") != "https://app.example.com" ||
		!strings.Contains(answer.Get("Access-Control-Expose-Headers"), "WWW-Authenticate") || !strings.Contains(answer.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Errorf("an allowed page without a token: HTTP %d, %v", status, answer)
	}
	status, answer, _ = oauthSend(t, target+"?access_token=x", initialize, http.Header{"Origin": {"https://app.example.com"}})
	if status != 400 || answer.Get("Access-Control-Allow-Origin") != "https://app.example.com" || !strings.Contains(answer.Get("WWW-Authenticate"), "invalid_request") {
		t.Errorf("an allowed page with a token in the URL: HTTP %d, %v", status, answer)
	}
	status, answer, _ = oauthSend(t, target, initialize, http.Header{"Origin": {"https://evil.example.com"}})
	if status != 403 || answer.Get("WWW-Authenticate") != "" || answer.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("another page: HTTP %d, %v", status, answer)
	}
	req, err := http.NewRequest(http.MethodOptions, protectedResourceMetadataURL(target), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", "https://evil.example.com")
	req.Header.Set("Access-Control-Request-Method", "GET")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("the metadata's preflight: HTTP %d, %v", resp.StatusCode, resp.Header)
	}
}
