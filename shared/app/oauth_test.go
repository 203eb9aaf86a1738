package app

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"
)

// testClock is a clock the test moves.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// testIssuer is an authorization server in-process: RFC 8414 metadata and
// a JWKS, with the keys it signs with.
type testIssuer struct {
	srv     *httptest.Server
	mu      sync.Mutex
	public  []jose.JSONWebKey
	fetches atomic.Int64
	ec      *ecdsa.PrivateKey
	rsa     *rsa.PrivateKey
	ed      ed25519.PrivateKey
}

func newTestIssuer(t *testing.T) *testIssuer {
	t.Helper()
	iss := &testIssuer{}
	var err error
	if iss.ec, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		t.Fatal(err)
	}
	if iss.rsa, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		t.Fatal(err)
	}
	if _, iss.ed, err = ed25519.GenerateKey(rand.Reader); err != nil {
		t.Fatal(err)
	}
	iss.public = []jose.JSONWebKey{
		{Key: iss.ec.Public(), KeyID: "ec", Algorithm: "ES256", Use: "sig"},
		{Key: iss.rsa.Public(), KeyID: "rsa", Algorithm: "RS256", Use: "sig"},
		{Key: iss.ed.Public(), KeyID: "ed", Use: "sig"},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"issuer": iss.srv.URL, "authorization_endpoint": iss.srv.URL + "/authorize", "token_endpoint": iss.srv.URL + "/token",
			"jwks_uri": iss.srv.URL + "/jwks", "response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
		})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		iss.fetches.Add(1)
		iss.mu.Lock()
		defer iss.mu.Unlock()
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: iss.public})
	})
	iss.srv = httptest.NewServer(mux)
	t.Cleanup(iss.srv.Close)
	return iss
}

func (iss *testIssuer) publish(k jose.JSONWebKey) {
	iss.mu.Lock()
	iss.public = append(iss.public, k)
	iss.mu.Unlock()
}

// sign makes a JWT with claims, signed by key with alg, naming kid.
func sign(t *testing.T, alg jose.SignatureAlgorithm, key any, kid string, claims map[string]any) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType("at+jwt")
	if kid != "" {
		opts = opts.WithHeader("kid", kid)
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

// unsigned is a JWT with alg none (RFC 7519 §6).
func unsigned(t *testing.T, claims map[string]any) string {
	t.Helper()
	body, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(`{"alg":"none","typ":"JWT","kid":"ec"}`)) + "." + enc.EncodeToString(body) + "."
}

// oauthServer serves a server with two tools, one read-only, one not,
// and a third that decides per call, behind OAuth tokens of iss; it
// returns the URL of /mcp and the log. Pages of allowOrigins (normalized,
// scheme://host:port) may call it.
func oauthServer(t *testing.T, iss *testIssuer, clock *testClock, token string, jwksURL string, allowOrigins ...string) (string, *syncLog, *mcp.Server) {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + listener.Addr().String() + "/mcp"
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	answer := func(text string) mcp.ToolHandler {
		return func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		}
	}
	object := json.RawMessage(`{"type":"object"}`)
	server.AddTool(&mcp.Tool{Name: "look", InputSchema: object, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, answer("looked"))
	server.AddTool(&mcp.Tool{Name: "change", InputSchema: object, Annotations: &mcp.ToolAnnotations{DestructiveHint: ptrTo(false)}}, answer("changed"))
	server.AddTool(&mcp.Tool{Name: "decide", InputSchema: object}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if !WritesAllowed(ctx) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "read only: needs " + WriteScope(ctx)}}}, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "decided"}}}, nil
	})
	origins := map[string]bool{}
	for _, o := range allowOrigins {
		origins[o] = true
	}
	access := httpAccess{token: token, allowOrigins: origins, selfChecked: []string{"decide"}, oauth: &oauthConfig{
		issuer: iss.srv.URL, resource: url, jwksURL: jwksURL, readScopes: []string{"mcp:read"}, writeScopes: []string{"mcp:write"},
		leeway: oauthLeeway, now: clock.Now, client: iss.srv.Client(),
	}}
	log := newSyncLog()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- serveMCP(ctx, listener, server, access, slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})), 0)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serving: %v", err)
		}
	})
	return url, log, server
}

