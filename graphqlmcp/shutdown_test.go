package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// exitBound is how soon after its input ends or a SIGTERM the server must
// have answered every call and exited: a grace of 2 s for calls to finish,
// and room on a busy machine. The call in flight would wait 30 s here.
const exitBound = 8 * time.Second

// TestShutdownAnswersHangingCall: a graphql_query whose endpoint hangs (the
// schema's introspection never answers) when the input ends, or when a
// SIGTERM comes, gets a tool error saying the server is shutting down, and
// the process exits cleanly and promptly.
func TestShutdownAnswersHangingCall(t *testing.T) {
	for _, tt := range []struct {
		name, reason string
		stop         func(*stdioServer) error
	}{
		{"end of input", "(its input ended)", func(s *stdioServer) error { return s.stdin.Close() }},
		{"SIGTERM", "(the server was stopped", func(s *stdioServer) error { return s.cmd.Process.Signal(syscall.SIGTERM) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			arrived, ended := make(chan struct{}, 10), make(chan struct{})
			endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				arrived <- struct{}{}
				select {
				case <-r.Context().Done():
				case <-ended:
				}
			}))
			defer endpoint.Close()
			defer close(ended)

			s := startStdio(t, exec.Command(binary, "--endpoint", endpoint.URL))
			s.send(t, printfSession[0])
			s.answer(t, 1)
			s.send(t, printfSession[1])
			s.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"graphql_query","arguments":{"query":"{ hero { name } }"}}}`)
			select {
			case <-arrived: // the call waits for the endpoint
			case <-time.After(30 * time.Second):
				t.Fatal("the call never reached the endpoint")
			}
			if err := tt.stop(s); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			text, isErr := toolError(s.answer(t, 2))
			if !isErr || !strings.HasPrefix(text, "server shutting down "+tt.reason) || !strings.Contains(text, "graphql_query") {
				t.Errorf("the call in flight got %q (tool error %v), want a tool error saying the server is shutting down %s", text, isErr, tt.reason)
			}
			if err := s.exit(t, exitBound); err != nil {
				t.Errorf("exit: %v", err)
			}
			t.Logf("answered and exited %s after the %s", time.Since(start).Round(time.Millisecond), tt.name)
		})
	}
}
