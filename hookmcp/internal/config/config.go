// Package config defines hookmcp's startup options: the flags, the
// environment variables they mirror, the API key (a variable only), and the
// checks that turn them into a Config.
package config

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/shared/httpx"
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
}

// Defaults and bounds.
const (
	DefaultAPIURL  = "https://webhook.site"
	DefaultTimeout = 30 * time.Second
	MaxTimeout     = 10 * time.Minute
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
		&cli.DurationFlag{
			Name: "timeout", Aliases: []string{"t"}, Value: DefaultTimeout,
			Usage:   "time limit of one tool call against the API, retries included (e.g. 30s, 2m)",
			Sources: cli.EnvVars("HOOKSVC_TIMEOUT"),
		},
		&cli.Int64Flag{
			Name: "resource-max-bytes", Value: DefaultResourceMaxBytes,
			Usage:   "largest text one read of the requests resource returns, in bytes; requests past it are left out, with a note",
			Sources: cli.EnvVars("HOOKSVC_RESOURCE_MAX_BYTES"),
		},
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
			return Config{}, fmt.Errorf("--token-id (HOOKSVC_TOKEN_ID) %q is not a token UUID; use the UUID of the token, such as 9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d (the API does not take aliases)", id)
		}
		cfg.TokenID = strings.ToLower(id)
	}
	u, err := ParseAPIURL(cmd.String("api-url"))
	if err != nil {
		return Config{}, fmt.Errorf("--api-url (HOOKSVC_API_URL): %v", err)
	}
	cfg.APIURL = u
	if cfg.Timeout < time.Second || cfg.Timeout > MaxTimeout {
		return Config{}, fmt.Errorf("--timeout (HOOKSVC_TIMEOUT) must be between 1s and %s, got %s; for example --timeout 30s", MaxTimeout, cfg.Timeout)
	}
	if cfg.ResourceMaxBytes < MinResourceMaxBytes || cfg.ResourceMaxBytes > MaxResourceMaxBytes {
		return Config{}, fmt.Errorf("--resource-max-bytes (HOOKSVC_RESOURCE_MAX_BYTES) must be between %d and %d, got %d; for example --resource-max-bytes %d (4 MiB)",
			int64(MinResourceMaxBytes), int64(MaxResourceMaxBytes), cfg.ResourceMaxBytes, int64(DefaultResourceMaxBytes))
	}
	return cfg, nil
}

// ParseAPIURL accepts an absolute http or https URL with no query string or
// fragment; a trailing slash is dropped.
func ParseAPIURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err == nil && u.User != nil {
		// Not repeated: user info may hold a password.
		return nil, fmt.Errorf("the URL must not carry user info (user:password@); pass the API key in %s instead", APIKeyVariable)
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an absolute http(s) URL; use the base URL of the API, such as %s", httpx.RedactURL(raw), DefaultAPIURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%q must be a plain base URL without query string or fragment, such as %s", httpx.RedactURL(raw), DefaultAPIURL)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u, nil
}
