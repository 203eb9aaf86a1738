package config

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpforge/servers/shared/app"
)

// TestAPIKeyFlagNamedAsTyped: the API key given as a flag, in any spelling
// a person might try (--api-key, --apikey, --api_key, --key, with its value
// after a space or an =), is refused naming the flag as it was typed and
// HOOKSVC_API_KEY, never the value.
func TestAPIKeyFlagNamedAsTyped(t *testing.T) {
	spec := app.Spec{Name: "hookmcp", EnvPrefix: "HOOKSVC", Flags: Flags()}
	for _, tt := range []struct {
		typed string
		args  []string
	}{
		{"--api-key", []string{"--api-key", "SECRET1"}},
		{"--key", []string{"--key", "SECRET2"}},
		{"--apikey", []string{"--apikey=SECRET3"}},
		{"--api_key", []string{"--api_key", "SECRET4"}},
		{"--api_key", []string{"--api_key=SECRET5"}},
	} {
		var stdout, stderr strings.Builder
		code := app.Run(context.Background(), spec, append([]string{"hookmcp"}, tt.args...), app.Streams{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr})
		want := "hookmcp: " + tt.typed + " is not a flag: hookmcp reads the API key from the environment variable HOOKSVC_API_KEY only"
		if code == 0 || !strings.HasPrefix(stderr.String(), want) || !strings.HasSuffix(stderr.String(), "and remove "+tt.typed+"\n") {
			t.Errorf("%q: code %d, %q; want %q", tt.args, code, stderr.String(), want)
		}
		if strings.Contains(stderr.String()+stdout.String(), "SECRET") {
			t.Errorf("%q: the value shows: %q", tt.args, stderr.String())
		}
	}
}
