package app

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/mcpforge/servers/shared/mcptool"
)

// Bounds of a fetch of the issuer's metadata or keys.
const (
	jwksFetchTime = 10 * time.Second
	maxJWKSBytes  = 1 << 20
)

// jwksMaxAge is how long fetched keys are used before they are fetched
// again; an issuer that rotates its keys publishes the new one ahead.
const jwksMaxAge = time.Hour

// jwksMinInterval keeps tokens naming keys that do not exist (any client
// can send one) from making the server fetch the keys for each: at most
// one fetch in this time, whatever asks for it.
const jwksMinInterval = 30 * time.Second

// jwksCache holds the issuer's signing keys.
type jwksCache struct {
	issuer string
	client *http.Client
	logger *slog.Logger
	now    func() time.Time

	// fetching is held during a fetch, so that callers waiting for keys
	// wait for the one fetch under way rather than start their own.
	fetching sync.Mutex

	mu          sync.Mutex
	url         string // the JWKS's URL, once known
	keys        []jose.JSONWebKey
	fetched     time.Time // when keys were fetched
	lastAttempt time.Time // when a fetch was last tried, even one that failed
}

func newJWKSCache(issuer, jwksURL string, client *http.Client, logger *slog.Logger, now func() time.Time) *jwksCache {
	return &jwksCache{issuer: issuer, url: jwksURL, client: client, logger: logger, now: now}
}

// lookup returns the keys that may have signed a token with header kid
// and alg: the key named kid (or every key when the token names none) of
// a type for signatures and, if the key says, for alg. A kid it does not
// know, or stale keys, make it fetch the keys again, at most once in
// jwksMinInterval.
func (c *jwksCache) lookup(ctx context.Context, kid, alg string) ([]jose.JSONWebKey, error) {
	c.mu.Lock()
	keys, fetched := c.keys, c.fetched
	c.mu.Unlock()
	switch {
	case fetched.IsZero() || c.now().Sub(fetched) > jwksMaxAge:
		c.refresh(ctx)
	case len(matchingKeys(keys, kid, alg)) > 0:
		return matchingKeys(keys, kid, alg), nil
	case kid != "":
		// A key rotated in since the last fetch.
		c.refresh(ctx)
	}
	c.mu.Lock()
	keys, fetched = c.keys, c.fetched
	c.mu.Unlock()
	if fetched.IsZero() {
		return nil, errKeysUnavailable
	}
	if candidates := matchingKeys(keys, kid, alg); len(candidates) > 0 {
		return candidates, nil
	}
	if kid != "" && len(matchingKeys(keys, kid, "")) > 0 {
		return nil, refuse("the token names a key of the issuer's that is for another algorithm than its %s", alg)
	}
	if kid != "" {
		return nil, refuse("the token is signed with a key the issuer does not publish (its kid is not in the issuer's JWKS)")
	}
	return nil, refuse("the issuer publishes no key for the token's algorithm %s", alg)
}

// errKeysUnavailable is the answer while the keys cannot be fetched: the
// fault is not the token's.
var errKeysUnavailable = &tokenError{reason: "the server cannot fetch its authorization server's signing keys now; try again later", unavailable: true}

// matchingKeys are the public signature keys in keys for kid and alg (any
// algorithm when alg is empty).
func matchingKeys(keys []jose.JSONWebKey, kid, alg string) []jose.JSONWebKey {
	var out []jose.JSONWebKey
	for _, k := range keys {
		if (kid != "" && k.KeyID != kid) || (k.Use != "" && k.Use != "sig") || (alg != "" && k.Algorithm != "" && k.Algorithm != alg) {
			continue
		}
		out = append(out, k)
	}
	return out
}

// refresh fetches the keys unless a fetch was tried within
// jwksMinInterval. Failing, it keeps the keys it had.
func (c *jwksCache) refresh(ctx context.Context) {
	c.fetching.Lock()
	defer c.fetching.Unlock()
	c.mu.Lock()
	last, jwksURL := c.lastAttempt, c.url
	c.mu.Unlock()
	if !last.IsZero() && c.now().Sub(last) < jwksMinInterval {
		return
	}
	c.mu.Lock()
	c.lastAttempt = c.now()
	c.mu.Unlock()
	// One caller's fetch serves the others waiting for it: a client that
	// hangs up does not stop it.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), jwksFetchTime)
	defer cancel()
	keys, jwksURL, err := c.fetch(ctx, jwksURL)
	if err != nil {
		c.logger.Warn("cannot fetch the OAuth issuer's signing keys; tokens signed with keys not yet fetched are refused", "issuer", c.issuer, "error", err.Error())
		return
	}
	c.mu.Lock()
	c.url, c.keys, c.fetched = jwksURL, keys, c.now()
	c.mu.Unlock()
	c.logger.Debug("fetched the OAuth issuer's signing keys", "jwks_url", jwksURL, "keys", len(keys))
}

