// Package config defines graphqlmcp's startup options: the flags, their
// environment variables, and the checks that turn them into a Config.
package config

import (
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/urfave/cli/v3"

	"github.com/mcpforge/servers/graphqlmcp/internal/schema"
	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/app"
	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// Mutations is the server-wide ceiling on running mutations.
type Mutations string

const (
	// MutationsPerCall lets a call run a mutation when it passes allowMutations: true.
	MutationsPerCall Mutations = "per-call"
	// MutationsNever refuses every mutation, whatever the call says.
	MutationsNever Mutations = "never"
	// MutationsAlways runs mutations without allowMutations.
	MutationsAlways Mutations = "always"
)

// Config is the checked startup configuration.
type Config struct {
	Endpoint *url.URL // default endpoint
	// EndpointIsPlaceholder is set when no endpoint was configured, so
	// Endpoint is DefaultEndpoint, which stands in for the user's own.
	EndpointIsPlaceholder bool
	Headers               map[string]string // startup headers; values are secrets
	Timeout               time.Duration     // default per-request timeout
	MaxComplexity         int               // complexity ceiling of graphql_query
	Mutations             Mutations
	AllowEndpoints        []*url.URL // when non-empty, per-call endpoints must match one
	HeadersAnyOrigin      bool       // send startup headers to every endpoint, not only the default's origin
	MaxResponseBytes      int64
	SchemaCacheTTL        time.Duration
	// Schema is the default endpoint's schema read from --schema; nil when
	// it is introspected. SchemaFile is the file it was read from, which a
	// reload reads again (SIGHUP, or an edit a poll finds).
	Schema     *schema.Schema
	SchemaFile string
	// Validate checks operations against the endpoint's schema before
	// sending them.
	Validate bool
	// Operations are the saved-operation files and folders (--operations),
	// loaded by the tools package (operations.go).
	Operations []string
	// ForwardHeaders name the incoming HTTP request headers forwarded
	// upstream in HTTP mode (--forward-header; forward.go).
	ForwardHeaders []string
	// ConfirmMutations says whether the user confirms a mutation before it
	// is sent (--confirm-mutations; confirm.go).
	ConfirmMutations string
}

// Defaults of the options that have one.
const (
	DefaultEndpoint         = "http://localhost:4000/graphql"
	DefaultTimeoutMS        = 30000
	DefaultMaxComplexity    = 100
	DefaultMaxResponseBytes = 4 << 20
	DefaultSchemaCacheTTL   = 5 * time.Minute
	MaxTimeoutMS            = upstream.MaxTimeoutMS
)

// Flags are graphqlmcp's own command-line flags, each mirrored by a variable.
func Flags() []cli.Flag {
	flags := []cli.Flag{
		&cli.StringFlag{
			Name: "endpoint", Aliases: []string{"e"}, Value: DefaultEndpoint,
			Usage:   "default GraphQL endpoint (absolute http or https URL)",
			Sources: cli.EnvVars("GRAPHQL_ENDPOINT"),
		},
		&cli.StringFlag{
			Name: "headers", Aliases: []string{"H"},
			Usage:   `default headers, a JSON object of strings: '{"Authorization":"Bearer …"}'`,
			Sources: cli.EnvVars("GRAPHQL_HEADERS"),
		},
		&cli.IntFlag{
			Name: "timeout", Aliases: []string{"t"}, Value: DefaultTimeoutMS,
			Usage:   "default request timeout in milliseconds",
			Sources: cli.EnvVars("GRAPHQL_TIMEOUT"),
		},
		&cli.IntFlag{
			Name: "maxComplexity", Aliases: []string{"m"}, Value: DefaultMaxComplexity,
			Usage:   "highest complexity score graphql_query will send",
			Sources: cli.EnvVars("GRAPHQL_MAX_COMPLEXITY"),
		},
		&cli.StringFlag{
			Name: "mutations", Value: string(MutationsPerCall),
			Usage:   "per-call (a call may pass allowMutations), never, or always",
			Sources: cli.EnvVars("GRAPHQL_MUTATIONS"),
		},
		&cli.StringSliceFlag{
			Name:    "allow-endpoint",
			Usage:   "origin or URL prefix a per-call endpoint must match",
			Sources: cli.EnvVars("GRAPHQL_ALLOW_ENDPOINTS"),
		},
		&cli.BoolFlag{
			Name:    "headers-any-origin",
			Usage:   "send --headers to every endpoint, not only the default one's origin",
			Sources: cli.EnvVars("GRAPHQL_HEADERS_ANY_ORIGIN"),
		},
		&cli.Int64Flag{
			Name: "max-response-bytes", Value: DefaultMaxResponseBytes,
			Usage:   "largest response body read from an endpoint",
			Sources: cli.EnvVars("GRAPHQL_MAX_RESPONSE_BYTES"),
		},
		&cli.DurationFlag{
			Name: "schema-cache-ttl", Value: DefaultSchemaCacheTTL,
			Usage:   "how long an introspected schema is reused; 0 disables",
			Sources: cli.EnvVars("GRAPHQL_SCHEMA_CACHE_TTL"),
		},
		&cli.StringFlag{
			Name:    "schema",
			Usage:   "the default endpoint's schema, from a file (SDL or introspection JSON) instead of introspection",
			Sources: cli.EnvVars("GRAPHQL_SCHEMA"),
		},
		&cli.BoolFlag{
			Name: "validate", Value: true,
			Usage:   "check operations against the endpoint's schema before sending (--validate=false sends them unchecked)",
			Sources: cli.EnvVars("GRAPHQL_VALIDATE"),
		},
	}
	flags = append(flags, operationsFlags()...)
	flags = append(flags, forwardFlags()...)
	return append(flags, confirmFlags()...)
}

// FromCommand checks the parsed flags. Its errors name the flag, the rule and
// an example of a good value, and never repeat a header value.
func FromCommand(cmd *cli.Command) (Config, error) {
	cfg := Config{
		Timeout:          time.Duration(cmd.Int("timeout")) * time.Millisecond,
		MaxComplexity:    cmd.Int("maxComplexity"),
		Mutations:        Mutations(cmd.String("mutations")),
		HeadersAnyOrigin: cmd.Bool("headers-any-origin"),
		MaxResponseBytes: cmd.Int64("max-response-bytes"),
		SchemaCacheTTL:   cmd.Duration("schema-cache-ttl"),
		Validate:         cmd.Bool("validate"),
	}
	endpoint, err := ParseEndpoint(cmd.String("endpoint"))
	if err != nil {
		return Config{}, app.FlagErrorf("endpoint", "%v", err)
	}
	cfg.Endpoint = endpoint
	cfg.EndpointIsPlaceholder = !cmd.IsSet("endpoint")
	if cfg.Headers, err = ParseHeaders(cmd.String("headers")); err != nil {
		return Config{}, app.FlagErrorf("headers", "%v", err)
	}
	if ms := cmd.Int("timeout"); ms < 1 || ms > MaxTimeoutMS {
		return Config{}, app.FlagErrorf("timeout", "must be between 1 and %d milliseconds, got %d; for example --timeout 30000", MaxTimeoutMS, ms)
	}
	if cfg.MaxComplexity < 1 {
		return Config{}, app.FlagErrorf("maxComplexity", "must be at least 1, got %d; for example --maxComplexity 100", cfg.MaxComplexity)
	}
	switch cfg.Mutations {
	case MutationsPerCall, MutationsNever, MutationsAlways:
	default:
		return Config{}, app.FlagErrorf("mutations", "must be per-call, never or always, got %s; for example --mutations never", mcptool.Quote(string(cfg.Mutations)))
	}
	if cfg.MaxResponseBytes < 1 {
		return Config{}, app.FlagErrorf("max-response-bytes", "must be at least 1, got %d; for example --max-response-bytes 4194304", cfg.MaxResponseBytes)
	}
	if cfg.SchemaCacheTTL < 0 {
		return Config{}, app.FlagErrorf("schema-cache-ttl", "must not be negative, got %s; for example --schema-cache-ttl 5m, or 0 to disable the cache", cfg.SchemaCacheTTL)
	}
	if path := cmd.String("schema"); path != "" {
		if cfg.Schema, err = schema.Load(path, time.Now()); err != nil {
			return Config{}, app.FlagErrorf("schema", "must name an SDL file or a saved introspection answer; %s %v. For example --schema ./schema.graphql", cut(path, maxQuotedURL), cut(err.Error(), maxSchemaProblem))
		}
		cfg.SchemaFile = path
	}
	for _, raw := range cmd.StringSlice("allow-endpoint") {
		for _, item := range strings.Split(raw, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			prefix, err := ParseEndpoint(item)
			if err != nil {
				return Config{}, app.FlagErrorf("allow-endpoint", "%v", err)
			}
			cfg.AllowEndpoints = append(cfg.AllowEndpoints, prefix)
		}
	}
	for _, read := range []func(*cli.Command, *Config) error{readOperations, readForward, readConfirm} {
		if err := read(cmd, &cfg); err != nil {
			return Config{}, err
		}
	}
	return cfg, nil
}

// ParseEndpoint accepts an absolute http or https URL without a fragment,
// whose host a request can go to as written, and returns it with its host in
// the one canonical form hosts are compared and sent in (httpx.CanonicalURL):
// a host that would fail at every call fails at start instead. Its errors
// read after the flag's name: "must be ...", and quote at most a prefix of
// raw, its credentials hidden.
func ParseEndpoint(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("must be an absolute http(s) URL; got %s. For example https://api.example.com/graphql", quoteURL(raw))
	}
	if u.Fragment != "" {
		return nil, fmt.Errorf("must not have a #fragment, which is never sent to a server; got %s. Remove the fragment", quoteURL(raw))
	}
	canonical, err := httpx.CanonicalURL(u)
	if err != nil {
		return nil, fmt.Errorf("must name a host a request can go to as written; %v (in %s). For example https://api.example.com/graphql", err, quoteURL(raw))
	}
	return canonical, nil
}

// maxSchemaProblem is the most characters of a schema file's problem a
// startup error gives: a parser quotes the file's text, which may be huge.
const maxSchemaProblem = 300

// cut is text, or when longer than n characters its first n and its
// length.
func cut(text string, n int) string {
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	return fmt.Sprintf("%s… (%d characters)", string([]rune(text)[:n]), utf8.RuneCountInString(text))
}

// maxQuotedURL is the most characters of a URL an error quotes.
const maxQuotedURL = 200

// quoteURL quotes a URL for an error: what may hold a credential hidden,
// and at most maxQuotedURL characters of the rest.
func quoteURL(raw string) string {
	return mcptool.QuoteUpTo(httpx.RedactURL(raw), maxQuotedURL)
}
