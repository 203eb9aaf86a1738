// Package config defines hookmcp's startup options: the flags, the
// environment variables they mirror, the API key (a variable only), and the
// checks that turn them into a Config.
package config

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/hookmcp/internal/signature"
	"github.com/mcpforge/servers/shared/app"
	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// Config is the checked startup configuration.
type Config struct {
	APIKey  string   // default API key; a secret
	TokenID string   // default token UUID, lower-case; empty when unset
	APIURL  *url.URL // base URL of the capture API
	Timeout time.Duration
	// ResourceMaxBytes bounds the text of one read of the requests
	// resource.
	ResourceMaxBytes int64
	// SocketURL is the base of the service's live push (Socket.IO); nil
	// when it is off.
	SocketURL *url.URL
	// SigningSecrets are verify_signature's secrets by provider, read at
	// start from the variables --signing-secret names; secrets.
	SigningSecrets map[signature.Provider]SigningSecret
	// ReplayTo are the URL prefixes replay_request may send to besides
	// loopback addresses (--replay-to), canonical.
	ReplayTo []*url.URL
	// ConfirmDeletes says when the user confirms a delete (--confirm-deletes;
	// confirm.go); empty is ask.
	ConfirmDeletes mcptool.ConfirmMode
}

// SigningSecret is a provider's signing secret and the variable it was read
// from, which messages name instead of the secret.
type SigningSecret struct {
	Variable string
	Value    string // a secret
}

// Secrets are every secret the configuration holds, for redaction: the API
// key and each signing secret, a whsec_ one also without its prefix (the
// base64 that Standard Webhooks decodes into the key, which a sender's
// configuration may hold bare).
func (c Config) Secrets() []string {
	out := []string{c.APIKey}
	for _, s := range c.SigningSecrets {
		out = append(out, s.Value)
		if bare, ok := strings.CutPrefix(s.Value, "whsec_"); ok {
			out = append(out, bare)
		}
	}
	return out
}

// Defaults and bounds.
const (
	DefaultAPIURL = "https://webhook.site"
	// DefaultSocketURL is the hosted service's live push.
	DefaultSocketURL = "wss://ws.webhook.site"
	DefaultTimeout   = 30 * time.Second
	MaxTimeout       = hooksvc.MaxTimeout
	// DefaultResourceMaxBytes keeps a resource read within what an
	// assistant can take in; anyone who knows a public capture URL can fill
	// a token with 10,000 large requests.
	DefaultResourceMaxBytes = 4 << 20
	MinResourceMaxBytes     = 64 << 10
	MaxResourceMaxBytes     = 256 << 20
)

// APIKeyVariable holds the API key. There is no flag for it: a flag's value
// shows in process listings.
const APIKeyVariable = "HOOKSVC_API_KEY"

// Flags are hookmcp's own command-line flags, each mirrored by a variable.
func Flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{
			Name:    "token-id",
			Usage:   "default token UUID for calls that omit token_id",
			Sources: cli.EnvVars("HOOKSVC_TOKEN_ID"),
		},
		&cli.StringFlag{
			Name: "api-url", Value: DefaultAPIURL,
			Usage:   "base URL of the capture API (a self-hosted install, or a local fake)",
			Sources: cli.EnvVars("HOOKSVC_API_URL"),
		},
		&timeoutFlag{
			Name: "timeout", Aliases: []string{"t"}, Value: DefaultTimeout,
			Usage:   "time limit of one tool call against the API, retries included: a duration (30s, 2m) or milliseconds (30000)",
			Sources: cli.EnvVars("HOOKSVC_TIMEOUT"),
		},
		&cli.Int64Flag{
			Name: "resource-max-bytes", Value: DefaultResourceMaxBytes,
			Usage:   "largest text one read of the requests resource returns, in bytes; requests past it are left out, with a note",
			Sources: cli.EnvVars("HOOKSVC_RESOURCE_MAX_BYTES"),
		},
		&cli.StringFlag{
			Name:    "socket-url",
			Usage:   "base URL of the service's live push (Socket.IO), which wait_for_request and resource subscriptions wake on; off polls only. Default: " + DefaultSocketURL + " for the hosted API, else the API URL's origin (polling when nothing answers there)",
			Sources: cli.EnvVars("HOOKSVC_SOCKET_URL"),
		},
		&cli.StringSliceFlag{
			Name:    "signing-secret",
			Usage:   "provider=VARIABLE: verify_signature reads that provider's secret from the environment variable VARIABLE (the name, never the secret); repeat it or separate with commas. Providers: " + providerList(),
			Sources: cli.EnvVars(SigningSecretsVariable),
		},
		&cli.StringSliceFlag{
			Name:    "replay-to",
			Usage:   "URL prefix (https://dev.example.com/hooks) replay_request may send captured requests to, besides this machine's loopback addresses; repeat it or separate with commas",
			Sources: cli.EnvVars(ReplayToVariable),
		},
		confirmFlag(),
		// Not a flag: refused with the variable to set instead.
		&app.EnvOnlyFlag{Name: "api-key", Aliases: []string{"apikey", "api_key", "key"}, EnvVar: APIKeyVariable, What: "the API key"},
	}
}

