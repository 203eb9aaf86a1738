package app

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Lines a client sends to start a session.
const (
	initializeLine  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

func callLine(id int, tool string, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
}

// answers reads every line of out until it ends, keyed by id.
func answers(t *testing.T, out io.Reader) map[float64]map[string]any {
	t.Helper()
	got := map[float64]map[string]any{}
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		var msg map[string]any
		if err := json.Unmarshal(lines.Bytes(), &msg); err != nil {
			t.Errorf("stdout holds a line that is not JSON: %q", lines.Text())
			continue
		}
		id, _ := msg["id"].(float64)
		got[id] = msg
	}
	return got
}

// lineToolText is the text of a tools/call answer and whether it is an error.
func lineToolText(msg map[string]any) (string, bool) {
	result, _ := msg["result"].(map[string]any)
	content, _ := result["content"].([]any)
	if len(content) == 0 {
		return fmt.Sprint(msg), false
	}
	first, _ := content[0].(map[string]any)
	text, _ := first["text"].(string)
	return text, result["isError"] == true
}

// TestStdioEndOfInputAnswersAll: a client that writes its requests and
// closes the server's input at once (printf ... | server) gets every answer,
// every time. The SDK stops writing at the end of input, so before the
// transport waited for the answers most runs printed nothing.
func TestStdioEndOfInputAnswersAll(t *testing.T) {
	input := strings.Join([]string{initializeLine, initializedLine,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, callLine(4, "ping", "{}")}, "\n") + "\n"
	for run := range 200 {
		var stdout strings.Builder
		code := Run(context.Background(), testSpec(), []string{"testmcp", "--log-level", "error"},
			Streams{Stdin: strings.NewReader(input), Stdout: &stdout, Stderr: io.Discard})
		got := answers(t, strings.NewReader(stdout.String()))
		if code != exitOK || len(got) != 4 || got[1]["result"] == nil || got[2]["result"] == nil || got[3]["result"] == nil || got[4]["result"] == nil {
			t.Fatalf("run %d: exit %d, %d answers, want 4:\n%s", run, code, len(got), stdout.String())
		}
	}
}

// TestStdioEndOfInputGrace: at the end of input, a call that finishes
// within the grace gets its result; calls still running then (one that
// would stop when cancelled, one that ignores cancellation) get a tool
// error saying the server is shutting down; the session ends as the grace
// does.
func TestStdioEndOfInputGrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		input := strings.Join([]string{initializeLine, initializedLine,
			callLine(2, "sleep", `{"Seconds":1.5}`), callLine(3, "hang", "{}"), callLine(4, "stuck", "{}"),
			`{"jsonrpc":"2.0","id":5,"method":"ping"}`}, "\n") + "\n"
		var stdout strings.Builder
		start := time.Now()
		code := Run(context.Background(), testSpec(), []string{"testmcp", "--log-level", "error"},
			Streams{Stdin: strings.NewReader(input), Stdout: &stdout, Stderr: io.Discard})
		if took := time.Since(start); code != exitOK || took != shutdownGrace {
			t.Errorf("exit %d after %s, want %d after the grace, %s", code, took, exitOK, shutdownGrace)
		}
		got := answers(t, strings.NewReader(stdout.String()))
		if text, isErr := lineToolText(got[2]); text != "slept" || isErr {
			t.Errorf("the call that ends within the grace: %q (error %v), want its result", text, isErr)
		}
		for _, id := range []float64{3, 4} {
			text, isErr := lineToolText(got[id])
			if !isErr || !strings.HasPrefix(text, "server shutting down (its input ended): ") {
				t.Errorf("call %v still running after the grace: %q (error %v), want a tool error saying the server is shutting down", id, text, isErr)
			}
		}
		if got[5]["result"] == nil {
			t.Errorf("ping: %v", got[5])
		}
		time.Sleep(time.Hour) // the stuck handler, answered for, ends in the bubble
	})
}

// TestStdioSignalAnswersInFlight: a signal (ctx done) while calls run stops
// the reading of input; a call that finishes within the grace gets its
// result, one still running then a tool error saying why the server is
// shutting down, and Run returns as the grace ends.
func TestStdioSignalAnswersInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stdin, toServer := io.Pipe()
		fromServer, stdout := io.Pipe()
		defer toServer.Close()
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan int, 1)
		go func() {
			done <- Run(ctx, testSpec(), []string{"testmcp", "--log-level", "error"}, Streams{Stdin: stdin, Stdout: stdout, Stderr: io.Discard})
			stdout.Close()
		}()
		read := make(chan map[float64]map[string]any, 1)
		go func() { read <- answers(t, fromServer) }()
		for _, line := range []string{initializeLine, initializedLine, callLine(2, "sleep", `{"Seconds":1}`), callLine(3, "hang", "{}")} {
			io.WriteString(toServer, line+"\n")
		}
		synctest.Wait() // both calls are running
		start := time.Now()
		stop()
		if code := <-done; code != exitOK || time.Since(start) != shutdownGrace {
			t.Errorf("exit %d after %s, want %d after the grace, %s", code, time.Since(start), exitOK, shutdownGrace)
		}
		got := <-read
		if text, isErr := lineToolText(got[2]); text != "slept" || isErr {
			t.Errorf("the call that ends within the grace: %q (error %v), want its result", text, isErr)
		}
		if text, isErr := lineToolText(got[3]); !isErr || !strings.HasPrefix(text, "server shutting down (the server was asked to stop): hang was still running") {
			t.Errorf("the call still running: %q (error %v), want a tool error saying the server is shutting down", text, isErr)
		}
	})
}