// fetch reads the JWKS at jwksURL, or at the jwks_uri of the issuer's
// metadata when jwksURL is empty, and returns its public signature keys.
func (c *jwksCache) fetch(ctx context.Context, jwksURL string) ([]jose.JSONWebKey, string, error) {
	if jwksURL == "" {
		var err error
		if jwksURL, err = c.discover(ctx); err != nil {
			return nil, "", err
		}
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if found, err := c.getJSON(ctx, jwksURL, &set); err != nil || !found {
		return nil, "", cmp.Or(err, fmt.Errorf("GET %s: no key set there (a 4xx answer)", jwksURL))
	}
	var keys []jose.JSONWebKey
	for _, raw := range set.Keys {
		var k jose.JSONWebKey
		// A key this library cannot read (another kty, a private or
		// symmetric key) is skipped, not fatal: the others still serve.
		if k.UnmarshalJSON(raw) != nil || !k.IsPublic() || !k.Valid() {
			continue
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, "", fmt.Errorf("GET %s: the key set has no public signature key", jwksURL)
	}
	return keys, jwksURL, nil
}

// discover reads jwks_uri from the issuer's metadata: RFC 8414's
// oauth-authorization-server, then OpenID Connect's openid-configuration,
// which must name the same issuer (a trailing slash aside). Not the
// go-sdk's oauthex.GetAuthServerMeta: that is for a client handed URLs by
// a server it does not trust, so it refuses an issuer at a private IP and
// one whose metadata does not list PKCE (Microsoft Entra's), neither of
// which matters to a resource server of the operator's own issuer.
func (c *jwksCache) discover(ctx context.Context) (string, error) {
	u, err := url.Parse(c.issuer)
	if err != nil {
		return "", err
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	origin := u.Scheme + "://" + u.Host
	var errs []error
	for _, metadataURL := range []string{
		origin + "/.well-known/oauth-authorization-server" + path,
		origin + path + "/.well-known/openid-configuration",
	} {
		var meta struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		found, err := c.getJSON(ctx, metadataURL, &meta)
		switch {
		case err != nil:
			errs = append(errs, err)
		case !found:
			errs = append(errs, fmt.Errorf("GET %s: not found", metadataURL))
		case strings.TrimSuffix(meta.Issuer, "/") != strings.TrimSuffix(c.issuer, "/"):
			errs = append(errs, fmt.Errorf("%s names the issuer %s, not %s", metadataURL, mcptool.QuoteUpTo(meta.Issuer, maxQuotedValue), c.issuer))
		case meta.JWKSURI == "":
			errs = append(errs, fmt.Errorf("%s has no jwks_uri: set --oauth-jwks-url", metadataURL))
		default:
			if err := checkOAuthURL("oauth-jwks-url", meta.JWKSURI, ""); err != nil {
				return "", fmt.Errorf("%s names jwks_uri %s, which is refused: %w", metadataURL, mcptool.QuoteUpTo(meta.JWKSURI, maxQuotedValue), err)
			}
			return meta.JWKSURI, nil
		}
	}
	return "", fmt.Errorf("cannot find the issuer's metadata (set --oauth-jwks-url): %w", errors.Join(errs...))
}

// getJSON reads the JSON document at target into v, at most maxJWKSBytes.
// A 4xx answer is no document (found false), as RFC 8414 discovery asks.
func (c *jwksCache) getJSON(ctx context.Context, target string, v any) (found bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return false, nil
	case resp.StatusCode != http.StatusOK:
		return false, fmt.Errorf("GET %s: status %s", target, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	if err != nil {
		return false, fmt.Errorf("GET %s: %w", target, err)
	}
	if len(body) > maxJWKSBytes {
		return false, fmt.Errorf("GET %s: the answer is over %d bytes", target, maxJWKSBytes)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return false, fmt.Errorf("GET %s: not the JSON expected: %w", target, err)
	}
	return true, nil
}

// newOAuthHTTPClient fetches the issuer's metadata and keys: bounded in
// time, and never sent to another host by a redirect. It dials itself:
// the go-sdk's discovery then leaves out its refusal of private addresses,
// meant for URLs a client is handed by a server it does not trust; the
// issuer here is the operator's, often on a private network (a Keycloak
// in the same cluster).
func newOAuthHTTPClient() *http.Client {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.DialContext = (&net.Dialer{Timeout: jwksFetchTime, KeepAlive: 30 * time.Second}).DialContext
	return &http.Client{
		Transport: transport,
		Timeout:   jwksFetchTime,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 3 || req.URL.Host != via[0].URL.Host || req.URL.Scheme != via[0].URL.Scheme {
				return errors.New("redirected elsewhere")
			}
			return nil
		},
	}
}
