package config

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"
)

// parse runs the flags over args in-process, as the process would, and
// returns the checked configuration.
func parse(t *testing.T, args ...string) (Config, error) {
	t.Helper()
	var cfg Config
	var checkErr error
	cmd := &cli.Command{Name: "graphqlmcp", Flags: Flags(), Action: func(_ context.Context, cmd *cli.Command) error {
		cfg, checkErr = FromCommand(cmd)
		return nil
	}}
	if err := cmd.Run(context.Background(), append([]string{"graphqlmcp"}, args...)); err != nil {
		t.Fatalf("parsing %q: %v", args, err)
	}
	return cfg, checkErr
}

// summary is what a test compares of a Config: the URLs as text.
type summary struct {
	Endpoint         string
	Placeholder      bool
	Headers          map[string]string
	Timeout          time.Duration
	MaxComplexity    int
	Mutations        Mutations
	AllowEndpoints   []string
	HeadersAnyOrigin bool
	MaxResponseBytes int64
	SchemaCacheTTL   time.Duration
}

func summarize(cfg Config) summary {
	s := summary{
		Headers: cfg.Headers, Timeout: cfg.Timeout, MaxComplexity: cfg.MaxComplexity, Mutations: cfg.Mutations,
		HeadersAnyOrigin: cfg.HeadersAnyOrigin, MaxResponseBytes: cfg.MaxResponseBytes, SchemaCacheTTL: cfg.SchemaCacheTTL,
	}
	if cfg.Endpoint != nil {
		s.Endpoint, s.Placeholder = cfg.Endpoint.String(), cfg.EndpointIsPlaceholder
	}
	for _, u := range cfg.AllowEndpoints {
		s.AllowEndpoints = append(s.AllowEndpoints, u.String())
	}
	return s
}

// TestFromCommand: defaults, every flag, every variable, and a flag winning
// over its variable.
func TestFromCommand(t *testing.T) {
	defaults := summary{
		Endpoint: DefaultEndpoint, Placeholder: true, Timeout: 30 * time.Second, MaxComplexity: 100, Mutations: MutationsPerCall,
		MaxResponseBytes: 4 << 20, SchemaCacheTTL: 5 * time.Minute,
	}
	with := func(change func(s *summary)) summary {
		s := defaults
		change(&s)
		return s
	}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want summary
	}{
		{"defaults", nil, nil, defaults},
		{"flags", []string{
			"-e", "https://api.example.com/graphql", "-H", `{"Authorization":"Bearer t0ken"}`, "-t", "1500", "-m", "250",
			"--mutations", "never", "--allow-endpoint", "https://a.example.com", "--allow-endpoint", "https://b.example.com/graphql",
			"--headers-any-origin", "--max-response-bytes", "1024", "--schema-cache-ttl", "0",
		}, nil, summary{
			Endpoint: "https://api.example.com/graphql", Headers: map[string]string{"Authorization": "Bearer t0ken"},
			Timeout: 1500 * time.Millisecond, MaxComplexity: 250, Mutations: MutationsNever,
			AllowEndpoints: []string{"https://a.example.com", "https://b.example.com/graphql"}, HeadersAnyOrigin: true,
			MaxResponseBytes: 1024, SchemaCacheTTL: 0,
		}},
		{"variables", nil, map[string]string{
			"GRAPHQL_ENDPOINT": "http://127.0.0.1:4000/graphql", "GRAPHQL_HEADERS": `{"X-Key":"k3y-value"}`, "GRAPHQL_TIMEOUT": "2000",
			"GRAPHQL_MAX_COMPLEXITY": "7", "GRAPHQL_MUTATIONS": "always", "GRAPHQL_ALLOW_ENDPOINTS": "https://a.example.com, https://b.example.com",
			"GRAPHQL_HEADERS_ANY_ORIGIN": "true", "GRAPHQL_MAX_RESPONSE_BYTES": "2048", "GRAPHQL_SCHEMA_CACHE_TTL": "90s",
		}, summary{
			Endpoint: "http://127.0.0.1:4000/graphql", Headers: map[string]string{"X-Key": "k3y-value"},
			Timeout: 2 * time.Second, MaxComplexity: 7, Mutations: MutationsAlways,
			AllowEndpoints: []string{"https://a.example.com", "https://b.example.com"}, HeadersAnyOrigin: true,
			MaxResponseBytes: 2048, SchemaCacheTTL: 90 * time.Second,
		}},
		{"a flag wins over its variable", []string{"-t", "100", "-e", "https://flag.example.com"},
			map[string]string{"GRAPHQL_TIMEOUT": "9000", "GRAPHQL_ENDPOINT": "https://env.example.com"},
			with(func(s *summary) {
				s.Timeout, s.Endpoint, s.Placeholder = 100*time.Millisecond, "https://flag.example.com", false
			})},
		{"an empty variable is unset", nil, map[string]string{"GRAPHQL_TIMEOUT": "", "GRAPHQL_HEADERS": ""}, defaults},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			cfg, err := parse(t, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, summarize(cfg)); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFromCommandErrorsNameTheFlag: a check's error is a FlagError naming
// the flag, so the process can name its variable too (the whole lines are
// checked in the main package).
func TestFromCommandErrorsNameTheFlag(t *testing.T) {
	for flag, args := range map[string][]string{
		"endpoint": {"-e", "x"}, "headers": {"-H", "[]"}, "timeout": {"-t", "0"}, "maxComplexity": {"-m", "0"},
		"mutations": {"--mutations", "x"}, "allow-endpoint": {"--allow-endpoint", "x"},
		"max-response-bytes": {"--max-response-bytes", "0"}, "schema-cache-ttl": {"--schema-cache-ttl", "-1s"},
	} {
		_, err := parse(t, args...)
		if err == nil || !strings.HasPrefix(err.Error(), "--"+flag+" must") {
			t.Errorf("%q: %v, want an error about --%s", args, err, flag)
		}
	}
}