func ptrTo[T any](v T) *T { return &v }

// oauthPost sends initialize with the token and returns the status, the
// challenge and the body.
func oauthPost(t *testing.T, url, token string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initialize))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(body)
}

// TestOAuthTokens: an access token is admitted only when signed by one of
// the issuer's published keys with an asymmetric algorithm, from the
// configured issuer, for this server's resource URL, within its times
// (60 s of leeway) and with the read scope; every other token gets 401
// invalid_token (or 403 insufficient_scope) with a challenge naming the
// metadata, and neither the answer nor the log repeats the token.
func TestOAuthTokens(t *testing.T) {
	iss := newTestIssuer(t)
	clock := &testClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	url, log, _ := oauthServer(t, iss, clock, "static-token-of-the-operator", "")
	now := clock.Now()
	claims := func(change func(map[string]any)) map[string]any {
		c := map[string]any{"iss": iss.srv.URL, "aud": url, "sub": "someone", "exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "scope": "openid mcp:read"}
		if change != nil {
			change(c)
		}
		return c
	}
	stranger, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(iss.rsa.Public())
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	for _, c := range []struct {
		name   string
		token  string
		status int
		want   string // in WWW-Authenticate
	}{
		{"ES256", sign(t, jose.ES256, iss.ec, "ec", claims(nil)), 200, ""},
		{"RS256 with the write scope", sign(t, jose.RS256, iss.rsa, "rsa", claims(func(c map[string]any) { c["scope"] = "mcp:write" })), 200, ""},
		{"EdDSA, scp as a list", sign(t, jose.EdDSA, iss.ed, "ed", claims(func(c map[string]any) { delete(c, "scope"); c["scp"] = []string{"mcp:read"} })), 200, ""},
		{"no kid", sign(t, jose.ES256, iss.ec, "", claims(nil)), 200, ""},
		{"aud a list, with a trailing slash", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["aud"] = []string{"other", url + "/"} })), 200, ""},
		{"expired within the leeway", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["exp"] = now.Add(-30 * time.Second).Unix() })), 200, ""},
		{"the static token", "static-token-of-the-operator", 200, ""},
		{"no token", "", 401, `Bearer resource_metadata="http://`},
		{"expired", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["exp"] = now.Add(-2 * time.Minute).Unix() })), 401, `error_description="the token has expired"`},
		{"not yet valid", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["nbf"] = now.Add(5 * time.Minute).Unix() })), 401, "not valid yet"},
		{"no expiry", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { delete(c, "exp") })), 401, "no expiry"},
		{"another audience", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["aud"] = "https://other.example.com/mcp" })), 401, "another audience"},
		{"no audience", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { delete(c, "aud") })), 401, "another audience"},
		{"another issuer", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["iss"] = "https://evil.example.com" })), 401, "another issuer"},
		{"alg none", unsigned(t, claims(nil)), 401, "accepted algorithm"},
		{"HS256 keyed with the public key (DER)", sign(t, jose.HS256, der, "rsa", claims(nil)), 401, "accepted algorithm"},
		{"HS256 keyed with the public key (PEM)", sign(t, jose.HS256, pemKey, "rsa", claims(nil)), 401, "accepted algorithm"},
		{"a key not in the JWKS, under a published kid", sign(t, jose.ES256, stranger, "ec", claims(nil)), 401, "does not verify"},
		{"a key not in the JWKS", sign(t, jose.ES256, stranger, "stranger", claims(nil)), 401, "does not publish"},
		{"an RSA key's kid on an EC signature", sign(t, jose.ES256, iss.ec, "rsa", claims(nil)), 401, "for another algorithm"},
		{"no scopes", sign(t, jose.ES256, iss.ec, "ec", claims(func(c map[string]any) { c["scope"] = "openid" })), 403, `error="insufficient_scope"`},
		{"not a JWT", "not-a-jwt-at-all-but-long-enough", 401, "not a signed JWT"},
		{"too long", strings.Repeat("a", maxTokenBytes+1), 401, "longer than"},
	} {
		status, challenge, body := oauthPost(t, url, c.token)
		if status != c.status || !strings.Contains(challenge, c.want) {
			t.Errorf("%s: HTTP %d, WWW-Authenticate %q (%s); want %d and %q", c.name, status, challenge, strings.TrimSpace(body), c.status, c.want)
		}
		wantScope := `scope="mcp:read mcp:write"`
		if status == 403 {
			wantScope = `scope="mcp:read"`
		}
		if status != 200 && (!strings.Contains(challenge, `resource_metadata="`+protectedResourceMetadataURL(url)+`"`) || !strings.Contains(challenge, wantScope)) {
			t.Errorf("%s: WWW-Authenticate %q does not name the metadata and the scope", c.name, challenge)
		}
		if c.token != "" && (strings.Contains(challenge+body, c.token) || strings.Contains(log.String(), c.token)) {
			t.Errorf("%s: the token shows in the answer or the log", c.name)
		}
	}
	// One fetch served them all: a kid the JWKS lacks makes it fetch
	// again only jwksMinInterval after the last fetch.
	if got := iss.fetches.Load(); got != 1 {
		t.Errorf("the JWKS was fetched %d times, want once", got)
	}
}

