package app

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// How long a server's end may take. A client that closes the server's input
// or stops it waits for it to exit (the MCP spec has clients wait a while,
// then SIGTERM, then SIGKILL), so the whole end stays within a few seconds.
const (
	// shutdownGrace is how long calls in flight may still finish on their
	// own, with their real results.
	shutdownGrace = 2 * time.Second
	// shutdownAnswerWait is how long, after the grace, the answers may take
	// to be written and the session to end, before the process exits anyway.
	shutdownAnswerWait = time.Second
)

// shutdown is the end of a server: from begin, calls in flight have a
// grace to finish; then every call still running is answered at once with a
// "server shutting down" error (a tool error for tools/call) and its handler's
// context is cancelled, so that no client is left waiting for an answer that
// will never come.
//
// It is transport-neutral: a transport adds middleware to the server, calls
// begin when it stops taking calls (stdio: the end of its input or a
// signal; Streamable HTTP: a signal, before http.Server.Shutdown, which then
// sees every handler return within the grace), and waits on over for the
// point after which nothing more is worth waiting for.
type shutdown struct {
	grace time.Duration

	once    sync.Once
	reason  string        // why, in words; set by begin
	expired chan struct{} // closed grace after begin
	ended   chan struct{} // closed grace + shutdownAnswerWait after begin
}

func newShutdown(grace time.Duration) *shutdown {
	return &shutdown{grace: grace, expired: make(chan struct{}), ended: make(chan struct{})}
}

// begin starts the grace; reason ("its input ended") says why, in the
// answers. Only the first call counts.
func (s *shutdown) begin(reason string) {
	s.once.Do(func() {
		s.reason = reason
		time.AfterFunc(s.grace, func() { close(s.expired) })
		time.AfterFunc(s.grace+shutdownAnswerWait, func() { close(s.ended) })
	})
}

// over is closed when the answers have had their time too: whoever waits
// for the session to end stops waiting then.
func (s *shutdown) over() <-chan struct{} { return s.ended }

// errShuttingDown is the cause a handler's context is cancelled with when
// its call is answered for it.
var errShuttingDown = errors.New("server shutting down")

// middleware runs each call's handler beside the wait for the grace to end,
// so that a handler which does not return in time (a wait_for_request, an
// endpoint that hangs) still gets its call answered. Notifications have no
// answer and pass straight through.
func (s *shutdown) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		type outcome struct {
			result   mcp.Result
			err      error
			panicked any
			stack    []byte
		}
		done := make(chan outcome, 1)
		go func() {
			// A panic belongs to the handler's own goroutine, where the
			// recovery middleware inside this one reports it; should none
			// be there, it is carried back rather than ending the process
			// from a goroutine nobody recovers.
			defer func() {
				if p := recover(); p != nil {
					done <- outcome{panicked: p, stack: debug.Stack()}
				}
			}()
			result, err := next(ctx, method, req)
			done <- outcome{result: result, err: err}
		}()
		finish := func(o outcome) (mcp.Result, error) {
			if o.panicked != nil {
				panic(fmt.Sprintf("%v\n%s", o.panicked, o.stack))
			}
			return o.result, o.err
		}
		select {
		case o := <-done:
			return finish(o)
		case <-s.expired:
		}
		select {
		case o := <-done: // finished as the grace ended: its own result
			return finish(o)
		default:
		}
		cancel(errShuttingDown)
		return s.answer(method, req)
	}
}

// answer is what a call still running when the grace ends gets instead of
// its result.
func (s *shutdown) answer(method string, req mcp.Request) (mcp.Result, error) {
	what := method
	switch params := req.GetParams().(type) {
	case *mcp.CallToolParamsRaw:
		what = params.Name
	case *mcp.ReadResourceParams:
		what = "reading " + params.URI
	}
	message := fmt.Sprintf("server shutting down (%s): %s was still running after the %s grace and was stopped, so its result is lost. "+
		"If it may have changed something, check that before calling it again once the server runs again.", s.reason, what, s.grace)
	if method == "tools/call" {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: message}}}, nil
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: message}
}

// stopReason words why ctx ended, for the answers and the log: on a signal,
// signal.NotifyContext's cause names it.
func stopReason(ctx context.Context) string {
	cause := context.Cause(ctx)
	// Compared, not errors.Is: a signal's cause "is" context.Canceled too.
	if cause == nil || cause == context.Canceled || cause == context.DeadlineExceeded {
		return "the server was asked to stop"
	}
	return "the server was stopped: " + cause.Error()
}
