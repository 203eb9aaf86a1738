package app

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"

	"github.com/mcpforge/servers/shared/redact"
)

// loggingSpec is a server whose Build logs a secret the way the servers'
// loggers meet one: through RedactingLogger, raw, JSON-escaped by an
// upstream (\u escapes), and with characters JSON itself escapes.
func loggingSpec(secret string) Spec {
	return Spec{
		Name:      "testmcp",
		EnvPrefix: "TESTMCP",
		Build: func(ctx context.Context, _ *cli.Command, env Env) (*mcp.Server, error) {
			logger := RedactingLogger(env.Logger, redact.New(secret))
			escaped, _ := json.Marshal(secret)
			logger.Warn("upstream said "+secret, "body", `{"echo":"\u0073`+secret[1:]+`"}`, "quoted", string(escaped), "n", 7)
			return mcp.NewServer(&mcp.Implementation{Name: "testmcp", Version: "1"}, nil), nil
		},
	}
}

// TestLogFormatJSON: --log-format json (and TESTMCP_LOG_FORMAT) writes one
// JSON object a line on stderr, with the level and message under slog's
// keys, and a secret in it is redacted in every spelling: as is, escaped by
// the upstream that echoed it, and as JSON would escape its '<', '&' and
// '"'.
func TestLogFormatJSON(t *testing.T) {
	const secret = `sk<live&"9f2c41d0b7e6`
	for name, setup := range map[string]func(t *testing.T) []string{
		"flag":     func(*testing.T) []string { return []string{"--log-format", "json"} },
		"variable": func(t *testing.T) []string { t.Setenv("TESTMCP_LOG_FORMAT", "json"); return nil },
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run(context.Background(), loggingSpec(secret), append([]string{"testmcp"}, setup(t)...), Streams{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr})
			if code != exitOK {
				t.Fatalf("exit code %d; stderr %s", code, stderr.String())
			}
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			found := false
			for _, line := range lines {
				var record map[string]any
				if err := json.Unmarshal([]byte(line), &record); err != nil {
					t.Fatalf("a stderr line is not a JSON object: %q: %v", line, err)
				}
				if msg, _ := record["msg"].(string); strings.HasPrefix(msg, "upstream said") {
					found = true
					if record["level"] != "WARN" || record["n"] != float64(7) || !strings.Contains(msg, redact.Redacted) {
						t.Errorf("record %v: want level WARN, n 7 and the message redacted", record)
					}
				}
				decoded, _ := json.Marshal(record) // every value decoded, then written again
				for _, text := range []string{line, string(decoded), strings.ToLower(line)} {
					for _, spelling := range []string{secret, strings.ToLower(secret), `sk\u003clive`, `live\u0026`, `\u0073k`, "9f2c41d0b7e6"} {
						if strings.Contains(text, spelling) {
							t.Errorf("the secret is in a JSON log line, spelt %q: %s", spelling, line)
						}
					}
				}
			}
			if !found {
				t.Errorf("no JSON record of the log line in stderr: %s", stderr.String())
			}
		})
	}
}

// TestLogFormatRefused: another format is refused naming the flag, its
// variable, the choices and an example.
func TestLogFormatRefused(t *testing.T) {
	var stdout, stderr strings.Builder
	code := Run(context.Background(), testSpec(), []string{"testmcp", "--log-format", "xml"}, Streams{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr})
	want := `testmcp: --log-format (TESTMCP_LOG_FORMAT) must be text or json; got "xml". For example --log-format json` + "\n"
	if code != exitUsage || stderr.String() != want {
		t.Errorf("code %d, stderr %q; want %d and %q", code, stderr.String(), exitUsage, want)
	}
}