// TestOAuthMetadata: the Protected Resource Metadata (RFC 9728) is served
// with no token at the URL the challenge names and at the bare well-known
// path, naming the resource, the issuer and the scopes.
func TestOAuthMetadata(t *testing.T) {
	iss := newTestIssuer(t)
	url, _, _ := oauthServer(t, iss, &testClock{now: time.Now()}, "", "")
	_, challenge, _ := oauthPost(t, url, "")
	named := strings.TrimSuffix(strings.SplitN(challenge, `resource_metadata="`, 2)[1], `", scope="mcp:read mcp:write"`)
	if named != strings.TrimSuffix(url, "/mcp")+"/.well-known/oauth-protected-resource/mcp" {
		t.Errorf("the challenge names %q", named)
	}
	for _, at := range []string{named, strings.TrimSuffix(url, "/mcp") + "/.well-known/oauth-protected-resource"} {
		resp, err := http.Get(at)
		if err != nil {
			t.Fatal(err)
		}
		var meta map[string]any
		err = json.NewDecoder(resp.Body).Decode(&meta)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("GET %s: %d, %v, Access-Control-Allow-Origin %q", at, resp.StatusCode, err, resp.Header.Get("Access-Control-Allow-Origin"))
		}
		got, _ := json.Marshal(meta)
		want := `{"authorization_servers":["` + iss.srv.URL + `"],"bearer_methods_supported":["header"],"resource":"` + url + `","scopes_supported":["mcp:read","mcp:write"]}`
		if string(got) != want {
			t.Errorf("GET %s:\n%s\nwant\n%s", at, got, want)
		}
	}
}

