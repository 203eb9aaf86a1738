package app

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// Default scopes a token needs: to use the server at all (list and call
// the tools that only read), and to call a tool that changes something.
const (
	defaultReadScope  = "mcp:read"
	defaultWriteScope = "mcp:write"
)

// oauthFlags are the flags of the OAuth resource server (oauth.go).
func oauthFlags(envPrefix string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{
			Name: "oauth-issuer",
			Usage: "with --transport http: accept OAuth access tokens (JWTs) from this authorization server, its issuer URL; " +
				"needs --oauth-resource",
			Sources: cli.EnvVars(envPrefix + "_OAUTH_ISSUER"),
		},
		&cli.StringFlag{
			Name:    "oauth-resource",
			Usage:   "with --oauth-issuer: this server's public URL of /mcp, e.g. https://mcp.example.com/mcp; tokens must name it in aud",
			Sources: cli.EnvVars(envPrefix + "_OAUTH_RESOURCE"),
		},
		&cli.StringFlag{
			Name:    "oauth-jwks-url",
			Usage:   "with --oauth-issuer: where the issuer's signing keys are (default: jwks_uri of the issuer's metadata)",
			Sources: cli.EnvVars(envPrefix + "_OAUTH_JWKS_URL"),
		},
		&cli.StringFlag{
			Name:    "oauth-scopes-read",
			Value:   defaultReadScope,
			Usage:   "with --oauth-issuer: the scopes (space- or comma-separated) a token needs to use the server and its tools that only read",
			Sources: cli.EnvVars(envPrefix + "_OAUTH_SCOPES_READ"),
		},
		&cli.StringFlag{
			Name:    "oauth-scopes-write",
			Value:   defaultWriteScope,
			Usage:   "with --oauth-issuer: the scopes a token needs to call a tool that changes something (they include reading)",
			Sources: cli.EnvVars(envPrefix + "_OAUTH_SCOPES_WRITE"),
		},
	}
}

// oauthConfig is the OAuth resource server's configuration.
type oauthConfig struct {
	issuer   string
	resource string
	// jwksURL is empty when it is to be read from the issuer's metadata.
	jwksURL     string
	readScopes  []string
	writeScopes []string
	// leeway is the clock difference allowed when checking exp and nbf.
	leeway time.Duration
	// now and client are the clock and the HTTP client for the issuer's
	// metadata and keys; nil means the wall clock and newOAuthHTTPClient
	// (tests set their own).
	now    func() time.Time
	client *http.Client
}

// oauthLeeway allows for clocks a little apart, as RFC 7519 suggests.
const oauthLeeway = 60 * time.Second

// oauthFrom reads the --oauth-* flags; nil means OAuth is off.
func oauthFrom(cmd *cli.Command) (*oauthConfig, error) {
	issuer, resource, jwks := strings.TrimSpace(cmd.String("oauth-issuer")), strings.TrimSpace(cmd.String("oauth-resource")), strings.TrimSpace(cmd.String("oauth-jwks-url"))
	if issuer == "" {
		for _, name := range []string{"oauth-resource", "oauth-jwks-url"} {
			if cmd.IsSet(name) {
				return nil, FlagErrorf(name, "applies only with --oauth-issuer, the authorization server whose tokens the server accepts; set it too, e.g. --oauth-issuer https://auth.example.com")
			}
		}
		return nil, nil
	}
	cfg := &oauthConfig{issuer: issuer, resource: resource, jwksURL: jwks, leeway: oauthLeeway}
	if err := checkOAuthURL("oauth-issuer", issuer, "https://auth.example.com"); err != nil {
		return nil, err
	}
	if resource == "" {
		return nil, FlagErrorf("oauth-resource", "is needed with --oauth-issuer: this server's public URL of /mcp, which tokens must name as their audience, e.g. --oauth-resource https://mcp.example.com/mcp")
	}
	if err := checkOAuthURL("oauth-resource", resource, "https://mcp.example.com/mcp"); err != nil {
		return nil, err
	}
	if jwks != "" {
		if err := checkOAuthURL("oauth-jwks-url", jwks, "https://auth.example.com/.well-known/jwks.json"); err != nil {
			return nil, err
		}
	}
	var err error
	if cfg.readScopes, err = scopesFrom("oauth-scopes-read", cmd.String("oauth-scopes-read"), defaultReadScope); err != nil {
		return nil, err
	}
	if cfg.writeScopes, err = scopesFrom("oauth-scopes-write", cmd.String("oauth-scopes-write"), defaultWriteScope); err != nil {
		return nil, err
	}
	return cfg, nil
}

// checkOAuthURL accepts an https URL, or an http one on this machine (a
// test or a local authorization server): a token's keys fetched in plain
// text from afar could be anyone's.
func checkOAuthURL(flag, raw, example string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.Fragment != "" || (u.Scheme != "https" && u.Scheme != "http") {
		return FlagErrorf(flag, "must be an absolute https URL with no user or fragment; got %s. For example --%s %s", mcptool.QuoteUpTo(raw, maxQuotedValue), flag, example)
	}
	if u.Scheme == "http" && !httpx.IsLoopbackHost(u.Hostname()) {
		return FlagErrorf(flag, "must use https (http only on loopback, for tests); got %s. For example --%s %s", mcptool.QuoteUpTo(raw, maxQuotedValue), flag, example)
	}
	return nil
}

// scopesFrom splits a list of scope names (RFC 6749 §3.3: printable ASCII
// but space, double quote and backslash).
func scopesFrom(flag, raw, example string) ([]string, error) {
	scopes := strings.FieldsFunc(raw, func(r rune) bool { return r == ' ' || r == ',' })
	if len(scopes) == 0 {
		return nil, FlagErrorf(flag, "must name at least one scope; for example --%s %s", flag, example)
	}
	for _, s := range scopes {
		for _, r := range s {
			if r < 0x21 || r > 0x7e || r == '"' || r == '\\' {
				return nil, FlagErrorf(flag, "has %s, which is no scope name (printable ASCII, no quote or backslash); for example --%s %s", mcptool.QuoteUpTo(s, maxQuotedValue), flag, example)
			}
		}
	}
	return scopes, nil
}

// httpAccessFromCommand reads every flag of who may use /mcp: origins,
// the static token, OAuth.
func httpAccessFromCommand(cmd *cli.Command, envPrefix string) (httpAccess, error) {
	oauth, err := oauthFrom(cmd)
	if err != nil {
		return httpAccess{}, err
	}
	access, err := httpAccessFrom(cmd.String("listen"), cmd.StringSlice("allow-origin"), cmd.String("http-token"), cmd.Bool("insecure-no-auth") || oauth != nil, envPrefix)
	if err != nil {
		return httpAccess{}, err
	}
	access.oauth = oauth
	return access, nil
}