// FromCommand checks the parsed flags and reads the API key through getenv.
// Its errors name the flag or variable, the rule and a good value, and never
// repeat the key.
func FromCommand(cmd *cli.Command, getenv func(string) string) (Config, error) {
	cfg := Config{Timeout: cmd.Duration("timeout"), ResourceMaxBytes: cmd.Int64("resource-max-bytes")}
	cfg.APIKey = strings.TrimSpace(getenv(APIKeyVariable))
	if strings.ContainsAny(cfg.APIKey, " \t\r\n") {
		return Config{}, fmt.Errorf("%s contains whitespace; set it to the key alone, as shown in your account settings", APIKeyVariable)
	}
	if id := strings.TrimSpace(cmd.String("token-id")); id != "" {
		if !hooksvc.UUIDPattern.MatchString(id) {
			return Config{}, app.FlagErrorf("token-id", "must be a token UUID (the API does not take aliases); got %s. For example --token-id %s", hooksvc.Quote(id), hooksvc.ExampleUUID)
		}
		cfg.TokenID = strings.ToLower(id)
	}
	u, err := ParseAPIURL(cmd.String("api-url"))
	if err != nil {
		return Config{}, app.FlagErrorf("api-url", "%v", err)
	}
	cfg.APIURL = u
	if cfg.SocketURL, err = SocketURL(cmd.String("socket-url"), u); err != nil {
		return Config{}, app.FlagErrorf("socket-url", "%v", err)
	}
	if cfg.Timeout < time.Second || cfg.Timeout > MaxTimeout {
		return Config{}, app.FlagErrorf("timeout", "must be between 1s and 10m, got %s; for example --timeout 30s (a bare number is milliseconds: 30000)", cfg.Timeout)
	}
	if cfg.SigningSecrets, err = SigningSecrets(cmd.StringSlice("signing-secret"), getenv); err != nil {
		return Config{}, err
	}
	if cfg.ReplayTo, err = ReplayTo(cmd.StringSlice("replay-to")); err != nil {
		return Config{}, err
	}
	if cfg.ConfirmDeletes, err = readConfirm(cmd); err != nil {
		return Config{}, err
	}
	if cfg.ResourceMaxBytes < MinResourceMaxBytes || cfg.ResourceMaxBytes > MaxResourceMaxBytes {
		return Config{}, app.FlagErrorf("resource-max-bytes", "must be between %d and %d, got %d; for example --resource-max-bytes %d (4 MiB)",
			int64(MinResourceMaxBytes), int64(MaxResourceMaxBytes), cfg.ResourceMaxBytes, int64(DefaultResourceMaxBytes))
	}
	return cfg, nil
}

// timeoutFlag is a duration flag that also takes a bare number as
// milliseconds, the unit graphqlmcp's --timeout uses.
type timeoutFlag = cli.FlagBase[time.Duration, cli.NoConfig, millisOrDuration]

// millisOrDuration is the value of a timeoutFlag.
type millisOrDuration time.Duration

func (millisOrDuration) Create(v time.Duration, p *time.Duration, _ cli.NoConfig) cli.Value {
	*p = v
	return (*millisOrDuration)(p)
}

func (millisOrDuration) ToString(v time.Duration) string { return v.String() }

