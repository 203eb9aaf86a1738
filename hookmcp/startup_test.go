package main

import (
	"os"
	"testing"

	"github.com/mcpforge/servers/shared/app"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestStartupErrors runs hookmcp in-process with each bad flag or variable:
// each stops it with exit code 2 and this one line, naming the flag and its
// variable, the rule and a good value, before anything is served, and never
// repeating a secret.
func TestStartupErrors(t *testing.T) {
	mcptest.CheckStartupErrors(t, func() app.Spec { return spec(os.Getenv) }, []mcptest.UsageCase{
		{Name: "token id an alias", Args: []string{"--token-id", "my-hook"}, Want: `--token-id (HOOKSVC_TOKEN_ID) must be a token UUID (the API does not take aliases); got "my-hook". For example --token-id 9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d`},
		{Name: "token id from the environment", Env: []string{"HOOKSVC_TOKEN_ID=123"}, Want: `--token-id (HOOKSVC_TOKEN_ID) must be a token UUID (the API does not take aliases); got "123". For example --token-id 9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d`},
		{Name: "api url not absolute", Args: []string{"--api-url", "webhook.site"}, Want: `--api-url (HOOKSVC_API_URL) must be the absolute http(s) base URL of the API; got "webhook.site". For example https://webhook.site`},
		{Name: "api url with a query", Env: []string{"HOOKSVC_API_URL=https://webhook.site/?x=1"}, Want: `--api-url (HOOKSVC_API_URL) must be a plain base URL without query string or fragment; got "https://webhook.site/?REDACTED". For example https://webhook.site`},
		{Name: "api url query not repeated", Args: []string{"--api-url", "https://webhook.site/?key=SECRET6"}, Want: `--api-url (HOOKSVC_API_URL) must be a plain base URL without query string or fragment; got "https://webhook.site/?REDACTED". For example https://webhook.site`, Secret: "SECRET6"},
		{Name: "api url fragment not repeated", Args: []string{"--api-url", "webhook.site/#SECRET5"}, Want: `--api-url (HOOKSVC_API_URL) must be the absolute http(s) base URL of the API; got "webhook.site/#REDACTED". For example https://webhook.site`, Secret: "SECRET5"},
		{Name: "api url with a password", Args: []string{"--api-url", "https://me:hunter22@webhook.site"}, Want: "--api-url (HOOKSVC_API_URL) must not carry user info (user:password@); pass the API key in HOOKSVC_API_KEY instead", Secret: "hunter22"},
		{Name: "api key with a space", Env: []string{"HOOKSVC_API_KEY=abc def-secret-key"}, Want: "HOOKSVC_API_KEY contains whitespace; set it to the key alone, as shown in your account settings", Secret: "def-secret-key"},
		{Name: "api key as a flag", Args: []string{"--api-key", "SECRET8"}, Want: "--api-key is not a flag: hookmcp reads the API key from the environment variable HOOKSVC_API_KEY only, because a flag's value shows in process listings. Set HOOKSVC_API_KEY in hookmcp's environment instead (the env of its entry in your MCP client's configuration), and remove --api-key", Secret: "SECRET8"},
		{Name: "api key as a flag with =", Args: []string{"--api-key=SECRET9 x"}, Want: "--api-key is not a flag: hookmcp reads the API key from the environment variable HOOKSVC_API_KEY only, because a flag's value shows in process listings. Set HOOKSVC_API_KEY in hookmcp's environment instead (the env of its entry in your MCP client's configuration), and remove --api-key", Secret: "SECRET9"},
		{Name: "api url a capture URL", Env: []string{"HOOKSVC_API_URL=https://webhook.site/9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d"}, Want: "--api-url (HOOKSVC_API_URL) must be the capture API's base URL, not a capture URL: https://webhook.site/9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d is the capture URL of token 9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d. Use https://webhook.site (and --token-id 9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d, or HOOKSVC_TOKEN_ID, to make that token the default)"},
		{Name: "timeout not a duration", Args: []string{"--timeout", "soon"}, Want: `--timeout (HOOKSVC_TIMEOUT) must be a duration such as 30s or 2m, or a whole number of milliseconds such as 30000; got "soon". For example --timeout 30s`},
		{Name: "timeout not a duration in the environment", Env: []string{"HOOKSVC_TIMEOUT=30 seconds"}, Want: `HOOKSVC_TIMEOUT (--timeout) must be a duration such as 30s or 2m, or a whole number of milliseconds such as 30000; got "30 seconds". For example HOOKSVC_TIMEOUT=30s`},
		{Name: "timeout too long", Args: []string{"-t", "1h"}, Want: "--timeout (HOOKSVC_TIMEOUT) must be between 1s and 10m, got 1h0m0s; for example --timeout 30s (a bare number is milliseconds: 30000)"},
		{Name: "timeout too long in milliseconds", Args: []string{"-t", "600001"}, Want: "--timeout (HOOKSVC_TIMEOUT) must be between 1s and 10m, got 10m0.001s; for example --timeout 30s (a bare number is milliseconds: 30000)"},
		{Name: "timeout too short", Env: []string{"HOOKSVC_TIMEOUT=10ms"}, Want: "--timeout (HOOKSVC_TIMEOUT) must be between 1s and 10m, got 10ms; for example --timeout 30s (a bare number is milliseconds: 30000)"},
		{Name: "timeout too short in milliseconds", Args: []string{"--timeout", "30"}, Want: "--timeout (HOOKSVC_TIMEOUT) must be between 1s and 10m, got 30ms; for example --timeout 30s (a bare number is milliseconds: 30000)"},
		{Name: "resource-max-bytes not a number", Args: []string{"--resource-max-bytes", "4MiB"}, Want: `--resource-max-bytes (HOOKSVC_RESOURCE_MAX_BYTES) must be a whole number; got "4MiB". For example --resource-max-bytes 4194304`},
		{Name: "resource-max-bytes too small", Env: []string{"HOOKSVC_RESOURCE_MAX_BYTES=1024"}, Want: "--resource-max-bytes (HOOKSVC_RESOURCE_MAX_BYTES) must be between 65536 and 268435456, got 1024; for example --resource-max-bytes 4194304 (4 MiB)"},
		{Name: "transport unknown", Args: []string{"--transport", "sse"}, Want: `--transport (HOOKSVC_TRANSPORT) must be stdio or http; got "sse". For example --transport http`},
		{Name: "listen without a value", Args: []string{"--listen"}, Want: "--listen (HOOKSVC_LISTEN) needs a value, such as --listen 127.0.0.1:8080"},
		{Name: "unknown flag", Args: []string{"--bogus"}, Want: "unknown flag --bogus; run hookmcp --help to list the flags it takes"},
		{Name: "stray argument", Args: []string{"serve"}, Want: `unexpected argument "serve": hookmcp takes flags only; run hookmcp --help to list them`},
	})
}

// TestHelp: --help names every flag and variable and fits 80 columns, the
// version line of a build without a commit included.
func TestHelp(t *testing.T) {
	mcptest.CheckHelp(t, spec(os.Getenv), []string{
		"--token-id", "HOOKSVC_TOKEN_ID", "--api-url", "HOOKSVC_API_URL", "--timeout", "HOOKSVC_TIMEOUT",
		"--resource-max-bytes", "HOOKSVC_RESOURCE_MAX_BYTES", "HOOKSVC_API_KEY", "--transport", "--listen", "--log-level",
	})
}

// TestStartupErrorsBounded: whatever value a flag is given (1.1 MB of it),
// the startup error quotes a prefix of it at most.
func TestStartupErrorsBounded(t *testing.T) {
	mcptest.CheckStartupErrorsBounded(t, func() app.Spec { return spec(os.Getenv) })
}
