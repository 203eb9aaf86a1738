package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

// httpServer is the built binary serving Streamable HTTP against the fake,
// with its log at hand.
type httpServer struct {
	cmd      *exec.Cmd
	log      *mcptest.SyncBuffer
	endpoint string
}

func startHTTPServer(t *testing.T, args ...string) *httpServer {
	t.Helper()
	fake := httptest.NewServer(fakehooksvc.New(fakehooksvc.Options{}))
	t.Cleanup(fake.Close)
	s := &httpServer{log: &mcptest.SyncBuffer{}}
	s.cmd = exec.Command(binary, append([]string{"--transport", "http", "--listen", "127.0.0.1:0", "--api-url", fake.URL}, args...)...)
	s.cmd.Stderr = s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.cmd.Process.Kill(); s.cmd.Wait() })
	s.await(t, "serving MCP over Streamable HTTP")
	s.endpoint = regexp.MustCompile(`url=(http://\S+)`).FindStringSubmatch(s.log.String())[1]
	return s
}

// await waits for text in the server's log; the deadline is a safety net,
// far under any timeout the test is about.
func (s *httpServer) await(t *testing.T, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := s.log.Await(ctx, text); err != nil {
		t.Fatalf("%v; the log:\n%s", err, s.log.String())
	}
}

// startWait connects, creates a token and starts a 300-second
// wait_for_request asking for progress; it returns once the wait watches
// (its first progress notification) and the call's outcome arrives on the
// returned channel.
func startWait(t *testing.T, s *httpServer, ctx context.Context) <-chan *mcp.CallToolResult {
	t.Helper()
	watching := make(chan struct{}, 1)
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			select {
			case watching <- struct{}{}:
			default:
			}
		},
	})
	session, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	created := mcptest.Structured(t, mcptest.Call(t, context.Background(), session, "create_token", map[string]any{}))
	id := created["token"].(map[string]any)["uuid"].(string)
	outcome := make(chan *mcp.CallToolResult, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "wait_for_request", Arguments: map[string]any{"token_id": id, "timeout_seconds": 300}}
		params.SetProgressToken("wait")
		res, err := session.CallTool(ctx, params)
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "client error: " + err.Error()}}}
		}
		outcome <- res
	}()
	select {
	case <-watching:
	case <-time.After(15 * time.Second):
		t.Fatalf("wait_for_request sent no progress; the log:\n%s", s.log.String())
	}
	return outcome
}

// TestHTTPCancelStopsWait: a client that cancels wait_for_request over
// Streamable HTTP (the go-sdk client closes the call's connection and sends
// notifications/cancelled) stops the server's wait at once, not after its
// 300 s; the server logs the stop.
func TestHTTPCancelStopsWait(t *testing.T) {
	s := startHTTPServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	outcome := startWait(t, s, ctx)
	cancel()
	s.await(t, "wait_for_request stopped: the call was cancelled")
	if res := <-outcome; !strings.Contains(mcptest.Text(res), "context canceled") {
		t.Errorf("the cancelled call: %s", mcptest.Text(res))
	}
	mcptest.Stop(t, s.cmd)
}

// TestHTTPSigtermAnswersWait: SIGTERM during a long wait_for_request over
// HTTP answers it with a "server shutting down" tool error (not an empty
// reply) after the short grace, and the process exits cleanly and within
// a few seconds even while another client holds a call's body back (it
// sent part of it and stopped): that call is answered too, with a
// "server shutting down" error carrying its id.
func TestHTTPSigtermAnswersWait(t *testing.T) {
	s := startHTTPServer(t)
	// The held-back call goes first: the wait's round trips give the
	// server time to be reading its body when the signal comes.
	addr := strings.TrimSuffix(strings.TrimPrefix(s.endpoint, "http://"), "/mcp")
	held, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	fmt.Fprintf(held, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"Mcp-Protocol-Version: 2025-06-18\r\nContent-Length: 1000\r\n\r\n"+`{"jsonrpc":"2.0","id":"held","method":"tools/call","params":{"name":"list_tokens",`, addr)
	outcome := startWait(t, s, context.Background())
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	res := <-outcome
	if !res.IsError || !strings.Contains(mcptest.Text(res), "server shutting down") || !strings.Contains(mcptest.Text(res), "wait_for_request") {
		t.Errorf("the call in flight at SIGTERM got: %s", mcptest.Text(res))
	}
	held.SetReadDeadline(time.Now().Add(15 * time.Second)) // a safety net
	if resp, err := http.ReadResponse(bufio.NewReader(held), nil); err != nil {
		t.Errorf("the held-back call got no answer: %v", err)
	} else if body, _ := io.ReadAll(resp.Body); !strings.Contains(string(body), `"id":"held"`) || !strings.Contains(string(body), "server shutting down") {
		t.Errorf("the held-back call got HTTP %d: %s", resp.StatusCode, body)
	}
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit: %v; the log:\n%s", err, s.log.String())
		}
	// A safety net, under the 10 s an http.Server's shutdown may wait.
	case <-time.After(8 * time.Second):
		t.Errorf("the process did not exit after SIGTERM; the log:\n%s", s.log.String())
	}
}

// TestListenVariableAloneIsStdio: HOOKSVC_LISTEN alone in the environment
// (a stdio client that inherits it from a shell set up for an HTTP server)
// leaves hookmcp on stdio: a session piped in is answered there.
func TestListenVariableAloneIsStdio(t *testing.T) {
	// A safety net: a server that listens instead never ends.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary)
	cmd.Env = append(os.Environ(), "HOOKSVC_LISTEN=127.0.0.1:0")
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), `"id":1`) || !strings.Contains(string(out), `{"jsonrpc":"2.0","id":2,"result":{}}`) {
		t.Errorf("printf <session> | HOOKSVC_LISTEN=127.0.0.1:0 hookmcp: %v; stdout %q; stderr %q", err, out, stderr.String())
	}
}
