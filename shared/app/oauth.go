package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Why OAuth here: the MCP authorization spec asks a server reached over
// HTTP by many people to be an OAuth 2.1 resource server. It publishes
// which authorization server issues its tokens (RFC 9728 metadata), and
// checks each access token itself: a JWT signed by one of the issuer's
// keys (its JWKS), for this server (aud), unexpired, with the scopes the
// call needs. Nothing is asked of the issuer per request: keys are cached.

// oauthAlgorithms are the signature algorithms a token may use: the
// asymmetric ones only. "none" and HMAC are never accepted, so neither an
// unsigned token nor one "signed" with a public key as an HMAC secret can
// pass (RFC 8725 §3.1, §3.2); go-jose also refuses a key whose type does
// not fit the algorithm.
var oauthAlgorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512,
	jose.EdDSA,
}

// maxTokenBytes bounds an access token; real ones are a few KiB at most.
const maxTokenBytes = 16 << 10

// tokenError is why a token is refused, in words that may be shown to its
// holder: never the token nor any of its claims.
type tokenError struct {
	reason string
	// unavailable is set when the token could not be checked (the keys
	// could not be fetched): the fault is not the token's.
	unavailable bool
}

func (e *tokenError) Error() string { return e.reason }

func refuse(format string, args ...any) error {
	return &tokenError{reason: fmt.Sprintf(format, args...)}
}

// resourceServer checks access tokens and answers with the challenges
// and metadata of RFC 6750 and RFC 9728.
type resourceServer struct {
	cfg    oauthConfig
	keys   *jwksCache
	logger *slog.Logger
	now    func() time.Time
	// metadataURL is where this server's Protected Resource Metadata is,
	// as named in every challenge.
	metadataURL string
}

func newResourceServer(cfg oauthConfig, logger *slog.Logger) *resourceServer {
	if cfg.now == nil {
		cfg.now = time.Now
	}
	if cfg.client == nil {
		cfg.client = newOAuthHTTPClient()
	}
	return &resourceServer{
		cfg:         cfg,
		keys:        newJWKSCache(cfg.issuer, cfg.jwksURL, cfg.client, logger, cfg.now),
		logger:      logger,
		now:         cfg.now,
		metadataURL: protectedResourceMetadataURL(cfg.resource),
	}
}

// scopes is the policy of which tools a token's scopes let it call.
func (rs *resourceServer) scopes(tools *toolIndex, selfChecked []string) *scopePolicy {
	p := &scopePolicy{writeScopes: rs.cfg.writeScopes, selfChecked: map[string]bool{}, tools: tools}
	for _, name := range selfChecked {
		p.selfChecked[name] = true
	}
	return p
}

