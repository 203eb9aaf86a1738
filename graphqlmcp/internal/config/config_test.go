package config

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
	SchemaTypes      int // of the --schema file's schema; 0 without one
	Validate         bool
}

func summarize(cfg Config) summary {
	s := summary{
		Headers: cfg.Headers, Timeout: cfg.Timeout, MaxComplexity: cfg.MaxComplexity, Mutations: cfg.Mutations,
		HeadersAnyOrigin: cfg.HeadersAnyOrigin, MaxResponseBytes: cfg.MaxResponseBytes, SchemaCacheTTL: cfg.SchemaCacheTTL,
		Validate: cfg.Validate,
	}
	if cfg.Schema != nil {
		s.SchemaTypes = cfg.Schema.TypeCount()
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
		MaxResponseBytes: 4 << 20, SchemaCacheTTL: 5 * time.Minute, Validate: true,
	}
	with := func(change func(s *summary)) summary {
		s := defaults
		change(&s)
		return s
	}
	dir := t.TempDir()
	sdlFile, jsonFile := filepath.Join(dir, "schema.graphql"), filepath.Join(dir, "schema.json")
	writeFile(t, sdlFile, "type Query { user: User }\ntype User { name: String }\n")
	writeFile(t, jsonFile, `{"data":{"__schema":{"queryType":{"name":"Query"},"types":[{"kind":"OBJECT","name":"Query","fields":[{"name":"a","args":[],"type":{"kind":"SCALAR","name":"Int"}}]}],"directives":[]}}}`)
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
			"--schema", sdlFile, "--validate=false",
		}, nil, summary{
			Endpoint: "https://api.example.com/graphql", Headers: map[string]string{"Authorization": "Bearer t0ken"},
			Timeout: 1500 * time.Millisecond, MaxComplexity: 250, Mutations: MutationsNever,
			AllowEndpoints: []string{"https://a.example.com", "https://b.example.com/graphql"}, HeadersAnyOrigin: true,
			MaxResponseBytes: 1024, SchemaCacheTTL: 0, SchemaTypes: 2, Validate: false,
		}},
		{"variables", nil, map[string]string{
			"GRAPHQL_ENDPOINT": "http://127.0.0.1:4000/graphql", "GRAPHQL_HEADERS": `{"X-Key":"k3y-value"}`, "GRAPHQL_TIMEOUT": "2000",
			"GRAPHQL_MAX_COMPLEXITY": "7", "GRAPHQL_MUTATIONS": "always", "GRAPHQL_ALLOW_ENDPOINTS": "https://a.example.com, https://b.example.com",
			"GRAPHQL_HEADERS_ANY_ORIGIN": "true", "GRAPHQL_MAX_RESPONSE_BYTES": "2048", "GRAPHQL_SCHEMA_CACHE_TTL": "90s",
			"GRAPHQL_SCHEMA": jsonFile, "GRAPHQL_VALIDATE": "false",
		}, summary{
			Endpoint: "http://127.0.0.1:4000/graphql", Headers: map[string]string{"X-Key": "k3y-value"},
			Timeout: 2 * time.Second, MaxComplexity: 7, Mutations: MutationsAlways,
			AllowEndpoints: []string{"https://a.example.com", "https://b.example.com"}, HeadersAnyOrigin: true,
			MaxResponseBytes: 2048, SchemaCacheTTL: 90 * time.Second, SchemaTypes: 1,
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
		"schema": {"--schema", filepath.Join(t.TempDir(), "missing.graphql")},
	} {
		_, err := parse(t, args...)
		if err == nil || !strings.HasPrefix(err.Error(), "--"+flag+" must") {
			t.Errorf("%q: %v, want an error about --%s", args, err, flag)
		}
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSchemaFileErrors: a --schema file that does not load stops the start
// with the reason: JSON that is no introspection answer, SDL that does not
// parse or validate.
func TestSchemaFileErrors(t *testing.T) {
	dir := t.TempDir()
	for name, tt := range map[string]struct{ text, want string }{
		"json":          {`{"data":{}}`, "is JSON but not an introspection answer"},
		"sdl syntax":    {"type Query {", "is not valid SDL"},
		"sdl unknown":   {"type Query { a: Nope }", "is not valid SDL"},
		"no query type": {"type User { a: Int }", "is not valid SDL"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		writeFile(t, path, tt.text)
		_, err := parse(t, "--schema", path)
		if err == nil || !strings.Contains(err.Error(), path+" "+tt.want) || !strings.HasPrefix(err.Error(), "--schema must name an SDL file or a saved introspection answer") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestEndpointsCanonical: --endpoint and each --allow-endpoint are kept
// with their host in the one form hosts are compared and sent in, and a
// host no request can go to as written (an empty label, a character no host
// name holds, a zone that is no interface name) stops the start, naming
// the flag, the rule and the host, instead of failing at every call.
func TestEndpointsCanonical(t *testing.T) {
	for raw, want := range map[string]string{
		"https://API.Example.COM./graphql":  "https://api.example.com/graphql",
		"http://%C3%A9.example/graphql":     "http://xn--9ca.example/graphql",
		"http://apİ.example:8080/graphql":   "http://xn--api-bec.example:8080/graphql",
		"https://ＥＸＡＭＰＬＥ.com/graphql":       "https://example.com/graphql",
		"http://[::FFFF:127.0.0.1]:4000/gq": "http://[::ffff:127.0.0.1]:4000/gq",
		"http://127.0.0.1:4000/graphql":     "http://127.0.0.1:4000/graphql",
	} {
		cfg, err := parse(t, "--endpoint", raw, "--allow-endpoint", raw)
		if err != nil {
			t.Errorf("%s: %v", raw, err)
			continue
		}
		if got := cfg.Endpoint.String(); got != want {
			t.Errorf("--endpoint %s kept as %s, want %s", raw, got, want)
		}
		if len(cfg.AllowEndpoints) != 1 || cfg.AllowEndpoints[0].String() != want {
			t.Errorf("--allow-endpoint %s kept as %v, want %s", raw, cfg.AllowEndpoints, want)
		}
	}
	for raw, want := range map[string]string{
		"http://a!b.example/graphql":     `holds '!', which is not allowed in a host name`,
		"http://a..example/graphql":      "has an empty label",
		"http://a$b.example/graphql":     `holds '$', which is not allowed in a host name`,
		"http://[fe80::1%25a!b]/graphql": "has a zone that is not an interface name",
	} {
		for _, flag := range []string{"endpoint", "allow-endpoint"} {
			_, err := parse(t, "--"+flag, raw)
			if err == nil || !strings.HasPrefix(err.Error(), "--"+flag+" must name a host a request can go to as written; host ") || !strings.Contains(err.Error(), want) ||
				!strings.Contains(err.Error(), "For example https://api.example.com/graphql") {
				t.Errorf("--%s %s: %v; want a refusal saying it %s", flag, raw, err, want)
			}
		}
	}
	// The credentials of a refused endpoint are not repeated, and a huge
	// one is quoted by a prefix.
	_, err := parse(t, "--endpoint", "http://user:SECRET5@a..b/graphql?key=SECRET6")
	if err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("credentials in the refusal: %v", err)
	}
	_, err = parse(t, "--endpoint", "http://"+strings.Repeat("a", 100_000)+"..b/graphql")
	if err == nil || len(err.Error()) > 1000 {
		t.Errorf("a 100 KB host: a %d-byte error", len(fmt.Sprint(err)))
	}
}
