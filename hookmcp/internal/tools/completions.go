package tools

import (
	"container/list"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/shared/jsonx"
)

// Bounds of the token-id completions.
const (
	// maxKnownTokens bounds the memory of tokens one session's calls named
	// or created; the least recently used go first.
	maxKnownTokens = 1000
	// maxCompletions is the most values one answer lists, the protocol's
	// own ceiling.
	maxCompletions = 100
	// accountListTTL is how long the account's token list (GET /token) is
	// kept: a client asks for completions as the user types, and each
	// keystroke must not be an API call.
	accountListTTL = 30 * time.Second
	// accountListTimeout bounds that call: a completion that waits longer
	// is no help to someone typing.
	accountListTimeout = 5 * time.Second
)

// tokenCompletions completes the token_id of hooksvc://token/{token_id}/requests
// from, in this order: the default token, the tokens this session's calls
// named or created (most recent first), and, with HOOKSVC_API_KEY, the
// account's tokens. The tokens a session named are its own: over HTTP one
// server answers many clients, and a token's id is what reads its captures,
// so no client is offered another's. (Over the stateless HTTP transport each
// request is a session of its own: only the default and the account's
// tokens are offered there.)
type tokenCompletions struct {
	h *handlers

	mu sync.Mutex
	// sessions holds the tokens each session named, for the
	// maxTokenSessions sessions that named one most recently.
	sessions     map[*mcp.ServerSession]*list.Element // -> its element in sessionOrder
	sessionOrder *list.List                           // of *sessionTokens, most recent first
	// account is the account's token list and when it was read (zero:
	// never); a failed read is kept as an empty list.
	account   []hooksvc.TokenID
	accountAt time.Time
	// reading is held while the list is read, one read at a time.
	reading sync.Mutex
}

// sessionTokens are the tokens one session named, most recent first.
type sessionTokens struct {
	session *mcp.ServerSession
	order   *list.List                        // of hooksvc.TokenID
	byID    map[hooksvc.TokenID]*list.Element // id -> its element in order
}

// maxTokenSessions bounds how many sessions' tokens are kept.
const maxTokenSessions = 100

func (h *handlers) newTokenCompletions() *tokenCompletions {
	return &tokenCompletions{h: h, sessions: map[*mcp.ServerSession]*list.Element{}, sessionOrder: list.New()}
}

