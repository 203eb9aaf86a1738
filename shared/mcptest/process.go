package mcptest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// StartHTTP starts cmd, a server run with --transport http, and returns the
// endpoint it logs once it listens (url=http://.../mcp). The process is
// killed when the test ends unless Stop was called.
func StartHTTP(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	endpoint := scanFor(stderr, regexp.MustCompile(`url=(http://\S+)`))
	if endpoint == "" {
		t.Fatal("the process never logged its URL")
	}
	go io.Copy(io.Discard, stderr)
	return endpoint
}

// scanFor reads lines until one matches pattern and returns its first group.
func scanFor(r io.Reader, pattern *regexp.Regexp) string {
	lines := bufio.NewScanner(r)
	for lines.Scan() {
		if m := pattern.FindStringSubmatch(lines.Text()); m != nil {
			return m[1]
		}
	}
	return ""
}

// Stop sends SIGTERM to a process started by StartHTTP and fails the test
// unless it exits cleanly within 15 s.
func Stop(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Error("the process did not stop after SIGTERM")
	}
}

// TerminalFirstLine starts binary the way a person would, on a terminal
// (script(1) provides one), and returns the first line it prints there. The
// test is skipped where script(1) is missing.
func TerminalFirstLine(t *testing.T, binary string) string {
	t.Helper()
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) is not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "-qec", binary, "/dev/null")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return line
}

// UsageCase is a bad command line: flags, environment, and what the one
// line on stderr must say.
type UsageCase struct {
	Name string
	Args []string
	Env  []string
	Want string
	// Secret, when set, must not appear in anything the process prints.
	Secret string
}

// CheckUsageErrors runs checkUsageError for each case, as subtests.
func CheckUsageErrors(t *testing.T, binary, name string, cases []UsageCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			stderr := checkUsageError(t, binary, name, c.Args, c.Env, c.Want)
			if c.Secret != "" && strings.Contains(stderr, c.Secret) {
				t.Errorf("the secret %q shows in %q", c.Secret, stderr)
			}
		})
	}
}

// checkUsageError runs binary with args and extra environment and checks that
// it exits with code 2, printing nothing on stdout and one line on stderr
// that starts with "<name>: " and contains want. It returns what was printed.
func checkUsageError(t *testing.T, binary, name string, args, env []string, want string) string {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	exit, ok := err.(*exec.ExitError)
	if !ok || exit.ExitCode() != 2 {
		t.Fatalf("exit: %v, want code 2; stderr: %s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], name+": ") || !strings.Contains(lines[0], want) {
		t.Errorf("stderr = %q, want one line containing %q", stderr.String(), want)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout is not empty: %q", stdout.String())
	}
	return stderr.String()
}

// CheckHelpAndVersion checks that --help names every string of want and fits
// an 80-column terminal, and that --version prints the module version and
// the commit: the checkout's HEAD, as BuildBinary stamps it from git.
func CheckHelpAndVersion(t *testing.T, binary, name string, want []string) {
	t.Helper()
	out, err := exec.Command(binary, "--help").CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(string(out), w) {
			t.Errorf("--help lacks %q", w)
		}
	}
	for _, line := range strings.Split(string(out), "\n") {
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Errorf("--help has a line of %d columns, over 80: %q", n, line)
		}
	}
	out, err = exec.Command(binary, "--version").CombinedOutput()
	version := regexp.MustCompile(`^` + regexp.QuoteMeta(name) + ` version \S+ \((commit ([0-9a-f]{12,})(-dirty)?|the commit tagged \S+|no commit recorded: .+)\)\n$`)
	m := version.FindStringSubmatch(string(out))
	if err != nil || m == nil {
		t.Fatalf("--version: %v %q, want the module version and the commit", err, out)
	}
	if head, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil && m[2] != strings.TrimSpace(string(head)) {
		t.Errorf("--version: %q, want the commit %s (HEAD)", out, head)
	}
}

// CheckSurvivesMalformedLines starts binary with args over stdio, sends it
// malformed JSON-RPC lines and a ping after each, and checks that each bad
// line gets a JSON-RPC error (or nothing) and the ping its answer: the
// process keeps serving.
func CheckSurvivesMalformedLines(t *testing.T, binary string, args ...string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("the server did not end cleanly at the end of its input: %v", err)
		}
	}()
	answers := bufio.NewScanner(stdout)
	answers.Buffer(nil, 1<<20)
	next := func() map[string]any {
		if !answers.Scan() {
			t.Fatalf("the server stopped answering: %v", answers.Err())
		}
		var msg map[string]any
		if err := json.Unmarshal(answers.Bytes(), &msg); err != nil {
			t.Fatalf("stdout holds a line that is not JSON: %q", answers.Text())
		}
		return msg
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n")
	next()
	for i, line := range []string{"not json", "{}", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":{},"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`, strings.Repeat("[", 100_000), "\xff\xfe", `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`} {
		io.WriteString(stdin, line+"\n")
		if msg := next(); msg["error"] == nil {
			t.Errorf("line %d (%.40q): answered %v, want a JSON-RPC error", i, line, msg)
		}
		io.WriteString(stdin, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", 100+i))
		if msg := next(); msg["id"] != float64(100+i) || msg["error"] != nil {
			t.Fatalf("after line %d the ping got %v", i, msg)
		}
	}
}

// ClosedPort returns a loopback address nothing listens on: a port a
// listener of this test just released, for a refused connection.
func ClosedPort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
