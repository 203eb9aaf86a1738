package app

import (
	"context"
	"strings"
	"testing"
)

// TestEnvOnlyFlag: a setting a server reads from the environment only, given
// as a flag in any form, is refused with the variable to set, its value
// never repeated; --help does not list it; a server without it still calls
// it an unknown flag.
func TestEnvOnlyFlag(t *testing.T) {
	spec := testSpec()
	spec.Flags = append(spec.Flags, &EnvOnlyFlag{Name: "api-key", Aliases: []string{"key"}, EnvVar: "TESTMCP_API_KEY", What: "the API key"})
	run := func(spec Spec, args ...string) (int, string, string) {
		var stdout, stderr strings.Builder
		code := Run(context.Background(), spec, append([]string{"testmcp"}, args...), Streams{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr})
		return code, stdout.String(), stderr.String()
	}
	refusal := func(typed string) string {
		return "testmcp: " + typed + " is not a flag: testmcp reads the API key from the environment variable TESTMCP_API_KEY only, " +
			"because a flag's value shows in process listings. Set TESTMCP_API_KEY in testmcp's environment instead " +
			"(the env of its entry in your MCP client's configuration), and remove " + typed + "\n"
	}
	// The refusal names the flag as it was typed, an alias included.
	for _, tt := range []struct {
		typed string
		args  []string
	}{
		{"--api-key", []string{"--api-key", "s3cret-value"}},
		{"--api-key", []string{"--api-key=s3cret-value"}},
		{"--api-key", []string{"--api-key=s3cret\nvalue"}},
		{"--api-key", []string{"-api-key", "s3cret-value"}},
		{"--key", []string{"--key", "s3cret-value"}},
		{"--key", []string{"--key=s3cret-value"}},
		{"--api-key", []string{"--size", "2", "--api-key"}},
	} {
		args, refusal := tt.args, refusal(tt.typed)
		code, stdout, stderr := run(spec, args...)
		if code != exitUsage || stderr != refusal || stdout != "" {
			t.Errorf("%q: code %d, stderr %q; want %d and %q", args, code, stderr, exitUsage, refusal)
		}
		if strings.Contains(stderr, "s3cret") {
			t.Errorf("%q: the value shows: %q", args, stderr)
		}
	}
	if _, help, _ := run(spec, "--help"); !strings.Contains(help, "--size") || strings.Contains(help, "api-key") {
		t.Errorf("--help lists the env-only flag, or not the others:\n%s", help)
	}
	if _, _, stderr := run(testSpec(), "--api-key", "x"); !strings.HasPrefix(stderr, "testmcp: unknown flag --api-key;") {
		t.Errorf("without it: %q", stderr)
	}
}