// bearerTransport adds a token to every request of a go-sdk client.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestOAuthScopes: a token with the read scope lists every tool and calls
// those annotated read-only; a tool that is not is refused as a tool error
// naming the write scope, and one that decides per call (WritesAllowed)
// hears that writes are not allowed. A token with the write scope, or the
// static token, calls everything.
func TestOAuthScopes(t *testing.T) {
	iss := newTestIssuer(t)
	clock := &testClock{now: time.Now()}
	url, _, server := oauthServer(t, iss, clock, "static-token-of-the-operator", iss.srv.URL+"/jwks")
	token := func(scope string) string {
		return sign(t, jose.ES256, iss.ec, "ec", map[string]any{"iss": iss.srv.URL, "aud": url, "exp": clock.Now().Add(time.Hour).Unix(), "scope": scope})
	}
	for _, c := range []struct {
		name  string
		token string
		want  map[string]string // tool -> its answer's text, "!" before an error's
	}{
		{"read", token("mcp:read"), map[string]string{"look": "looked", "change": "!Tool change was not called: it changes data, and this access token lacks the OAuth scope mcp:write", "decide": "!read only: needs mcp:write"}},
		{"write", token("mcp:write"), map[string]string{"look": "looked", "change": "changed", "decide": "decided"}},
		{"read and write", token("mcp:read mcp:write"), map[string]string{"look": "looked", "change": "changed", "decide": "decided"}},
		{"static", "static-token-of-the-operator", map[string]string{"look": "looked", "change": "changed", "decide": "decided"}},
	} {
		client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
		session, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{c.token}}}, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		tools, err := session.ListTools(context.Background(), nil)
		if err != nil || len(tools.Tools) != 3 {
			t.Errorf("%s: tools/list: %v, %v", c.name, tools, err)
		}
		for tool, want := range c.want {
			res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
			if err != nil {
				t.Fatalf("%s: %s: %v", c.name, tool, err)
			}
			got := httpToolText(res)
			if res.IsError {
				got = "!" + got
			}
			if !strings.HasPrefix(got, want) {
				t.Errorf("%s: %s answered %q, want %q", c.name, tool, got, want)
			}
		}
		session.Close()
	}
	if got := iss.fetches.Load(); got != 1 {
		t.Errorf("the JWKS was fetched %d times, want once", got)
	}

	// A tool added while serving is judged by its annotations at once,
	// before the server's notice of the change could come.
	ran := make(chan struct{}, 1)
	server.AddTool(&mcp.Tool{Name: "late", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ran <- struct{}{}
		return &mcp.CallToolResult{}, nil
	})
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	session, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{token("mcp:read")}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "late", Arguments: map[string]any{}})
	if err != nil || !res.IsError || !strings.Contains(httpToolText(res), "lacks the OAuth scope mcp:write") || len(ran) != 0 {
		t.Errorf("a new tool that writes, called with mcp:read: %v, %v; ran %d times", httpToolText(res), err, len(ran))
	}
}

