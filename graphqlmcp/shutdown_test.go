package main

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpforge/servers/shared/mcptest"
)

// TestShutdownAnswersHangingCall: a graphql_query whose endpoint hangs (the
// schema's introspection never answers) when the input ends, or when a
// SIGTERM comes, gets a tool error saying the server is shutting down, and
// the process exits cleanly and promptly.
func TestShutdownAnswersHangingCall(t *testing.T) {
	for _, tt := range mcptest.Endings() {
		t.Run(tt.Name, func(t *testing.T) {
			url, arrived := hangingEndpoint(t)
			s := startHanging(t, exec.Command(binary, "--endpoint", url), arrived)
			if err := tt.Do(s); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			text, isErr := mcptest.ToolError(s.Answer(t, 2))
			if !isErr || !strings.HasPrefix(text, "server shutting down "+tt.Reason) || !strings.Contains(text, "graphql_query") {
				t.Errorf("the call in flight got %q (tool error %v), want a tool error saying the server is shutting down %s", text, isErr, tt.Reason)
			}
			if err := s.Exit(t, mcptest.ExitBound); err != nil {
				t.Errorf("exit: %v", err)
			}
			t.Logf("answered and exited %s after the %s", time.Since(start).Round(time.Millisecond), tt.Name)
		})
	}
}

// TestSecondSignalExitsAtOnce: a second SIGTERM during the graceful end
// ends the process at once, by the signal, as an impatient Ctrl-C expects.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	url, arrived := hangingEndpoint(t)
	cmd := exec.Command(binary, "--endpoint", url)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := startHanging(t, cmd, arrived)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The server logs this once it has heard of the first signal, after
	// the default handling of the next is restored.
	lines := bufio.NewScanner(stderr)
	for lines.Scan() && !strings.Contains(lines.Text(), "stopping: answering the calls in flight first") {
	}
	go io.Copy(io.Discard, stderr)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var exit *exec.ExitError
	if err := s.Exit(t, mcptest.ExitBound); !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Errorf("exit after a second SIGTERM: %v, want death by that signal", err)
	}
}

// hangingEndpoint serves a GraphQL endpoint that never answers, until the
// test ends; each request is sent on arrived.
func hangingEndpoint(t *testing.T) (url string, arrived <-chan struct{}) {
	t.Helper()
	ended, requests := make(chan struct{}), make(chan struct{}, 10)
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		requests <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-ended:
		}
	}))
	t.Cleanup(endpoint.Close)
	t.Cleanup(func() { close(ended) })
	return endpoint.URL, requests
}

// startHanging starts cmd, a graphqlmcp whose endpoint hangs, and returns
// once a graphql_query (id 2) waits for the endpoint's schema.
func startHanging(t *testing.T, cmd *exec.Cmd, arrived <-chan struct{}) *mcptest.RawStdio {
	t.Helper()
	s := mcptest.StartRawStdio(t, cmd)
	s.Initialize(t)
	s.Send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"graphql_query","arguments":{"query":"{ hero { name } }"}}}`)
	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("the call never reached the endpoint")
	}
	return s
}