// Set's error starts "must": the project's rule, which the process prints
// as it is (see app.FlagError).
func (d *millisOrDuration) Set(s string) error {
	s = strings.TrimSpace(s)
	rule := errors.New("must be a duration such as 30s or 2m, or a whole number of milliseconds such as 30000")
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		if ms > math.MaxInt64/int64(time.Millisecond) || ms < math.MinInt64/int64(time.Millisecond) {
			return rule
		}
		*d = millisOrDuration(time.Duration(ms) * time.Millisecond)
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return rule
	}
	*d = millisOrDuration(v)
	return nil
}

func (d *millisOrDuration) Get() any       { return time.Duration(*d) }
func (d *millisOrDuration) String() string { return time.Duration(*d).String() }

// ParseAPIURL accepts an absolute http or https URL with no query string or
// fragment; a trailing slash is dropped. Its errors read after the flag's
// name: "must be ...".
func ParseAPIURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err == nil && u.User != nil {
		// Not repeated: user info may hold a password.
		return nil, fmt.Errorf("must not carry user info (user:password@); pass the API key in %s instead", APIKeyVariable)
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("must be the absolute http(s) base URL of the API; got %s. For example %s", hooksvc.Quote(httpx.RedactURL(raw)), DefaultAPIURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("must be a plain base URL without query string or fragment; got %s. For example %s", hooksvc.Quote(httpx.RedactURL(raw)), DefaultAPIURL)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	// The host is judged and kept as the transport dials it, so that a
	// look-alike (a Unicode letter that lowers to ASCII) fails here, at
	// start, and every later comparison sees one spelling.
	canonical, err := httpx.CanonicalURL(u)
	if err != nil {
		return nil, fmt.Errorf("must name a host as it is dialled: %v", err)
	}
	u = canonical
	if token := captureToken(u); token != "" {
		// Not only wrong: the API's requests, the key in their headers
		// included, would be captured there, for anyone with the URL to read.
		return nil, fmt.Errorf("must be the capture API's base URL, not a capture URL: %s is the capture URL of token %s. "+
			"Use %s (and --token-id %s, or HOOKSVC_TOKEN_ID, to make that token the default)",
			hooksvc.Clip(httpx.DisplayURL(u)), token, hooksvc.Clip(hooksvc.BaseOfCaptureURL(u, token)), token)
	}
	return u, nil
}

// captureToken is the token UUID that u's path or subdomain names, which
// makes u a capture URL; "" when none does. A self-hosted API's base path
// holds no UUID.
func captureToken(u *url.URL) string {
	for _, segment := range strings.Split(u.Path, "/") {
		if hooksvc.UUIDPattern.MatchString(segment) {
			return strings.ToLower(segment)
		}
	}
	if first, _, ok := strings.Cut(u.Hostname(), "."); ok && hooksvc.UUIDPattern.MatchString(first) {
		return strings.ToLower(first)
	}
	return ""
}

// SocketURL is the live push's base URL: raw when given ("off" for none),
// else the hosted service's for the hosted API, else the API URL's origin.
// The API key is sent on the socket, so a plain ws (or http) URL must be on
// loopback, or on the API's own host when the API itself is plain http
// (where the key already goes in the clear).
// Its errors read after the flag's name: "must be ...".
func SocketURL(raw string, api *url.URL) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	switch {
	case strings.EqualFold(raw, "off"):
		return nil, nil
	case raw == "" && isHostedAPI(api):
		return url.Parse(DefaultSocketURL)
	case raw == "":
		scheme := "wss"
		if api.Scheme == "http" {
			scheme = "ws"
		}
		return &url.URL{Scheme: scheme, Host: api.Host}, nil
	}
	u, err := url.Parse(raw)
	if err == nil && u.User != nil {
		return nil, fmt.Errorf("must not carry user info (user:password@); the API key from %s is sent on the socket", APIKeyVariable)
	}
	if err != nil || u.Host == "" || u.Scheme != "ws" && u.Scheme != "wss" && u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("must be off or the absolute wss:// (or ws:// on loopback) base URL of the live push; got %s. For example %s", hooksvc.Quote(httpx.RedactURL(raw)), DefaultSocketURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("must be a plain base URL without query string or fragment; got %s. For example %s", hooksvc.Quote(httpx.RedactURL(raw)), DefaultSocketURL)
	}
	switch u.Scheme {
	case "http":
		u.Scheme = "ws"
	case "https":
		u.Scheme = "wss"
	}
	canonical, err := httpx.CanonicalURL(u)
	if err != nil {
		return nil, fmt.Errorf("must name a host as it is dialled: %v", err)
	}
	u = canonical
	if u.Scheme == "ws" && !httpx.IsLoopbackHost(u.Hostname()) && !(api.Scheme == "http" && httpx.SameHost(u.Hostname(), api.Hostname())) {
		return nil, fmt.Errorf("must be wss:// for %s: the API key is sent on the socket, and plain ws:// is allowed only on loopback, or on the API's own host when the API URL is plain http too; got %s", hooksvc.Clip(u.Hostname()), hooksvc.Quote(httpx.RedactURL(raw)))
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u, nil
}

// isHostedAPI reports whether api is the hosted service's API however it is
// spelled (https://WEBHOOK.site/, https://webhook.site:443): its socket is
// on another host, ws.webhook.site.
func isHostedAPI(api *url.URL) bool {
	hosted, _ := url.Parse(DefaultAPIURL)
	host, port, err := httpx.CanonicalHostPort(api)
	wantHost, wantPort, _ := httpx.CanonicalHostPort(hosted)
	return err == nil && api.Scheme == hosted.Scheme && host == wantHost && port == wantPort && strings.Trim(api.Path, "/") == ""
}

// SigningSecretsVariable mirrors --signing-secret.
const SigningSecretsVariable = "HOOKSVC_SIGNING_SECRETS"

// variableName is what --signing-secret takes after "=": an environment
// variable's name as shells write them in capitals. A secret (whsec_…, hex
// in lower case) is not one, so a secret given in its place is refused
// without being repeated.
var variableName = regexp.MustCompile(`^[A-Z_][A-Z0-9_]{0,127}$`)

func providerList() string {
	names := make([]string, 0, len(signature.Providers()))
	for _, p := range signature.Providers() {
		names = append(names, string(p))
	}
	return strings.Join(names, ", ")
}

// SigningSecrets reads each provider=VARIABLE entry's secret through
// getenv. Its errors name the entry by its place, the provider and the
// variable, never a value: a secret given in place of a variable's name
// would show.
func SigningSecrets(entries []string, getenv func(string) string) (map[signature.Provider]SigningSecret, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	out := map[signature.Provider]SigningSecret{}
	for i, entry := range entries {
		n := i + 1
		name, variable, found := strings.Cut(strings.TrimSpace(entry), "=")
		provider := signature.Provider(strings.ToLower(strings.TrimSpace(name)))
		known := false
		for _, p := range signature.Providers() {
			known = known || p == provider
		}
		if !found || !known {
			return nil, app.FlagErrorf("signing-secret", "entries must be provider=VARIABLE, provider one of %s and VARIABLE the name of the environment variable holding its secret; entry %d is not (it is not shown, in case it holds a secret). For example --signing-secret stripe=STRIPE_WEBHOOK_SECRET",
				providerList(), n)
		}
		variable = strings.TrimSpace(variable)
		if !variableName.MatchString(variable) {
			return nil, app.FlagErrorf("signing-secret", "entry %d (%s) must name an environment variable after =, in capitals, digits and _ (for example %s=%s_WEBHOOK_SECRET), not give the secret itself; what follows = is not shown",
				n, provider, provider, strings.ToUpper(strings.ReplaceAll(string(provider), "-", "_")))
		}
		if _, twice := out[provider]; twice {
			return nil, app.FlagErrorf("signing-secret", "names %s twice (entry %d); give each provider one variable", provider, n)
		}
		value := strings.TrimSpace(getenv(variable))
		if value == "" {
			// The name is not repeated: a secret in capitals passes for
			// a variable's name, and would show here.
			return nil, app.FlagErrorf("signing-secret", "entry %d (%s) names an environment variable that is not set or empty (the name is not shown, in case a secret was given in its place): export it with the signing secret before starting hookmcp, or remove the entry", n, provider)
		}
		out[provider] = SigningSecret{Variable: variable, Value: value}
	}
	return out, nil
}