// middleware records the token of every successful tool call, and answers
// completion/complete for the requests resource's token_id; any other
// completion goes on to the server's CompletionHandler (noCompletions).
func (c *tokenCompletions) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch r := req.(type) {
		case *mcp.CompleteRequest:
			if p := r.Params; p != nil && p.Ref != nil && p.Ref.Type == "ref/resource" && p.Ref.URI == requestsURITemplate && p.Argument.Name == "token_id" {
				return c.complete(ctx, r.Session, p.Argument.Value), nil
			}
		case *mcp.CallToolRequest:
			res, err := next(ctx, method, req)
			if result, ok := res.(*mcp.CallToolResult); ok && err == nil && !result.IsError && r.Params != nil {
				c.record(r.Session, r.Params.Name, r.Params.Arguments, result)
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// record remembers the token a call named (token_id, as pasted), and the
// one create_token made.
func (c *tokenCompletions) record(session *mcp.ServerSession, tool string, arguments json.RawMessage, result *mcp.CallToolResult) {
	var args struct {
		TokenID string `json:"token_id"`
	}
	if json.Unmarshal(arguments, &args) == nil && args.TokenID != "" {
		if id, err := c.h.client.ParseToken("token_id", args.TokenID); err == nil {
			c.remember(session, id)
		}
	}
	if tool != "create_token" || result.StructuredContent == nil {
		return
	}
	structured, err := jsonx.Marshal(result.StructuredContent)
	if err != nil {
		return
	}
	var created struct {
		Token struct {
			UUID string `json:"uuid"`
		} `json:"token"`
	}
	if json.Unmarshal(structured, &created) == nil && hooksvc.UUIDPattern.MatchString(created.Token.UUID) {
		c.remember(session, hooksvc.TokenID(strings.ToLower(created.Token.UUID)))
	}
}

func (c *tokenCompletions) remember(session *mcp.ServerSession, id hooksvc.TokenID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.sessions[session]
	if ok {
		c.sessionOrder.MoveToFront(el)
	} else {
		el = c.sessionOrder.PushFront(&sessionTokens{session: session, order: list.New(), byID: map[hooksvc.TokenID]*list.Element{}})
		c.sessions[session] = el
		for c.sessionOrder.Len() > maxTokenSessions {
			oldest := c.sessionOrder.Back()
			c.sessionOrder.Remove(oldest)
			delete(c.sessions, oldest.Value.(*sessionTokens).session)
		}
	}
	st := el.Value.(*sessionTokens)
	if tok, ok := st.byID[id]; ok {
		st.order.MoveToFront(tok)
		return
	}
	st.byID[id] = st.order.PushFront(id)
	for st.order.Len() > maxKnownTokens {
		oldest := st.order.Back()
		st.order.Remove(oldest)
		delete(st.byID, oldest.Value.(hooksvc.TokenID))
	}
}

// complete lists the known token ids that start with typed, without case.
// A failure to read the account's list leaves it out: completions are
// offered, never required.
func (c *tokenCompletions) complete(ctx context.Context, session *mcp.ServerSession, typed string) *mcp.CompleteResult {
	prefix := strings.ToLower(strings.TrimSpace(typed))
	var values []string
	total := 0
	listed := map[hooksvc.TokenID]bool{}
	add := func(id hooksvc.TokenID) {
		if listed[id] || !strings.HasPrefix(string(id), prefix) {
			return
		}
		listed[id] = true
		total++
		if len(values) < maxCompletions {
			values = append(values, string(id))
		}
	}
	if c.h.cfg.TokenID != "" {
		if id, err := c.h.client.ParseToken("HOOKSVC_TOKEN_ID", c.h.cfg.TokenID); err == nil {
			add(id)
		}
	}
	for _, id := range c.known(session) {
		add(id)
	}
	for _, id := range c.accountTokens(ctx) {
		add(id)
	}
	if values == nil {
		values = []string{}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: total, HasMore: total > len(values)}}
}

// known returns the tokens session named, most recent first.
func (c *tokenCompletions) known(session *mcp.ServerSession) []hooksvc.TokenID {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.sessions[session]
	if !ok {
		return nil
	}
	st := el.Value.(*sessionTokens)
	ids := make([]hooksvc.TokenID, 0, st.order.Len())
	for tok := st.order.Front(); tok != nil; tok = tok.Next() {
		ids = append(ids, tok.Value.(hooksvc.TokenID))
	}
	return ids
}

// accountTokens is the account's token list, read at most once per
// accountListTTL, and only with a configured key. A failed read counts as
// a read of nothing, and concurrent completions share one read, so that
// neither a failing API nor a client completing fast makes one GET /token
// per keystroke.
func (c *tokenCompletions) accountTokens(ctx context.Context) []hooksvc.TokenID {
	if c.h.cfg.APIKey == "" {
		return nil
	}
	c.reading.Lock()
	defer c.reading.Unlock()
	now := c.h.now()
	c.mu.Lock()
	fresh, ids := !c.accountAt.IsZero() && now.Sub(c.accountAt) < accountListTTL, c.account
	c.mu.Unlock()
	if fresh {
		return ids
	}
	read, cancel := context.WithTimeout(ctx, accountListTimeout)
	defer cancel()
	ids, err := c.h.client.ListTokens(read, c.h.cfg.APIKey)
	if err != nil && ctx.Err() != nil {
		// This client gave up: the next one may read it.
		return nil
	}
	if err != nil {
		// The error is the client's, redacted; a completion shows none.
		c.h.logger.Debug("completions: the account's token list could not be read", "error", err)
		ids = nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.account, c.accountAt = ids, now
	return ids
}

// noCompletions answers a completion no middleware took: no values. Its
// presence in the server's options is what advertises completions.
func noCompletions(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
}
