package mcptest

import (
	"context"
	"maps"
	"regexp"
	"slices"
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

// maxStartupErrorBytes is the most a startup error may take, whatever
// the values given.
const maxStartupErrorBytes = 2_048

// CheckStartupErrorsBounded runs a fresh spec() in-process with each flag
// its --help lists (so a flag added later is tried too) given huge values:
// 1.1 MB of letters, a URL whose host is 1.1 MB, and 1.1 MB of digits. What
// it prints on stderr, error or log, must be at most 2 KB: an error quotes
// a prefix of a value at most, never all of it.
func CheckStartupErrorsBounded(t *testing.T, spec func() app.Spec) {
	t.Helper()
	_, help, _ := runInProcess(spec(), "--help")
	flags := map[string]bool{}
	for _, name := range regexp.MustCompile(`--[a-zA-Z][a-zA-Z-]+`).FindAllString(help, -1) {
		flags[name] = true
	}
	if len(flags) < 5 {
		t.Fatalf("--help lists %d flags: %s", len(flags), help)
	}
	values := map[string]string{
		"1.1 MB of letters": strings.Repeat("x", 1_100_000),
		"a 1.1 MB host":     "http://" + strings.Repeat("a", 1_100_000) + "/graphql",
		"1.1 MB of digits":  strings.Repeat("9", 1_100_000),
	}
	for _, flag := range slices.Sorted(maps.Keys(flags)) {
		if flag == "--help" || flag == "--version" {
			continue
		}
		for label, value := range values {
			code, _, stderr := runInProcess(spec(), flag+"="+value)
			if len(stderr) > maxStartupErrorBytes {
				t.Errorf("%s given %s: exit %d and %d bytes on stderr, over %d: %.300q…", flag, label, code, len(stderr), maxStartupErrorBytes, stderr)
			}
		}
	}
	code, _, stderr := runInProcess(spec(), strings.Repeat("y", 1_100_000))
	if code == 0 || len(stderr) > maxStartupErrorBytes {
		t.Errorf("a 1.1 MB argument: exit %d and %d bytes on stderr: %.300q…", code, len(stderr), stderr)
	}
	code, _, stderr = runInProcess(spec(), "--"+strings.Repeat("z", 1_100_000))
	if code == 0 || len(stderr) > maxStartupErrorBytes {
		t.Errorf("a 1.1 MB flag name: exit %d and %d bytes on stderr: %.300q…", code, len(stderr), stderr)
	}
}
