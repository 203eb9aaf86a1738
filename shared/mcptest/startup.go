package mcptest

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpforge/servers/shared/app"
)

// CheckStartupErrors runs a fresh spec() in-process once per case (urfave/cli
// flags keep state from one run to the next), as a subtest, and
// checks that it exits with code 2, prints nothing on stdout, and prints
// exactly one line on stderr: "<name>: " and the case's Want, whole. The
// case's Env is set for the run alone.
func CheckStartupErrors(t *testing.T, spec func() app.Spec, cases []UsageCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			for _, kv := range c.Env {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			s := spec()
			code, stdout, stderr := runInProcess(s, c.Args...)
			if want := s.Name + ": " + c.Want + "\n"; code != 2 || stderr != want {
				t.Errorf("exit %d, stderr:\n%q\nwant exit 2 and:\n%q", code, stderr, want)
			}
			if stdout != "" {
				t.Errorf("stdout is not empty: %q", stdout)
			}
			if c.Secret != "" && strings.Contains(stderr, c.Secret) {
				t.Errorf("the secret %q shows in %q", c.Secret, stderr)
			}
		})
	}
}

// runInProcess runs spec with args, its stdin empty (a stdio server ends at
// once), and returns the exit code and what it printed.
func runInProcess(spec app.Spec, args ...string) (code int, stdout, stderr string) {
	var out, errOut SyncBuffer
	code = app.Run(context.Background(), spec, append([]string{spec.Name}, args...),
		app.Streams{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	return code, out.String(), errOut.String()
}

// CheckHelp checks in-process that --help names every string of want and
// that every line, the version line included, fits an 80-column terminal.
func CheckHelp(t *testing.T, spec app.Spec, want []string) {
	t.Helper()
	code, help, stderr := runInProcess(spec, "--help")
	if code != 0 || stderr != "" {
		t.Fatalf("--help: exit %d, stderr %q", code, stderr)
	}
	for _, w := range want {
		if !strings.Contains(help, w) {
			t.Errorf("--help lacks %q", w)
		}
	}
	if !strings.Contains(help, "Version: ") {
		t.Errorf("--help has no version line:\n%s", help)
	}
	for _, line := range strings.Split(help, "\n") {
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Errorf("--help has a line of %d columns, over 80: %q", n, line)
		}
	}
}
