package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Scopes map to what a token may do by the tools' own annotations: a tool
// annotated read-only (readOnlyHint) needs the read scopes, any other (it
// creates, updates, deletes, sends, replays, or runs a mutation) needs the
// write scopes. A call a token may not make is answered as a tool error
// naming the scope, not refused by HTTP, so that the model and the person
// see which scope to ask for while the other tools go on working.

type readOnlyCallKey struct{}

// WritesAllowed reports whether the call whose context is ctx may change
// something. It is false only over HTTP for an OAuth token without the
// write scopes, in a tool that decides per call (graphql_query: a query
// reads, a mutation writes) and that the server named as such; such a tool
// refuses a write naming WriteScope(ctx).
func WritesAllowed(ctx context.Context) bool {
	_, readOnly := ctx.Value(readOnlyCallKey{}).(string)
	return !readOnly
}

// WriteScope names the OAuth scopes (space-separated) a call whose
// WritesAllowed is false lacks for writing; "" when it lacks none.
func WriteScope(ctx context.Context) string {
	scopes, _ := ctx.Value(readOnlyCallKey{}).(string)
	return scopes
}

// scopePolicy refuses calls to writing tools to tokens without the write
// scopes.
type scopePolicy struct {
	writeScopes []string
	// selfChecked are tools that are not annotated read-only but refuse
	// writes themselves when WritesAllowed says so.
	selfChecked map[string]bool
	tools       *toolIndex
}

func (p *scopePolicy) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || call.Params == nil || call.Extra == nil || call.Extra.TokenInfo == nil {
			// Not a call, or not an OAuth token's (the static
			// --http-token is its operator's and may do anything).
			return next(ctx, method, req)
		}
		if write, _ := call.Extra.TokenInfo.Extra[writeGrantKey].(bool); write {
			return next(ctx, method, req)
		}
		ctx = context.WithValue(ctx, readOnlyCallKey{}, strings.Join(p.writeScopes, " "))
		name := call.Params.Name
		if p.selfChecked[name] {
			return next(ctx, method, req)
		}
		readOnly, known, err := p.tools.readOnly(ctx, name)
		switch {
		case err != nil:
			return scopeRefusal(fmt.Sprintf("Tool %s was not called: the server could not tell whether it only reads (%s), and this token lacks the scopes %s that writing needs.",
				name, shortened(err.Error()), strings.Join(p.writeScopes, " "))), nil
		case !known || readOnly:
			// An unknown tool is the SDK's to refuse, as it would any.
			return next(ctx, method, req)
		}
		return scopeRefusal(fmt.Sprintf("Tool %s was not called: it changes data, and this access token lacks the OAuth scope %s it needs "+
			"(the token has read access only). Sign in again asking for the scope %s, or use the tools that only read.",
			name, strings.Join(p.writeScopes, " "), strings.Join(p.writeScopes, " "))), nil
	}
}

func scopeRefusal(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// toolIndex knows which of the server's tools are annotated read-only. It
// asks the server itself, as a client over an in-memory session, so that
// it sees every tool as clients do (a saved operation added on a reload
// too). It asks afresh for every call it judges: a tool replaced in place
// keeps its name (a saved operation reloaded from a query into a
// mutation), and the server's notice that its list changed comes 10 ms or
// more later, too late for a call made meanwhile. A list read in memory
// costs far less than the call it guards.
type toolIndex struct {
	server *mcp.Server
	// base is the context of the in-memory session: the serving's.
	base context.Context

	mu      sync.Mutex
	session *mcp.ClientSession
	closed  bool
}

// newToolIndex asks server; its session ends when ctx does (the start of
// shutdown: a session left open would be a call in flight to wait for).
func newToolIndex(ctx context.Context, server *mcp.Server) *toolIndex {
	t := &toolIndex{server: server, base: ctx}
	context.AfterFunc(ctx, t.close)
	return t
}

// readOnly reports whether the tool name is annotated read-only and
// whether the server has it at all, as the server lists it now.
func (t *toolIndex) readOnly(ctx context.Context, name string) (readOnly, known bool, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false, false, errors.New("the server is shutting down")
	}
	if t.session == nil {
		clientEnd, serverEnd := mcp.NewInMemoryTransports()
		if _, err := t.server.Connect(t.base, serverEnd, nil); err != nil {
			return false, false, fmt.Errorf("cannot list the tools: %w", err)
		}
		client := mcp.NewClient(&mcp.Implementation{Name: "scope-check", Version: "1"}, nil)
		session, err := client.Connect(t.base, clientEnd, nil)
		if err != nil {
			return false, false, fmt.Errorf("cannot list the tools: %w", err)
		}
		t.session = session
	}
	for tool, err := range t.session.Tools(ctx, nil) {
		if err != nil {
			// Connect afresh next time, should the session be broken.
			_ = t.session.Close()
			t.session = nil
			return false, false, fmt.Errorf("cannot list the tools: %w", err)
		}
		if tool.Name == name {
			known, readOnly = true, tool.Annotations != nil && tool.Annotations.ReadOnlyHint
		}
	}
	return readOnly, known, nil
}

// close ends the in-memory session, if one was opened, for good.
func (t *toolIndex) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	if t.session != nil {
		_ = t.session.Close()
		t.session = nil
	}
}
