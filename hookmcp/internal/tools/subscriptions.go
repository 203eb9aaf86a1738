package tools

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/shared/redact"
)

// Subscriptions to the requests resource: a subscribed session is sent
// notifications/resources/updated for the token's URI when a request is
// captured, on the service's push, or by a poll every subscriptionPoll
// while the push is not live. A subscription ends on unsubscribe or when
// its session ends.

// resourceSub is one session's subscription to one URI.
type resourceSub struct {
	session *mcp.ServerSession
	uri     string
}

func (l *live) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	token, err := l.requestsToken(uri)
	if err != nil {
		return err
	}
	// Shown in errors: a pasted capture URL may hold the configured key.
	shown := redact.New(l.h.cfg.APIKey).String(uri)
	if req.Extra != nil && req.Extra.Header != nil && req.Session != nil && req.Session.ID() == "" {
		// resources/subscribe over stateless HTTP: its session ends with
		// this request, and no stream is left to notify. (A
		// subscriptions/listen stream subscribes from within its own
		// request, which carries no HTTP header here.)
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"subscribing to %s: this server's HTTP transport is stateless, so a resources/subscribe has no session left to notify; "+
				"open a subscriptions/listen stream (MCP 2026-07-28) instead, connect over stdio, or read the resource again", truncate(shown, 200))}
	}
	key := resourceSub{req.Session, uri}
	l.mu.Lock()
	_, held := l.subs[key]
	full := len(l.subs) >= l.maxSubs
	l.mu.Unlock()
	switch {
	case held:
		return nil
	case full:
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"subscribing to %s: this server holds its most resource subscriptions (%d); unsubscribe from one first", truncate(shown, 200), l.maxSubs)}
	}
	w, err := l.acquire(token, l.h.cfg.APIKey, true)
	if err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("subscribing to %s: %v; unsubscribe from another token first", truncate(shown, 200), err)}
	}
	// Read before the subscribe returns: a capture the moment after it
	// must notify.
	w.baseline()
	l.mu.Lock()
	if _, raced := l.subs[key]; raced {
		l.mu.Unlock()
		w.release(true)
		return nil
	}
	if len(l.subs) >= l.maxSubs {
		// Checked again under the lock: subscribes at once all passed the
		// first check.
		l.mu.Unlock()
		w.release(true)
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"subscribing to %s: this server holds its most resource subscriptions (%d); unsubscribe from one first", truncate(shown, 200), l.maxSubs)}
	}
	l.subs[key] = w
	watchEnd := req.Session != nil && !l.sessions[req.Session]
	if watchEnd {
		l.sessions[req.Session] = true
	}
	l.mu.Unlock()
	if watchEnd {
		// The SDK forgets a closed session's subscriptions without
		// telling the server: this goroutine, one per subscribed
		// session, does.
		go func() {
			req.Session.Wait()
			l.endSession(req.Session)
		}()
	}
	l.h.logger.Debug("resource subscribed", "uri", shown)
	return nil
}

func (l *live) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	key := resourceSub{req.Session, req.Params.URI}
	l.mu.Lock()
	w := l.subs[key]
	delete(l.subs, key)
	l.mu.Unlock()
	if w != nil {
		w.release(true)
	}
	return nil
}

// endSession drops the subscriptions of a session that ended.
func (l *live) endSession(session *mcp.ServerSession) {
	var dropped []*watched
	l.mu.Lock()
	delete(l.sessions, session)
	for key, w := range l.subs {
		if key.session == session {
			delete(l.subs, key)
			dropped = append(dropped, w)
		}
	}
	l.mu.Unlock()
	for _, w := range dropped {
		w.release(true)
	}
}

// requestsToken is the token of a requests resource URI, read as the
// resource reads it (readRequests): the token as a user pastes it, its
// UUID or DNS name, or percent-encoded its email address or capture URL.
// Notifications go to the URI as subscribed.
func (l *live) requestsToken(uri string) (hooksvc.TokenID, error) {
	shown := redact.New(l.h.cfg.APIKey).String(uri)
	pasted, ok := strings.CutPrefix(uri, "hooksvc://token/")
	if ok {
		pasted, ok = strings.CutSuffix(pasted, "/requests")
	}
	if !ok {
		return "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"%s: only %s can be subscribed to, with a token UUID such as %s", truncate(shown, 200), requestsURITemplate, hooksvc.ExampleUUID)}
	}
	if unescaped, err := url.PathUnescape(pasted); err == nil {
		pasted = unescaped
	}
	id, err := l.h.client.ParseToken("token_id", pasted)
	if err != nil {
		return "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("subscribing to %s: %v", truncate(shown, 200), err)}
	}
	return id, nil
}