// protectedResourceMetadataURL is the metadata's URL for resource (RFC
// 9728 §3.1): the well-known path inserted between the host and the
// resource's path.
func protectedResourceMetadataURL(resource string) string {
	u, err := url.Parse(resource)
	if err != nil {
		return ""
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	return u.Scheme + "://" + u.Host + "/.well-known/oauth-protected-resource" + path
}

// metadataPaths are the paths the metadata is served at: the bare
// well-known path, the one for the resource's own path, and the one for
// /mcp (the resource's path as this process sees it, when a proxy in
// front of it adds a prefix).
func (rs *resourceServer) metadataPaths() []string {
	paths := []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"}
	if u, err := url.Parse(rs.metadataURL); err == nil && !slices.Contains(paths, u.Path) {
		paths = append(paths, u.Path)
	}
	return paths
}

// metadata is this server's Protected Resource Metadata.
func (rs *resourceServer) metadata() *oauthex.ProtectedResourceMetadata {
	return &oauthex.ProtectedResourceMetadata{
		Resource:               rs.cfg.resource,
		AuthorizationServers:   []string{rs.cfg.issuer},
		ScopesSupported:        rs.allScopes(),
		BearerMethodsSupported: []string{"header"},
	}
}

// allScopes are the read scopes and then the write ones, each once.
func (rs *resourceServer) allScopes() []string {
	all := slices.Clone(rs.cfg.readScopes)
	for _, s := range rs.cfg.writeScopes {
		if !slices.Contains(all, s) {
			all = append(all, s)
		}
	}
	return all
}

// addMetadata serves the metadata (public, so readable by any page: the
// go-sdk's handler allows every origin).
func (rs *resourceServer) addMetadata(mux *http.ServeMux) {
	handler := auth.ProtectedResourceMetadataHandler(rs.metadata())
	for _, path := range rs.metadataPaths() {
		mux.Handle(path, handler)
	}
}

// grant is what a checked token allows.
type grant struct {
	subject string
	scopes  []string
	write   bool
}

// check verifies token: its signature by one of the issuer's keys with an
// allowed algorithm, its issuer, its audience (this server), its times
// (with leeway) and that it holds the read scopes (or the write ones,
// which include reading). A token without them is valid but insufficient:
// errInsufficientScope.
func (rs *resourceServer) check(ctx context.Context, token string) (grant, error) {
	if len(token) > maxTokenBytes {
		return grant{}, refuse("the token is longer than %d bytes", maxTokenBytes)
	}
	parsed, err := jwt.ParseSigned(token, oauthAlgorithms)
	if err != nil {
		// go-jose names the algorithm it refused, never the token.
		if strings.Contains(err.Error(), "unexpected signature algorithm") {
			return grant{}, refuse("the token is not signed with an accepted algorithm (%s)", algorithmNames())
		}
		return grant{}, refuse("the token is not a signed JWT")
	}
	if len(parsed.Headers) != 1 {
		return grant{}, refuse("the token has more than one signature")
	}
	header := parsed.Headers[0]
	keys, err := rs.keys.lookup(ctx, header.KeyID, header.Algorithm)
	if err != nil {
		return grant{}, err
	}
	var payload json.RawMessage
	verified := false
	for _, key := range keys {
		if parsed.Claims(key.Key, &payload) == nil {
			verified = true
			break
		}
	}
	if !verified {
		return grant{}, refuse("the token's signature does not verify with the issuer's key")
	}
	claims, err := readClaims(payload)
	if err != nil {
		return grant{}, err
	}
	if claims.Expiry == nil {
		return grant{}, refuse("the token has no expiry (exp)")
	}
	// RFC 9068 asks iss to match exactly; a trailing slash aside (as the
	// go-sdk compares the issuer of the metadata), since issuers differ
	// on it (Auth0's ends with one) and an operator would not see why.
	if claims.Issuer == "" || strings.TrimSuffix(claims.Issuer, "/") != strings.TrimSuffix(rs.cfg.issuer, "/") {
		return grant{}, refuse("the token is from another issuer, not %s", rs.cfg.issuer)
	}
	err = claims.ValidateWithLeeway(jwt.Expected{Time: rs.now()}, rs.cfg.leeway)
	switch {
	case errors.Is(err, jwt.ErrExpired):
		return grant{}, refuse("the token has expired")
	case errors.Is(err, jwt.ErrNotValidYet), errors.Is(err, jwt.ErrIssuedInTheFuture):
		return grant{}, refuse("the token is not valid yet")
	case err != nil:
		return grant{}, refuse("the token's claims are not valid")
	}
	if !oauthex.MatchesResource(claims.Audience, rs.cfg.resource) {
		return grant{}, refuse("the token is for another audience, not %s", rs.cfg.resource)
	}
	g := grant{subject: claims.Subject, scopes: claims.scopes, write: holdsAll(claims.scopes, rs.cfg.writeScopes)}
	if !g.write && !holdsAll(g.scopes, rs.cfg.readScopes) {
		return g, errInsufficientScope
	}
	return g, nil
}

var errInsufficientScope = errors.New("insufficient scope")

// tokenClaims are the claims a token is judged by.
type tokenClaims struct {
	jwt.Claims
	// scopes are those of scope and scp together.
	scopes []string
}

// readClaims reads the claims of a verified token one by one, so that a
// claim of the wrong type is refused by its name rather than taken for a
// bad signature.
func readClaims(payload []byte) (tokenClaims, error) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(payload, &fields) != nil || fields == nil {
		return tokenClaims{}, refuse("the token's claims are not a JSON object")
	}
	const date = "a NumericDate (seconds since 1970, a number below 2^62)"
	var c tokenClaims
	var scope, scp scopeClaim
	for _, claim := range []struct {
		name, want string
		into       any
	}{
		{"iss", "a string", &c.Issuer},
		{"sub", "a string", &c.Subject},
		{"aud", "a string or a list of strings", &c.Audience},
		{"exp", date, &c.Expiry},
		{"nbf", date, &c.NotBefore},
		{"iat", date, &c.IssuedAt},
		{"scope", "a space-separated string or a list of strings", &scope},
		{"scp", "a space-separated string or a list of strings", &scp},
	} {
		if raw, ok := fields[claim.name]; ok && json.Unmarshal(raw, claim.into) != nil {
			return tokenClaims{}, refuse("the token's claim %s is not %s", claim.name, claim.want)
		}
	}
	c.scopes = append(scope, scp...)
	return c, nil
}

