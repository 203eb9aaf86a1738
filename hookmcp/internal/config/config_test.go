package config

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"
)

// parse runs the flags over args in-process, as the process would, with env
// standing for the environment's API key, and returns the configuration.
func parse(t *testing.T, env map[string]string, args ...string) (Config, error) {
	t.Helper()
	var cfg Config
	var checkErr error
	cmd := &cli.Command{Name: "hookmcp", Flags: Flags(), Action: func(_ context.Context, cmd *cli.Command) error {
		cfg, checkErr = FromCommand(cmd, func(k string) string { return env[k] })
		return nil
	}}
	if err := cmd.Run(context.Background(), append([]string{"hookmcp"}, args...)); err != nil {
		return Config{}, err
	}
	return cfg, checkErr
}

type summary struct {
	APIKey, TokenID, APIURL string
	Timeout                 time.Duration
	ResourceMaxBytes        int64
}

func summarize(cfg Config) summary {
	return summary{cfg.APIKey, cfg.TokenID, cfg.APIURL.String(), cfg.Timeout, cfg.ResourceMaxBytes}
}

// TestFromCommand: defaults, every flag, every variable, a flag winning over
// its variable, and --timeout in both its forms.
func TestFromCommand(t *testing.T) {
	const id = "9B1DEB4D-3B7D-4BAD-9BDD-2B0D7B3DCB6D"
	defaults := summary{APIURL: DefaultAPIURL, Timeout: 30 * time.Second, ResourceMaxBytes: 4 << 20}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want summary
	}{
		{"defaults", nil, nil, defaults},
		{"flags", []string{"--token-id", id, "--api-url", "http://127.0.0.1:8084/", "-t", "2m", "--resource-max-bytes", "65536"}, nil,
			summary{TokenID: strings.ToLower(id), APIURL: "http://127.0.0.1:8084", Timeout: 2 * time.Minute, ResourceMaxBytes: 65536}},
		{"variables", nil, map[string]string{
			"HOOKSVC_API_KEY": " key-0123456789 ", "HOOKSVC_TOKEN_ID": id, "HOOKSVC_API_URL": "https://hooks.example.com/base",
			"HOOKSVC_TIMEOUT": "45s", "HOOKSVC_RESOURCE_MAX_BYTES": "1048576",
		}, summary{APIKey: "key-0123456789", TokenID: strings.ToLower(id), APIURL: "https://hooks.example.com/base", Timeout: 45 * time.Second, ResourceMaxBytes: 1 << 20}},
		{"a flag wins over its variable", []string{"--timeout", "10s"}, map[string]string{"HOOKSVC_TIMEOUT": "20s"},
			summary{APIURL: DefaultAPIURL, Timeout: 10 * time.Second, ResourceMaxBytes: 4 << 20}},
		{"a bare timeout is milliseconds", []string{"-t", "30000"}, nil, defaults},
		{"a bare timeout in the variable is milliseconds", nil, map[string]string{"HOOKSVC_TIMEOUT": "1500"},
			summary{APIURL: DefaultAPIURL, Timeout: 1500 * time.Millisecond, ResourceMaxBytes: 4 << 20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				if k != APIKeyVariable { // read through getenv, not the environment
					t.Setenv(k, v)
				}
			}
			cfg, err := parse(t, tt.env, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, summarize(cfg)); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTimeoutValue(t *testing.T) {
	for in, want := range map[string]time.Duration{"30000": 30 * time.Second, " 250 ": 250 * time.Millisecond, "1m30s": 90 * time.Second, "-5": -5 * time.Millisecond} {
		var d millisOrDuration
		if err := d.Set(in); err != nil || time.Duration(d) != want {
			t.Errorf("Set(%q) = %v, %v; want %v", in, time.Duration(d), err, want)
		}
	}
	for _, in := range []string{"", "soon", "30 s", "99999999999999999"} {
		var d millisOrDuration
		if err := d.Set(in); err == nil || !strings.HasPrefix(err.Error(), "must be a duration such as 30s or 2m, or a whole number of milliseconds") {
			t.Errorf("Set(%q) = %v, want the rule", in, err)
		}
	}
}

// TestAPIURLNotACaptureURL: a capture URL given as the API's base URL is
// refused, with the base URL to use; a base URL with a path of its own is
// not.
func TestAPIURLNotACaptureURL(t *testing.T) {
	const token = "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d"
	for raw, base := range map[string]string{
		"https://webhook.site/" + token:              "https://webhook.site",
		"https://webhook.site/" + token + "/":        "https://webhook.site",
		"https://hooks.example/api/" + token:         "https://hooks.example/api",
		"https://" + token + ".webhook.site":         "https://webhook.site",
		"http://127.0.0.1:8089/" + token + "/200/ok": "http://127.0.0.1:8089",
	} {
		_, err := ParseAPIURL(raw)
		if err == nil || !strings.Contains(err.Error(), "is the capture URL of token "+token+". Use "+base+" (and --token-id "+token) {
			t.Errorf("%s: %v, want a refusal naming %s", raw, err, base)
		}
	}
	for _, raw := range []string{"https://webhook.site", "https://hooks.example/api/v1", "http://127.0.0.1:8089"} {
		if _, err := ParseAPIURL(raw); err != nil {
			t.Errorf("%s: %v", raw, err)
		}
	}
}
