package mcptest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// OAuthIssuer starts scripts/oauth-e2e/issuer.mjs (oauth2-mock-server,
// pinned), a real OAuth authorization server on loopback, and returns its
// issuer URL and the folder of the scripts. scripts/oauth-e2e/test
// installs them and sets MCP_OAUTH_E2E to that folder; the test is
// skipped without it.
func OAuthIssuer(t *testing.T) (issuer, dir string) {
	t.Helper()
	dir = os.Getenv("MCP_OAUTH_E2E")
	if dir == "" {
		t.Skip("MCP_OAUTH_E2E is not set; scripts/oauth-e2e/test installs oauth2-mock-server and the TypeScript SDK and sets it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, "issuer.mjs"))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// issuer.mjs ends when its stdin does.
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	var started struct{ Issuer string }
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if err := json.Unmarshal([]byte(line), &started); err != nil || started.Issuer == "" {
		t.Fatalf("issuer.mjs printed %q: %v", line, err)
	}
	return started.Issuer, dir
}

// OAuthClient runs scripts/oauth-e2e/client.mjs: the TypeScript SDK's
// OAuth flow against endpoint as the OAuth client clientID, then calls,
// pairs of a tool's name and its arguments' JSON. It returns the JSON the
// script prints: fetched, authorize, tokenScope, results.
func OAuthClient(t *testing.T, dir, endpoint, clientID string, calls ...string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "node", append([]string{filepath.Join(dir, "client.mjs"), endpoint, clientID}, calls...)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client.mjs as %s: %v\n%s", clientID, err, stderr.String())
	}
	var result map[string]any
	if err := json.Unmarshal(out, &result); err != nil {
		t.Fatalf("client.mjs printed %q: %v", out, err)
	}
	return result
}

// FreeLoopbackAddr is a loopback address to listen on whose port is known
// before the server starts, for a URL that names it (--oauth-resource).
func FreeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// CheckOAuthDiscovery fails t unless the SDK's flow, as client.mjs
// reports it, met the server's 401, read the Protected Resource Metadata
// at its path for /mcp, read the issuer's metadata and got a token, asking
// for scope for the resource endpoint.
func CheckOAuthDiscovery(t *testing.T, run map[string]any, endpoint, issuer, scope string) {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	fetched, _ := json.Marshal(run["fetched"])
	for _, want := range []string{
		"POST " + endpoint,
		"GET " + u.Scheme + "://" + u.Host + "/.well-known/oauth-protected-resource/mcp",
		"GET " + issuer + "/.well-known/openid-configuration",
		"POST " + issuer + "/token",
	} {
		if !strings.Contains(string(fetched), `"`+want) {
			t.Errorf("the SDK did not fetch %s; it fetched %s", want, fetched)
		}
	}
	authorize, _ := run["authorize"].(map[string]any)
	if authorize["scope"] != scope || authorize["resource"] != endpoint {
		t.Errorf("the SDK asked for %v, want scope %q for resource %s", authorize, scope, endpoint)
	}
}

// OAuthTokenFor asks issuer.mjs's token endpoint directly for a token
// (client credentials) with scope for the audience aud.
func OAuthTokenFor(t *testing.T, issuer, scope, aud string) string {
	t.Helper()
	return oauthToken(t, issuer, url.Values{"scope": {scope}, "aud": {aud}, "resource": {aud}})
}

// OAuthBadTokens are tokens for aud with the read and write scopes that a
// resource server of issuer must refuse, by what is wrong with them: from
// issuer.mjs itself, signed with its key, one expired and one naming
// another issuer; forged from one of its tokens, one unsigned (alg none)
// and one signed with a key not in its JWKS, under its key's kid. "good"
// is the token they are made from, to be accepted.
func OAuthBadTokens(t *testing.T, issuer, aud string) map[string]string {
	t.Helper()
	ask := func(test string) string {
		return oauthToken(t, issuer, url.Values{"scope": {"mcp:read mcp:write"}, "aud": {aud}, "resource": {aud}, "test": {test}})
	}
	good := ask("")
	parts := strings.Split(good, ".")
	if len(parts) != 3 {
		t.Fatalf("issuer.mjs's token is no JWS: %d parts", len(parts))
	}
	enc := base64.RawURLEncoding
	var header map[string]any
	headerJSON, err := enc.DecodeString(parts[0])
	if err != nil || json.Unmarshal(headerJSON, &header) != nil {
		t.Fatalf("issuer.mjs's token has no JSON header: %v", err)
	}
	payload, err := enc.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	kid, _ := header["kid"].(string)
	header["alg"] = "none"
	noneHeader, err := json.Marshal(header)
	if err != nil {
		t.Fatal(err)
	}
	stranger, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: stranger}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", kid))
	if err != nil {
		t.Fatal(err)
	}
	signed, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	forged, err := signed.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"good":                  good,
		"expired":               ask("expired"),
		"from another issuer":   ask("other-issuer"),
		"unsigned (alg none)":   enc.EncodeToString(noneHeader) + "." + parts[1] + ".",
		"a key not in the JWKS": forged,
	}
}

// oauthToken asks issuer.mjs's token endpoint for a token (client
// credentials) with form.
func oauthToken(t *testing.T, issuer string, form url.Values) string {
	t.Helper()
	form.Set("grant_type", "client_credentials")
	resp, err := http.PostForm(issuer+"/token", form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var granted struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&granted); err != nil || granted.AccessToken == "" {
		t.Fatalf("the issuer's token endpoint: HTTP %d, %v", resp.StatusCode, err)
	}
	return granted.AccessToken
}

// PostMCP posts body to endpoint with the bearer token and returns the
// status and the WWW-Authenticate header.
func PostMCP(t *testing.T, endpoint, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
}

// CheckOAuthBadTokens fails t unless the server at endpoint, a resource
// server of issuer, admits OAuthBadTokens' good token and refuses each bad
// one with 401 invalid_token saying why, the token not repeated.
func CheckOAuthBadTokens(t *testing.T, issuer, endpoint string) {
	t.Helper()
	why := map[string]string{
		"good": "", "expired": "expired", "from another issuer": "another issuer",
		"unsigned (alg none)": "accepted algorithm", "a key not in the JWKS": "does not verify",
	}
	for name, token := range OAuthBadTokens(t, issuer, endpoint) {
		status, challenge := PostMCP(t, endpoint, token, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		switch {
		case name == "good" && status != http.StatusOK:
			t.Errorf("a good token of the issuer's: HTTP %d, WWW-Authenticate %q", status, challenge)
		case name != "good" && (status != http.StatusUnauthorized || !strings.Contains(challenge, `error="invalid_token"`) || !strings.Contains(challenge, why[name])):
			t.Errorf("a token %s: HTTP %d, WWW-Authenticate %q; want 401 invalid_token saying %q", name, status, challenge, why[name])
		case strings.Contains(challenge, token):
			t.Errorf("a token %s: the challenge repeats it", name)
		}
	}
}
