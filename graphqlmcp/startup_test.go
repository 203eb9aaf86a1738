package main

import (
	"testing"

	"github.com/mcpforge/servers/shared/mcptest"
)

// TestStartupErrors runs graphqlmcp in-process with each bad flag or
// variable: each stops it with exit code 2 and this one line, naming the
// flag and its variable, the rule and a good value, before anything is
// served, and never repeating a secret.
func TestStartupErrors(t *testing.T) {
	mcptest.CheckStartupErrors(t, spec, []mcptest.UsageCase{
		{Name: "headers not JSON", Args: []string{"-H", "Authorization: Bearer x"}, Want: `--headers (GRAPHQL_HEADERS) must be a JSON object of string values; got a header line (Authorization: …), not JSON: write it as {"Authorization":"…"}. For example '{"Authorization":"Bearer <token>"}'`},
		{Name: "headers in single quotes", Args: []string{"-H", "{'Authorization': 'Bearer SECRET7'}"}, Want: `--headers (GRAPHQL_HEADERS) must be a JSON object of string values; single quotes at column 2: JSON needs double quotes around names and values. For example '{"Authorization":"Bearer <token>"}'`, Secret: "SECRET7"},
		{Name: "headers not strings", Args: []string{"-H", "{\"X-Retries\": 3}"}, Want: `--headers (GRAPHQL_HEADERS) must be a JSON object of string values; the value of "X-Retries" is not a string. For example '{"X-Retries":"3"}'`},
		{Name: "headers with Host", Args: []string{"-H", "{\"Host\": \"example.com\"}"}, Want: `--headers (GRAPHQL_HEADERS) must hold only headers a caller may set: header "Host" cannot be set: the HTTP layer frames the request itself, so that the endpoint reads the operation graphqlmcp checked; remove it`},
		{Name: "headers from the environment", Env: []string{"GRAPHQL_HEADERS=[1]"}, Want: `--headers (GRAPHQL_HEADERS) must be a JSON object of string values; got a JSON array: put the headers in one object, {"Name":"value", …}. For example '{"Authorization":"Bearer <token>"}'`},
		{Name: "timeout zero", Args: []string{"-t", "0"}, Want: "--timeout (GRAPHQL_TIMEOUT) must be between 1 and 600000 milliseconds, got 0; for example --timeout 30000"},
		{Name: "timeout over ten minutes", Args: []string{"--timeout", "600001"}, Want: "--timeout (GRAPHQL_TIMEOUT) must be between 1 and 600000 milliseconds, got 600001; for example --timeout 30000"},
		{Name: "timeout not a number", Args: []string{"--timeout", "soon"}, Want: `--timeout (GRAPHQL_TIMEOUT) must be a whole number; got "soon". For example --timeout 30000`},
		{Name: "timeout not a number in the environment", Env: []string{"GRAPHQL_TIMEOUT=soon"}, Want: `GRAPHQL_TIMEOUT (--timeout) must be a whole number; got "soon". For example GRAPHQL_TIMEOUT=30000`},
		{Name: "maxComplexity zero", Args: []string{"-m", "0"}, Want: "--maxComplexity (GRAPHQL_MAX_COMPLEXITY) must be at least 1, got 0; for example --maxComplexity 100"},
		{Name: "maxComplexity from the environment", Env: []string{"GRAPHQL_MAX_COMPLEXITY=-1"}, Want: "--maxComplexity (GRAPHQL_MAX_COMPLEXITY) must be at least 1, got -1; for example --maxComplexity 100"},
		{Name: "endpoint not absolute", Args: []string{"-e", "localhost:4000/graphql"}, Want: `--endpoint (GRAPHQL_ENDPOINT) must be an absolute http(s) URL; got "localhost:4000/graphql". For example https://api.example.com/graphql`},
		{Name: "endpoint not http", Args: []string{"-e", "ftp://example.com/graphql"}, Want: `--endpoint (GRAPHQL_ENDPOINT) must be an absolute http(s) URL; got "ftp://example.com/graphql". For example https://api.example.com/graphql`},
		{Name: "endpoint password not repeated", Args: []string{"-e", "http://user:SECRET9@example.com/graphql#top"}, Want: `--endpoint (GRAPHQL_ENDPOINT) must not have a #fragment, which is never sent to a server; got "http://REDACTED@example.com/graphql#REDACTED". Remove the fragment`, Secret: "SECRET9"},
		{Name: "endpoint query not repeated", Env: []string{"GRAPHQL_ENDPOINT=example.com/graphql?token=SECRET8"}, Want: `--endpoint (GRAPHQL_ENDPOINT) must be an absolute http(s) URL; got "example.com/graphql?REDACTED". For example https://api.example.com/graphql`, Secret: "SECRET8"},
		{Name: "endpoint without a value", Args: []string{"-e"}, Want: "--endpoint (GRAPHQL_ENDPOINT) needs a value, such as --endpoint http://localhost:4000/graphql"},
		{Name: "allow-endpoint not a URL", Args: []string{"--allow-endpoint", "example.com"}, Want: `--allow-endpoint (GRAPHQL_ALLOW_ENDPOINTS) must be an absolute http(s) URL; got "example.com". For example https://api.example.com/graphql`},
		{Name: "allow-endpoint password not repeated", Args: []string{"--allow-endpoint", "ftp://user:SECRET7@example.com"}, Want: `--allow-endpoint (GRAPHQL_ALLOW_ENDPOINTS) must be an absolute http(s) URL; got "ftp://REDACTED@example.com". For example https://api.example.com/graphql`, Secret: "SECRET7"},
		{Name: "mutations unknown", Args: []string{"--mutations", "sometimes"}, Want: `--mutations (GRAPHQL_MUTATIONS) must be per-call, never or always, got "sometimes"; for example --mutations never`},
		{Name: "headers-any-origin not a boolean", Env: []string{"GRAPHQL_HEADERS_ANY_ORIGIN=maybe"}, Want: `GRAPHQL_HEADERS_ANY_ORIGIN (--headers-any-origin) must be true or false; got "maybe". For example GRAPHQL_HEADERS_ANY_ORIGIN=true`},
		{Name: "max-response-bytes zero", Args: []string{"--max-response-bytes", "0"}, Want: "--max-response-bytes (GRAPHQL_MAX_RESPONSE_BYTES) must be at least 1, got 0; for example --max-response-bytes 4194304"},
		{Name: "schema-cache-ttl without a unit", Args: []string{"--schema-cache-ttl", "5"}, Want: `--schema-cache-ttl (GRAPHQL_SCHEMA_CACHE_TTL) must be a duration with its unit, such as 30s, 5m or 1h30m; got "5". For example --schema-cache-ttl 5m`},
		{Name: "schema-cache-ttl without a unit in the environment", Env: []string{"GRAPHQL_SCHEMA_CACHE_TTL=300"}, Want: `GRAPHQL_SCHEMA_CACHE_TTL (--schema-cache-ttl) must be a duration with its unit, such as 30s, 5m or 1h30m; got "300". For example GRAPHQL_SCHEMA_CACHE_TTL=5m`},
		{Name: "schema-cache-ttl negative", Args: []string{"--schema-cache-ttl", "-1m"}, Want: "--schema-cache-ttl (GRAPHQL_SCHEMA_CACHE_TTL) must not be negative, got -1m0s; for example --schema-cache-ttl 5m, or 0 to disable the cache"},
		{Name: "schema file missing", Args: []string{"--schema", "/nonexistent/schema.graphql"}, Want: "--schema (GRAPHQL_SCHEMA) must name an SDL file or a saved introspection answer; /nonexistent/schema.graphql cannot be read: no such file or directory. For example --schema ./schema.graphql"},
		{Name: "validate not a boolean", Env: []string{"GRAPHQL_VALIDATE=no"}, Want: `GRAPHQL_VALIDATE (--validate) must be true or false; got "no". For example GRAPHQL_VALIDATE=true`},
		{Name: "transport unknown", Args: []string{"--transport", "sse"}, Want: `--transport (GRAPHQL_TRANSPORT) must be stdio or http; got "sse". For example --transport http`},
		{Name: "log-level unknown", Env: []string{"GRAPHQL_LOG_LEVEL=loud"}, Want: `--log-level (GRAPHQL_LOG_LEVEL) must be debug, info, warn or error; got "loud". For example --log-level debug`},
		{Name: "http-token too short", Args: []string{"--transport", "http", "--http-token", "short"}, Want: "--http-token (GRAPHQL_HTTP_TOKEN) must be at least 16 characters with no spaces; generate one with: openssl rand -hex 32"},
		{Name: "listen beyond loopback without a token", Args: []string{"--transport", "http", "--listen", "0.0.0.0:0"}, Want: "--listen (GRAPHQL_LISTEN) is 0.0.0.0:0, not a loopback address, and anyone who reaches it could use this server's credentials: set --http-token (GRAPHQL_HTTP_TOKEN) so that clients must send Authorization: Bearer <token>, or pass --insecure-no-auth if something in front of the server already authenticates callers"},
		{Name: "unknown flag", Args: []string{"--endpont", "http://x"}, Want: "unknown flag --endpont; run graphqlmcp --help to list the flags it takes"},
		{Name: "unknown short flag", Args: []string{"-x"}, Want: "unknown flag -x; run graphqlmcp --help to list the flags it takes"},
		{Name: "stray argument", Args: []string{"http://x"}, Want: `unexpected argument "http://x": graphqlmcp takes flags only; run graphqlmcp --help to list them`},
	})
}

// TestHelp: --help names every flag and variable and fits 80 columns, the
// version line of a build without a commit included.
func TestHelp(t *testing.T) {
	mcptest.CheckHelp(t, spec(), []string{
		"--endpoint", "GRAPHQL_ENDPOINT", "--headers", "GRAPHQL_HEADERS", "--timeout", "GRAPHQL_TIMEOUT",
		"--maxComplexity", "GRAPHQL_MAX_COMPLEXITY", "--mutations", "--allow-endpoint", "--headers-any-origin",
		"--max-response-bytes", "--schema-cache-ttl", "--schema", "GRAPHQL_SCHEMA", "--validate", "GRAPHQL_VALIDATE",
		"--transport", "--listen", "--log-level",
	})
}

// TestStartupErrorsBounded: whatever value a flag is given (1.1 MB of it),
// the startup error quotes a prefix of it at most.
func TestStartupErrorsBounded(t *testing.T) {
	mcptest.CheckStartupErrorsBounded(t, spec)
}
