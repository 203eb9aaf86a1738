package mcptest

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// PrintfSession is the session a client that pipes its input in and closes
// it sends: initialize, initialized, ping and tools/list, one line each
// (ids 1, 2 and 3; the second line is a notification).
func PrintfSession() []string {
	return []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"printf","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
	}
}

// CheckEndOfInputAnswersAll runs `printf '<PrintfSession>' | binary` runs
// times: every run must print the three answers and exit cleanly. Before the
// servers waited for their answers at the end of input, most runs printed
// nothing.
func CheckEndOfInputAnswersAll(t *testing.T, binary string, runs int) {
	t.Helper()
	script := "printf '" + strings.Join(PrintfSession(), `\n`) + `\n' | "$0"`
	for run := range runs {
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

// RawStdio is a built server spoken to in raw lines over pipes, for tests
// of what no SDK client lets a test do: close the input mid-call, signal
// the process, read every line it writes.
type RawStdio struct {
	Cmd      *exec.Cmd
	stdin    io.WriteCloser
	messages chan map[string]any // every line it writes, until stdout ends
	exited   chan error
}

// StartRawStdio starts cmd with its standard input and output as pipes; the
// process is killed when the test ends.
func StartRawStdio(t *testing.T, cmd *exec.Cmd) *RawStdio {
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
	s := &RawStdio{Cmd: cmd, stdin: stdin, messages: make(chan map[string]any, 100), exited: make(chan error, 1)}
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

// Initialize sends initialize and initialized, and waits for the answer.
func (s *RawStdio) Initialize(t *testing.T) {
	t.Helper()
	session := PrintfSession()
	s.Send(t, session[0])
	s.Answer(t, 1)
	s.Send(t, session[1])
}

// Send writes one line.
func (s *RawStdio) Send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		t.Fatalf("the server stopped reading: %v", err)
	}
}

// CloseInput ends the server's input, as a client that exits does.
func (s *RawStdio) CloseInput() error { return s.stdin.Close() }

// Next returns the next message the server writes; a safety net bounds the
// wait.
func (s *RawStdio) Next(t *testing.T) map[string]any {
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

// Answer returns the answer to the request id, passing over notifications.
func (s *RawStdio) Answer(t *testing.T, id float64) map[string]any {
	t.Helper()
	for {
		if msg := s.Next(t); msg["id"] == id {
			return msg
		}
	}
}

// Exit waits for the process to end, within bound, and returns how.
func (s *RawStdio) Exit(t *testing.T, bound time.Duration) error {
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

// ToolError is the text of a tools/call answer that is a tool error, or ""
// with ok false.
func ToolError(msg map[string]any) (text string, ok bool) {
	result, _ := msg["result"].(map[string]any)
	content, _ := result["content"].([]any)
	if result["isError"] != true || len(content) == 0 {
		return "", false
	}
	first, _ := content[0].(map[string]any)
	text, _ = first["text"].(string)
	return text, true
}

// Ending is one way a stdio server is told to end, with the reason its
// "server shutting down" answers give.
type Ending struct {
	Name, Reason string
	Do           func(*RawStdio) error
}

// Endings are the ways a client ends a stdio server: it closes the input,
// or its process manager sends SIGTERM.
func Endings() []Ending {
	return []Ending{
		{"end of input", "(its input ended)", func(s *RawStdio) error { return s.CloseInput() }},
		{"SIGTERM", "(the server was stopped", func(s *RawStdio) error { return s.Cmd.Process.Signal(syscall.SIGTERM) }},
	}
}

// ExitBound is how soon after its input ends or a SIGTERM a server must
// have answered every call and exited: a grace of 2 s for calls to finish,
// and room on a busy machine.
const ExitBound = 8 * time.Second