// scopeClaim is a token's scopes: RFC 9068 and RFC 8693 write them as one
// space-separated string (scope; Microsoft Entra's scp too), Okta and
// others as a list (scp). A list's items are taken whole: "mcp:write " is
// not mcp:write.
type scopeClaim []string

func (s *scopeClaim) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = strings.Fields(one)
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return err
	}
	*s = list
	return nil
}

func holdsAll(have, want []string) bool {
	for _, s := range want {
		if !slices.Contains(have, s) {
			return false
		}
	}
	return true
}

func algorithmNames() string {
	names := make([]string, len(oauthAlgorithms))
	for i, a := range oauthAlgorithms {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}

// authenticate checks the bearer token of r. It answers and returns false
// when r may not go on; otherwise it returns r with the token's grant in
// its context, as the go-sdk's auth.TokenInfo (which the SDK hands to
// handlers as RequestExtra.TokenInfo).
func (rs *resourceServer) authenticate(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	token, found := bearerToken(r)
	if !found {
		// RFC 6750 §3.1: a request with no token gets no error code.
		rs.challenge(w, http.StatusUnauthorized, "", "", "Unauthorized: this server needs an OAuth access token from "+rs.cfg.issuer+
			"; an MCP client finds how to get one in the metadata named by WWW-Authenticate")
		return r, false
	}
	g, err := rs.check(r.Context(), token)
	if errors.Is(err, errInsufficientScope) {
		rs.logger.Debug("refused an OAuth token without the scopes to use the server", "subject", g.subject)
		rs.challenge(w, http.StatusForbidden, "insufficient_scope", "the token lacks the scopes "+strings.Join(rs.cfg.readScopes, " "),
			"Forbidden: the token lacks the scopes "+strings.Join(rs.cfg.readScopes, " ")+" this server needs")
		return r, false
	}
	var refused *tokenError
	if errors.As(err, &refused) && refused.unavailable {
		w.Header().Set("Retry-After", "30")
		http.Error(w, "Service Unavailable: "+refused.reason, http.StatusServiceUnavailable)
		return r, false
	}
	if err != nil {
		rs.logger.Debug("refused an OAuth token", "reason", err.Error())
		rs.challenge(w, http.StatusUnauthorized, "invalid_token", err.Error(), "Unauthorized: "+err.Error())
		return r, false
	}
	info := &auth.TokenInfo{Scopes: g.scopes, UserID: g.subject, Extra: map[string]any{writeGrantKey: g.write}}
	// The SDK's middleware is how a TokenInfo gets into a request's
	// context; the token is checked above, so its verifier only returns
	// the result (with no expiration, which it would compare with the
	// wall clock without the leeway).
	var admitted *http.Request
	auth.RequireBearerToken(func(context.Context, string, *http.Request) (*auth.TokenInfo, error) { return info, nil },
		&auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { admitted = r })).ServeHTTP(w, r)
	return admitted, admitted != nil
}

// writeGrantKey marks, in auth.TokenInfo.Extra, whether the token holds
// the write scopes.
const writeGrantKey = "mcpforge.write"

// challenge answers with status and a Bearer challenge (RFC 6750 §3)
// naming the metadata (RFC 9728 §5.1) and the scopes to ask for.
func (rs *resourceServer) challenge(w http.ResponseWriter, status int, code, description, body string) {
	params := []string{}
	if code != "" {
		params = append(params, fmt.Sprintf("error=%q", code))
		params = append(params, fmt.Sprintf("error_description=%q", description))
	}
	params = append(params, fmt.Sprintf("resource_metadata=%q", rs.metadataURL))
	// The scope to ask for: without a token, all this server can use
	// (clients ask for what the challenge names; the authorization
	// server grants what its policy allows, maybe the read scopes only);
	// with a token that lacks them, the read scopes it needs at least.
	scopes := rs.allScopes()
	if code == "insufficient_scope" {
		scopes = rs.cfg.readScopes
	}
	params = append(params, fmt.Sprintf("scope=%q", strings.Join(scopes, " ")))
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	http.Error(w, body, status)
}
