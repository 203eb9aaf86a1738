package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The four lines of a client that pipes a session in and closes its end.
var printfSession = []string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"printf","version":"1"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
}

// TestEndOfInputAnswersAll runs `printf '<initialize>\n<initialized>\n<ping>\n<tools/list>\n' | graphqlmcp`
// many times: every run must print the three answers and exit cleanly.
// Before the server waited for its answers at the end of input, most runs
// printed nothing.
func TestEndOfInputAnswersAll(t *testing.T) {
	script := "printf '" + strings.Join(printfSession, `\n`) + `\n' | "$0"`
	for run := range 40 {
		cmd := exec.Command("sh", "-c", script, binary)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		got := map[float64]bool{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var msg struct {
				ID     float64         `json:"id"`
				Result json.RawMessage `json:"result"`
			}
			if json.Unmarshal([]byte(line), &msg) == nil && msg.Result != nil {
				got[msg.ID] = true
			}
		}
		if err != nil || !got[1] || !got[2] || !got[3] {
			t.Fatalf("run %d: exit %v, answered %v of ids 1, 2, 3; stdout:\n%.500s\nstderr:\n%s", run, err, got, out, stderr.String())
		}
	}
}

// stdioServer is a built server spoken to in raw lines over pipes.
type stdioServer struct {
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	messages chan map[string]any // every line it writes, until stdout ends
	exited   chan error
}

func startStdio(t *testing.T, cmd *exec.Cmd) *stdioServer {
	t.Helper()
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
	s := &stdioServer{cmd: cmd, stdin: stdin, messages: make(chan map[string]any, 100), exited: make(chan error, 1)}
	go func() {
		lines := bufio.NewScanner(stdout)
		lines.Buffer(nil, 4<<20)
		for lines.Scan() {
			var msg map[string]any
			if err := json.Unmarshal(lines.Bytes(), &msg); err != nil {
				msg = map[string]any{"not JSON": lines.Text()}
			}
			s.messages <- msg
		}
		close(s.messages)
		s.exited <- cmd.Wait()
	}()
	t.Cleanup(func() { cmd.Process.Kill() })
	return s
}

func (s *stdioServer) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		t.Fatalf("the server stopped reading: %v", err)
	}
}

// next returns the next message the server writes; a safety net bounds the
// wait.
func (s *stdioServer) next(t *testing.T) map[string]any {
	t.Helper()
	select {
	case msg, ok := <-s.messages:
		if !ok {
			t.Fatal("the server closed its output")
		}
		return msg
	case <-time.After(30 * time.Second):
		t.Fatal("no message from the server within 30 s")
		return nil
	}
}

// answer returns the answer to the request id, passing over notifications.
func (s *stdioServer) answer(t *testing.T, id float64) map[string]any {
	t.Helper()
	for {
		if msg := s.next(t); msg["id"] == id {
			return msg
		}
	}
}

// exit waits for the process to end, within bound, and returns how.
func (s *stdioServer) exit(t *testing.T, bound time.Duration) error {
	t.Helper()
	deadline := time.After(bound)
	messages := s.messages
	for {
		select {
		case _, open := <-messages:
			if !open {
				messages = nil
			}
		case err := <-s.exited:
			return err
		case <-deadline:
			t.Fatalf("the server was still running %s later", bound)
		}
	}
}

// toolError is the text of a tools/call answer that is a tool error, or ""
// with ok false.
func toolError(msg map[string]any) (text string, ok bool) {
	result, _ := msg["result"].(map[string]any)
	content, _ := result["content"].([]any)
	if result["isError"] != true || len(content) == 0 {
		return "", false
	}
	first, _ := content[0].(map[string]any)
	text, _ = first["text"].(string)
	return text, true
}