// TestStdioEndWithoutReader: a client that closes the server's input and
// never reads its answers does not keep the process: Run returns once the
// answers have had their time.
func TestStdioEndWithoutReader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fromServer, stdout := io.Pipe()
		input := strings.Join([]string{initializeLine, initializedLine, callLine(2, "ping", "{}")}, "\n") + "\n"
		start := time.Now()
		code := Run(context.Background(), testSpec(), []string{"testmcp", "--log-level", "error"},
			Streams{Stdin: strings.NewReader(input), Stdout: stdout, Stderr: io.Discard})
		if took, bound := time.Since(start), shutdownGrace+2*shutdownAnswerWait; code != exitOK || took > bound {
			t.Errorf("exit %d after %s, want %d within %s", code, took, exitOK, bound)
		}
		// Let the writes blocked on the pipe finish, so the bubble ends.
		go io.Copy(io.Discard, fromServer)
		synctest.Wait()
		stdout.Close()
	})
}

// TestStopReason: the reason a signal gives reaches the answers.
func TestStopReason(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(fmt.Errorf("terminated signal received"))
	if got := stopReason(ctx); got != "the server was stopped: terminated signal received" {
		t.Errorf("stopReason = %q", got)
	}
	ctx, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if got := stopReason(ctx); got != "the server was asked to stop" {
		t.Errorf("stopReason = %q", got)
	}
}

// TestShutdownMiddleware is the contract a transport relies on (stdio
// today; Streamable HTTP can add the same middleware and begin it on a
// signal): before begin and within the grace a call gets its handler's own
// answer; a call still running as the grace ends, or one that starts later,
// is answered at once (a tool error for tools/call, a JSON-RPC error
// otherwise) and its handler's context is cancelled with errShuttingDown;
// notifications pass through.
func TestShutdownMiddleware(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		end := newShutdown(shutdownGrace)
		causes := make(chan error, 10)
		handler := end.middleware(func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "ping":
				return &mcp.ListToolsResult{}, nil
			case "notifications/initialized":
				return nil, nil
			}
			<-ctx.Done()
			causes <- context.Cause(ctx)
			return nil, ctx.Err()
		})
		call := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "hang"}}
		read := &mcp.ReadResourceRequest{Params: &mcp.ReadResourceParams{URI: "graphql://schema"}}

		if res, err := handler(context.Background(), "ping", nil); err != nil || res == nil {
			t.Errorf("before begin: %v %v", res, err)
		}
		type outcome struct {
			res mcp.Result
			err error
		}
		running := make(chan outcome, 2)
		go func() { res, err := handler(context.Background(), "tools/call", call); running <- outcome{res, err} }()
		go func() {
			res, err := handler(context.Background(), "resources/read", read)
			running <- outcome{res, err}
		}()
		synctest.Wait()
		start := time.Now()
		end.begin("its input ended")
		if res, err := handler(context.Background(), "ping", nil); err != nil || res == nil {
			t.Errorf("within the grace: %v %v", res, err)
		}
		for range 2 {
			o := <-running
			if took := time.Since(start); took != shutdownGrace {
				t.Errorf("answered %s after begin, want %s", took, shutdownGrace)
			}
			switch res := o.res.(type) {
			case *mcp.CallToolResult:
				if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || o.err != nil ||
					!strings.HasPrefix(text, "server shutting down (its input ended): hang was still running after the 2s grace") {
					t.Errorf("tools/call: %q, error %v", text, o.err)
				}
			default:
				var rpcErr *jsonrpc.Error
				if !errors.As(o.err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInternalError ||
					!strings.HasPrefix(rpcErr.Message, "server shutting down (its input ended): reading graphql://schema was still running") {
					t.Errorf("resources/read: %v %v", o.res, o.err)
				}
			}
		}
		for range 2 {
			if cause := <-causes; cause != errShuttingDown {
				t.Errorf("a handler's context ended with %v, want %v", cause, errShuttingDown)
			}
		}
		later := time.Now()
		if res, err := handler(context.Background(), "tools/call", call); err != nil || !res.(*mcp.CallToolResult).IsError || time.Since(later) != 0 {
			t.Errorf("a call after the grace: %v %v, after %s; want a tool error at once", res, err, time.Since(later))
		}
		<-causes
		if res, err := handler(context.Background(), "notifications/initialized", nil); err != nil || res != nil {
			t.Errorf("a notification: %v %v", res, err)
		}
	})
}
