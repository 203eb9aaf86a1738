package config

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"

	"github.com/mcpforge/servers/hookmcp/internal/signature"
	"github.com/mcpforge/servers/shared/app"
)

// TestSigningSecrets: --signing-secret provider=VARIABLE, repeated or
// comma-separated, and HOOKSVC_SIGNING_SECRETS, read each secret from its
// variable at start; a flag wins over the variable.
func TestSigningSecrets(t *testing.T) {
	env := map[string]string{"STRIPE_WEBHOOK_SECRET": " whsec_abc123456789\n", "GH_SECRET": "It's a Secret to Everybody", "HMAC_KEY": "k3y-0123456789"}
	for _, tt := range []struct {
		name string
		args []string
		env  string
		want map[signature.Provider]SigningSecret
	}{
		{"none", nil, "", nil},
		{"repeated", []string{"--signing-secret", "stripe=STRIPE_WEBHOOK_SECRET", "--signing-secret", "GitHub=GH_SECRET"}, "", map[signature.Provider]SigningSecret{
			"stripe": {"STRIPE_WEBHOOK_SECRET", "whsec_abc123456789"}, "github": {"GH_SECRET", "It's a Secret to Everybody"},
		}},
		{"commas", []string{"--signing-secret", "stripe=STRIPE_WEBHOOK_SECRET,hmac-sha256=HMAC_KEY"}, "", map[signature.Provider]SigningSecret{
			"stripe": {"STRIPE_WEBHOOK_SECRET", "whsec_abc123456789"}, "hmac-sha256": {"HMAC_KEY", "k3y-0123456789"},
		}},
		{"variable", nil, "github=GH_SECRET", map[signature.Provider]SigningSecret{"github": {"GH_SECRET", "It's a Secret to Everybody"}}},
		{"a flag wins", []string{"--signing-secret", "stripe=STRIPE_WEBHOOK_SECRET"}, "github=GH_SECRET", map[signature.Provider]SigningSecret{
			"stripe": {"STRIPE_WEBHOOK_SECRET", "whsec_abc123456789"},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env != "" {
				t.Setenv(SigningSecretsVariable, tt.env)
			}
			cfg, err := parse(t, env, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, cfg.SigningSecrets); diff != "" {
				t.Errorf("secrets (-want +got):\n%s", diff)
			}
			for _, s := range cfg.SigningSecrets {
				found := false
				for _, v := range cfg.Secrets() {
					found = found || v == s.Value
				}
				if !found {
					t.Errorf("Secrets() leaves out %s's value", s.Variable)
				}
			}
		})
	}
}

// TestSigningSecretsRefused: an entry that is not provider=VARIABLE, a
// secret given where a variable's name goes, a provider named twice and a
// variable that is unset are refused at start, naming the entry, and never
// showing a value.
func TestSigningSecretsRefused(t *testing.T) {
	env := map[string]string{"SET": "s3cret-value-0123"}
	for _, tt := range []struct {
		name  string
		args  []string
		wants []string
	}{
		{"no =", []string{"--signing-secret", "whsec_LeakedSecret0123"}, []string{"--signing-secret entries must be provider=VARIABLE", "entry 1 is not", "stripe, github, shopify, slack, standard, hmac-sha256"}},
		{"unknown provider", []string{"--signing-secret", "stripe=SET,paypal=SET"}, []string{"entry 2 is not"}},
		{"a secret for a name", []string{"--signing-secret", "stripe=whsec_LeakedSecret0123"}, []string{"entry 1 (stripe) must name an environment variable", "stripe=STRIPE_WEBHOOK_SECRET"}},
		{"a hex secret for a name", []string{"--signing-secret", "hmac-sha256=8f742231b10e8888abcd"}, []string{"hmac-sha256=HMAC_SHA256_WEBHOOK_SECRET"}},
		{"twice", []string{"--signing-secret", "slack=SET", "--signing-secret", "Slack=SET"}, []string{"names slack twice (entry 2)"}},
		{"a secret in capitals for a name, unset", []string{"--signing-secret", "github=MYLEAKEDSECRET0123"}, []string{"entry 1 (github) names an environment variable that is not set"}},
		{"unset", []string{"--signing-secret", "github=GITHUB_WEBHOOK_SECRET"}, []string{"entry 1 (github) names an environment variable that is not set or empty (the name is not shown, in case a secret was given in its place)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(t, env, tt.args...)
			if err == nil {
				t.Fatal("accepted")
			}
			if strings.Contains(strings.ToLower(err.Error()), "leakedsecret") {
				t.Errorf("%q shows what was given after =", err)
			}
			for _, want := range tt.wants {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%q\ndoes not say %q", err, want)
				}
			}
			for _, secret := range []string{"LeakedSecret", "8f742231", "s3cret"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("the error shows a value: %v", err)
				}
			}
		})
	}
}

// TestSigningSecretStartupErrors: a bad --signing-secret stops the process
// with exit code 2 and one line on stderr naming the flag and its
// variable, never a value, as the built binary prints it.
func TestSigningSecretStartupErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"--signing-secret", "stripe=whsec_LeakedSecret0123"}, "",
			"hookmcp: --signing-secret (HOOKSVC_SIGNING_SECRETS) entry 1 (stripe) must name an environment variable after =, in capitals, digits and _ (for example stripe=STRIPE_WEBHOOK_SECRET), not give the secret itself; what follows = is not shown\n"},
		{nil, "github=GITHUB_WEBHOOK_SECRET",
			"hookmcp: --signing-secret (HOOKSVC_SIGNING_SECRETS) entry 1 (github) names an environment variable that is not set or empty (the name is not shown, in case a secret was given in its place): export it with the signing secret before starting hookmcp, or remove the entry\n"},
	} {
		if tt.env != "" {
			t.Setenv(SigningSecretsVariable, tt.env)
		}
		// Flags of their own: a flag that has been parsed once keeps
		// its value.
		spec := app.Spec{Name: "hookmcp", EnvPrefix: "HOOKSVC", Flags: Flags(),
			Build: func(_ context.Context, cmd *cli.Command, _ app.Env) (*mcp.Server, error) {
				_, err := FromCommand(cmd, func(k string) string { return map[string]string{"SET": "s3cret-value-0123"}[k] })
				return nil, err
			}}
		var stdout, stderr strings.Builder
		code := app.Run(context.Background(), spec, append([]string{"hookmcp"}, tt.args...), app.Streams{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr})
		if code != 2 || stderr.String() != tt.want {
			t.Errorf("%q %s: code %d\n%q\nwant\n%q", tt.args, tt.env, code, stderr.String(), tt.want)
		}
		if strings.Contains(stderr.String()+stdout.String(), "Leaked") {
			t.Errorf("the value shows: %q", stderr.String())
		}
	}
}