// TestOAuthKeyRotation: a token signed with a key published after the
// keys were fetched is admitted once the keys are fetched again, which a
// kid not yet known does at most once in jwksMinInterval; when the JWKS
// cannot be fetched at all, calls get 503, not a verdict on the token.
func TestOAuthKeyRotation(t *testing.T) {
	iss := newTestIssuer(t)
	clock := &testClock{now: time.Now()}
	url, _, _ := oauthServer(t, iss, clock, "", iss.srv.URL+"/jwks")
	next, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	claims := func() map[string]any {
		return map[string]any{"iss": iss.srv.URL, "aud": url, "exp": clock.Now().Add(time.Hour).Unix(), "scope": "mcp:read"}
	}
	if status, _, _ := oauthPost(t, url, sign(t, jose.ES256, iss.ec, "ec", claims())); status != 200 {
		t.Fatalf("a good token: HTTP %d", status)
	}
	iss.publish(jose.JSONWebKey{Key: next.Public(), KeyID: "next", Algorithm: "ES256", Use: "sig"})
	// Fetched less than jwksMinInterval ago: the new kid does not make it
	// fetch again yet.
	if status, _, _ := oauthPost(t, url, sign(t, jose.ES256, next, "next", claims())); status != 401 || iss.fetches.Load() != 1 {
		t.Errorf("a new kid right after a fetch: HTTP %d after %d fetches, want 401 after 1", status, iss.fetches.Load())
	}
	clock.Add(jwksMinInterval)
	if status, _, _ := oauthPost(t, url, sign(t, jose.ES256, next, "next", claims())); status != 200 || iss.fetches.Load() != 2 {
		t.Errorf("a new kid later: HTTP %d after %d fetches, want 200 after 2", status, iss.fetches.Load())
	}
	for range 3 {
		oauthPost(t, url, sign(t, jose.ES256, next, "unknown", claims()))
	}
	if iss.fetches.Load() != 2 {
		t.Errorf("three tokens of an unknown kid right after a fetch made %d fetches in all, want still 2", iss.fetches.Load())
	}

	// An issuer that cannot be reached.
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	iss2 := &testIssuer{srv: down}
	url2, log, _ := oauthServer(t, iss2, clock, "", down.URL+"/jwks")
	req, err := http.NewRequest(http.MethodPost, url2, strings.NewReader(initialize))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+sign(t, jose.ES256, iss.ec, "ec", claims()))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "30" || !strings.Contains(string(body), "cannot fetch its authorization server's signing keys") {
		t.Errorf("with the JWKS unreachable: HTTP %d, Retry-After %q, %q", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	log.await(t, "cannot fetch the OAuth issuer's signing keys")
}

// TestOAuthFlags: the --oauth-* flags are refused with the rule and the
// fix when they cannot work, and OAuth alone suffices on a listener
// beyond loopback.
func TestOAuthFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--oauth-resource", "https://mcp.example.com/mcp"}, "--oauth-resource applies only with --oauth-issuer"},
		{[]string{"--oauth-issuer", "https://auth.example.com"}, "--oauth-resource is needed with --oauth-issuer"},
		{[]string{"--oauth-issuer", "http://auth.example.com", "--oauth-resource", "https://mcp.example.com/mcp"}, "--oauth-issuer must use https (http only on loopback"},
		{[]string{"--oauth-issuer", "auth.example.com", "--oauth-resource", "https://mcp.example.com/mcp"}, "--oauth-issuer must be an absolute https URL"},
		{[]string{"--oauth-issuer", "https://auth.example.com", "--oauth-resource", "https://mcp.example.com/mcp#x"}, "--oauth-resource must be an absolute https URL with no user or fragment"},
		{[]string{"--oauth-issuer", "https://auth.example.com", "--oauth-resource", "https://mcp.example.com/mcp", "--oauth-scopes-write", " , "}, "--oauth-scopes-write must name at least one scope"},
		{[]string{"--oauth-issuer", "https://auth.example.com", "--oauth-resource", "https://mcp.example.com/mcp", "--oauth-scopes-read", `a"b`}, "--oauth-scopes-read has \"a\\\"b\", which is no scope name"},
		{[]string{"--listen", "0.0.0.0:8080", "--oauth-issuer", "https://auth.example.com", "--oauth-resource", "https://mcp.example.com/mcp", "--oauth-scopes-read", "read, profile"}, ""},
	} {
		var got error
		var access httpAccess
		cmd := &cli.Command{Name: "t", Flags: sharedFlags("TEST"), Action: func(_ context.Context, cmd *cli.Command) error {
			access, got = httpAccessFromCommand(cmd, "TEST")
			return nil
		}}
		if err := cmd.Run(context.Background(), append([]string{"t"}, c.args...)); err != nil {
			t.Fatal(err)
		}
		switch {
		case c.want == "" && (got != nil || access.oauth == nil || strings.Join(access.oauth.readScopes, "|") != "read|profile" || strings.Join(access.oauth.writeScopes, "|") != "mcp:write"):
			t.Errorf("%q: %v, %+v", c.args, got, access.oauth)
		case c.want != "" && (got == nil || !strings.Contains(got.Error(), c.want)):
			t.Errorf("%q: %v, want %q", c.args, got, c.want)
		}
	}
}

// TestOAuthJWKSBounds: the keys are not taken from another host a
// redirect points to, nor from a key set over 1 MiB; a redirect on the
// same host is followed.
func TestOAuthJWKSBounds(t *testing.T) {
	iss := newTestIssuer(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/elsewhere", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, iss.srv.URL+"/jwks", http.StatusFound)
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/jwks", http.StatusFound)
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: iss.public})
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		keys := make([]jose.JSONWebKey, 0, 6000)
		for range 2000 {
			keys = append(keys, iss.public...)
		}
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: keys})
	})
	other := httptest.NewServer(mux)
	defer other.Close()
	clock := &testClock{now: time.Now()}
	for path, want := range map[string]error{"/elsewhere": errKeysUnavailable, "/huge": errKeysUnavailable, "/moved": nil} {
		cache := newJWKSCache(iss.srv.URL, other.URL+path, newOAuthHTTPClient(), slog.New(slog.DiscardHandler), clock.Now)
		if _, err := cache.lookup(context.Background(), "ec", "ES256"); err != want {
			t.Errorf("%s: %v, want %v", path, err, want)
		}
	}
}
