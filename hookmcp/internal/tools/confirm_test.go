package tools

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/hookmcp/internal/socketio/pipenet"
	"github.com/mcpforge/servers/shared/mcptest"
	"github.com/mcpforge/servers/shared/mcptool"
)

// connectVia is connect over l, for a client whose user is p (nil: a client
// that declares no elicitation).
func connectVia(t *testing.T, cfg config.Config, l mcptest.Link, p *mcptest.Person) *harness {
	t.Helper()
	fake := fakehooksvc.New(fakehooksvc.Options{APIKeys: []string{envKey, callKey}})
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	cfg.APIURL, _ = url.Parse(srv.URL)
	cfg.Timeout = 5 * time.Second
	h := &harness{fake: fake, url: srv.URL, logs: &mcptest.SyncBuffer{}}
	server := NewServer(Options{
		Config: cfg, HTTP: NewHTTPClient("hookmcp-test"), Version: "test",
		Logger: slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	h.session = l.Dial(t, server, p.Client())
	return h
}

// tokenWith makes a token holding n captured requests.
func (h *harness) tokenWith(t *testing.T, n int) string {
	t.Helper()
	id := h.createToken(t, nil)
	for i := range n {
		h.capture(t, id, "POST", "text/plain", fmt.Sprint(i))
	}
	h.fake.Reset()
	return id
}

// TestDeleteTokenAsksTheUser: delete_token shows the token and how many
// requests go with it, and only the user's yes (accept, box ticked) sends
// the delete; decline, cancel and an unticked box send nothing and say
// why. On every link a client that can ask is asked.
func TestDeleteTokenAsksTheUser(t *testing.T) {
	mcptest.AsksTheUser(t, func(t *testing.T, l mcptest.Link, p *mcptest.Person) mcptest.Asked {
		h := connectVia(t, config.Config{}, l, p)
		id := h.tokenWith(t, 2)
		res := h.call(t, "delete_token", map[string]any{"token_id": id})
		return mcptest.Asked{Result: res, Done: h.deletes() == 1,
			Question:  []string{"delete the capture token " + id + " and the 2 requests it captured", h.url + "/" + id + " will stop accepting requests", "cannot be undone"},
			Accepted:  "Token " + id + " was deleted",
			Declined:  "the user declined deleting token " + id + "; nothing was deleted",
			Cancelled: "the user cancelled the confirmation of deleting token " + id + " without choosing; nothing was deleted",
			Unticked:  "the user did not tick the box confirming deleting token " + id + "; nothing was deleted",
		}
	})
}

// TestDeleteRequestsAllAsksTheUser: all: true is confirmed showing the
// count; a decline deletes nothing.
func TestDeleteRequestsAllAsksTheUser(t *testing.T) {
	links := mcptest.AskingLinks()
	for _, l := range []mcptest.Link{links[0], links[1]} {
		t.Run(l.Name, func(t *testing.T) {
			p := mcptest.Answering("decline", nil)
			h := connectVia(t, config.Config{}, l, p)
			id := h.tokenWith(t, 3)
			msg := h.failure(t, "delete_requests", map[string]any{"token_id": id, "all": true})
			contains(t, msg, "the user declined deleting every request of token "+id+"; nothing was deleted")
			if h.deletes() != 0 {
				t.Fatal("a declined delete was sent")
			}
			contains(t, strings.Join(p.Questions(), "\n"), "delete every request captured by token "+id+": 3 requests now. The token itself stays.")

			p.SetAnswer(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}})
			h.ok(t, "delete_requests", map[string]any{"token_id": id, "all": true})
			if h.deletes() != 1 || len(p.Questions()) != 2 {
				t.Fatalf("after a yes: %d deletes, asked %d times", h.deletes(), len(p.Questions()))
			}
		})
	}
}

// TestDeleteRequestsFilteredBound: a filtered delete is confirmed when it
// matches more than maxUnconfirmedDelete requests (one list_requests page
// at its largest), and not at the bound.
func TestDeleteRequestsFilteredBound(t *testing.T) {
	links := mcptest.AskingLinks()
	p := mcptest.Answering("decline", nil)
	h := connectVia(t, config.Config{}, links[0], p)
	id := h.createToken(t, nil)
	for i := range maxUnconfirmedDelete + 1 {
		h.capture(t, id, "PUT", "text/plain", fmt.Sprint(i))
	}
	h.capture(t, id, "POST", "text/plain", "kept")
	h.fake.Reset()
	msg := h.failure(t, "delete_requests", map[string]any{"token_id": id, "query": "method:PUT"})
	contains(t, msg, fmt.Sprintf("the user declined deleting %d requests of token %s; nothing was deleted", maxUnconfirmedDelete+1, id))
	if h.deletes() != 0 {
		t.Fatal("a declined delete was sent")
	}
	contains(t, strings.Join(p.Questions(), "\n"), fmt.Sprintf(`delete the %d requests of token %s matching the query "method:PUT": more than one preview (100) can show`, maxUnconfirmedDelete+1, id))

	// At the bound: deleted unasked.
	at := h.createToken(t, nil)
	for i := range maxUnconfirmedDelete {
		h.capture(t, at, "PUT", "text/plain", fmt.Sprint(i))
	}
	h.capture(t, at, "POST", "text/plain", "kept")
	h.fake.Reset()
	before := len(p.Questions())
	out := h.ok(t, "delete_requests", map[string]any{"token_id": at, "query": "method:PUT"})
	if out["matched"] != float64(maxUnconfirmedDelete) || len(p.Questions()) != before || h.deletes() != 1 {
		t.Fatalf("at the bound: matched %v, asked %d more, %d deletes; want %d matched, deleted unasked", out["matched"], len(p.Questions())-before, h.deletes(), maxUnconfirmedDelete)
	}
}

// TestConfirmDeletesSetting: a client that declares no elicitation gets
// the delete unasked under ask (as before confirmation existed) and a
// refusal under require; never asks no one.
func TestConfirmDeletesSetting(t *testing.T) {
	links := mcptest.AskingLinks()
	h := connectVia(t, config.Config{}, links[0], nil)
	id := h.tokenWith(t, 1)
	h.ok(t, "delete_token", map[string]any{"token_id": id})
	if h.deletes() != 1 {
		t.Fatal("ask, client without elicitation: the delete was not sent")
	}

	for _, l := range []mcptest.Link{links[0], links[1]} {
		h = connectVia(t, config.Config{ConfirmDeletes: mcptool.ConfirmRequire}, l, nil)
		id = h.tokenWith(t, 1)
		msg := h.failure(t, "delete_token", map[string]any{"token_id": id})
		contains(t, msg, "deleting token "+id+" needs the user's confirmation (--confirm-deletes require), and the user cannot be asked: the client declares no elicitation capability; nothing was deleted")
		if h.deletes() != 0 {
			t.Fatalf("%s: require, client without elicitation: the delete was sent", l.Name)
		}
	}

	p := mcptest.Answering("decline", nil)
	h = connectVia(t, config.Config{ConfirmDeletes: mcptool.ConfirmNever}, links[0], p)
	id = h.tokenWith(t, 1)
	h.ok(t, "delete_requests", map[string]any{"token_id": id, "all": true})
	if h.deletes() != 1 || len(p.Questions()) != 0 {
		t.Fatalf("never: %d deletes, asked %d times", h.deletes(), len(p.Questions()))
	}
}

// TestConfirmStatelessEarlierProtocol: on the stateless HTTP transport a
// client before 2026-07-28 cannot be asked (no request reaches it, and its
// calls carry no capabilities): under ask the delete runs as it did before
// confirmation existed, and the log says so; under require it is refused.
func TestConfirmStatelessEarlierProtocol(t *testing.T) {
	stateless := mcptest.StatelessEarlier()
	p := mcptest.Answering("decline", nil)
	h := connectVia(t, config.Config{}, stateless, p)
	id := h.tokenWith(t, 1)
	h.ok(t, "delete_token", map[string]any{"token_id": id})
	if h.deletes() != 1 || len(p.Questions()) != 0 {
		t.Fatalf("ask: %d deletes, asked %d times; want deleted unasked", h.deletes(), len(p.Questions()))
	}
	contains(t, h.logs.String(), "running without the user's confirmation", "stateless HTTP transport")

	h = connectVia(t, config.Config{ConfirmDeletes: mcptool.ConfirmRequire}, stateless, p)
	id = h.tokenWith(t, 1)
	msg := h.failure(t, "delete_token", map[string]any{"token_id": id})
	contains(t, msg, "(--confirm-deletes require), and the user cannot be asked: on the stateless HTTP transport a server cannot send the client a request", "nothing was deleted")
	if h.deletes() != 0 {
		t.Fatal("require on stateless HTTP: the delete was sent")
	}
}

// TestConfirmOddAnswers: an answer that is not a yes or a no (an unknown
// action, accept without the form's box) is an error naming what came, and
// nothing is deleted.
func TestConfirmOddAnswers(t *testing.T) {
	links := mcptest.AskingLinks()
	cases := []struct {
		answer *mcp.ElicitResult
		want   string
	}{
		{&mcp.ElicitResult{Action: "maybe"}, `with action "maybe", which is not accept, decline or cancel; nothing was deleted`},
		{&mcp.ElicitResult{Action: "accept"}, "accepted the confirmation of deleting token %s without the form's answer (content.confirm must be true or false); nothing was deleted"},
	}
	for _, c := range cases {
		h := connectVia(t, config.Config{}, links[1], &mcptest.Person{Answer: c.answer})
		id := h.tokenWith(t, 0)
		contains(t, h.failure(t, "delete_token", map[string]any{"token_id": id}), strings.ReplaceAll(c.want, "%s", id))
		if h.deletes() != 0 {
			t.Fatalf("%v: the delete was sent", c.answer)
		}
	}
	// Content against the form's schema: the go-sdk client refuses to
	// send it, and the server's request fails.
	h := connectVia(t, config.Config{}, links[1], mcptest.Answering("accept", "yes"))
	id := h.tokenWith(t, 0)
	contains(t, h.failure(t, "delete_token", map[string]any{"token_id": id}), "asking the user to confirm deleting token "+id+" failed (", "nothing was deleted")
	if h.deletes() != 0 {
		t.Fatal("the delete was sent")
	}
}

// TestConfirmRoundTripByHand drives 2026-07-28's input_required by hand, as
// a client that fulfils it itself: the first call answers with the question
// and a state, deleting nothing; the answer counts only with that state and
// for that call; a malformed answer is an error.
func TestConfirmRoundTripByHand(t *testing.T) {
	p := mcptest.Answering("accept", true)
	opts := p.Client()
	opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	h := connectVia(t, config.Config{}, mcptest.Link{Name: "in-memory/2026-07-28", Version: "2026-07-28", Connect: func(t *testing.T, s *mcp.Server, _ *mcp.ClientOptions) *mcp.ClientSession {
		return mcptest.InMemory("")(t, s, opts)
	}}, nil)
	id := h.tokenWith(t, 1)
	other := h.tokenWith(t, 0)
	ctx := context.Background()
	call := func(token string, responses mcp.InputResponseMap, state string) *mcp.CallToolResult {
		t.Helper()
		res, err := h.session.CallTool(ctx, &mcp.CallToolParams{Name: "delete_token", Arguments: map[string]any{"token_id": token}, InputResponses: responses, RequestState: state})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := call(id, nil, "")
	question, ok := first.InputRequests["confirm"].(*mcp.ElicitParams)
	if !first.NeedsInput() || !ok || first.RequestState == "" || len(first.Content) != 0 || h.deletes() != 0 {
		t.Fatalf("first call: needs input %v, requests %v, state %q, content %v, %d deletes", first.NeedsInput(), first.InputRequests, first.RequestState, first.Content, h.deletes())
	}
	contains(t, question.Message, "delete the capture token "+id)
	yes := mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}}

	// Another token with this token's state, or no state: asked again.
	for _, again := range []*mcp.CallToolResult{call(other, yes, first.RequestState), call(id, yes, ""), call(id, yes, "confirm-v1.forged")} {
		if !again.NeedsInput() || h.deletes() != 0 {
			t.Fatalf("an answer without its state: needs input %v, %d deletes", again.NeedsInput(), h.deletes())
		}
	}
	odd := call(id, mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": "yes"}}}, first.RequestState)
	if !odd.IsError || h.deletes() != 0 {
		t.Fatalf("confirm \"yes\": %s, %d deletes", mcptest.Text(odd), h.deletes())
	}
	contains(t, mcptest.Text(odd), "without the form's answer (content.confirm must be true or false)")

	done := call(id, yes, first.RequestState)
	if done.IsError || done.NeedsInput() || h.deletes() != 1 {
		t.Fatalf("with the answer and its state: %s, %d deletes", mcptest.Text(done), h.deletes())
	}
	contains(t, mcptest.Text(done), "Token "+id+" was deleted")
}

// TestConfirmHidesKeys: the question never shows a key: a filter that holds
// the call's api_key shows it redacted.
func TestConfirmHidesKeys(t *testing.T) {
	links := mcptest.AskingLinks()
	p := mcptest.Answering("decline", nil)
	h := connectVia(t, config.Config{}, links[1], p)
	id := h.createToken(t, nil)
	for i := range maxUnconfirmedDelete + 1 {
		h.capture(t, id, "PUT", "text/plain", fmt.Sprint(i))
	}
	h.capture(t, id, "POST", "text/plain", "kept")
	h.failure(t, "delete_requests", map[string]any{"token_id": id, "query": "method:PUT OR " + callKey, "api_key": callKey})
	asked := strings.Join(p.Questions(), "\n")
	if asked == "" || strings.Contains(asked, callKey) {
		t.Fatalf("the question shows the key, or none was asked: %q", asked)
	}
}

// TestConfirmUnanswered: a client that never answers holds the call for
// mcptool.ConfirmWait, no longer; then nothing is deleted and the error
// says why. (Time is synctest's.)
func TestConfirmUnanswered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := fakehooksvc.New(fakehooksvc.Options{APIKeys: []string{envKey}})
		l, stop := pipenet.Serve(fake)
		t.Cleanup(stop)
		httpClient := NewHTTPClient("hookmcp-test")
		httpClient.Transport = l.Client().Transport
		server := NewServer(Options{
			Config:  config.Config{APIURL: &url.URL{Scheme: "http", Host: "hooks.test"}, Timeout: 5 * time.Second, APIKey: envKey},
			HTTP:    httpClient,
			Version: "test",
			Logger:  slog.New(slog.DiscardHandler),
		})
		session := mcptest.InMemory("2025-11-25")(t, server, (&mcptest.Person{Away: true}).Client())
		created := mcptest.Call(t, context.Background(), session, "create_token", nil)
		id := mcptest.Structured(t, created)["token"].(map[string]any)["uuid"].(string)
		start := time.Now()
		res := mcptest.Call(t, context.Background(), session, "delete_token", map[string]any{"token_id": id})
		if waited := time.Since(start); waited != mcptool.ConfirmWait {
			t.Errorf("the call waited %s for the answer, want %s", waited, mcptool.ConfirmWait)
		}
		if !res.IsError || !strings.Contains(mcptest.Text(res), "the user did not answer the confirmation of deleting token "+id+" within 10m0s; nothing was deleted") {
			t.Fatalf("result: %s", mcptest.Text(res))
		}
		for _, r := range fake.Received() {
			if r.Method == "DELETE" {
				t.Fatal("the delete was sent")
			}
		}
	})
}

// TestDeleteRequestsCountGrows: what the user agreed to is the count shown.
// On 2026-07-28, a yes given for 101 matches does not delete when the
// filter matches 500 by the call that carries it: the user is asked again,
// about 500. Asked by elicitation/create, requests that arrive while the
// user reads are not deleted with the rest: nothing is, and the error says
// so.
func TestDeleteRequestsCountGrows(t *testing.T) {
	fill := func(h *harness, id string, n int) {
		for i := range n {
			h.capture(t, id, "PUT", "text/plain", fmt.Sprint(i))
		}
	}
	t.Run("input_required", func(t *testing.T) {
		opts := mcptest.Answering("accept", true).Client()
		opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
		h := connectVia(t, config.Config{}, mcptest.Link{Name: "in-memory/2026-07-28", Version: "2026-07-28", Connect: func(t *testing.T, s *mcp.Server, _ *mcp.ClientOptions) *mcp.ClientSession {
			return mcptest.InMemory("")(t, s, opts)
		}}, nil)
		id := h.createToken(t, nil)
		fill(h, id, maxUnconfirmedDelete+1)
		h.capture(t, id, "POST", "text/plain", "kept")
		args := map[string]any{"token_id": id, "query": "method:PUT"}
		call := func(responses mcp.InputResponseMap, state string) *mcp.CallToolResult {
			t.Helper()
			res, err := h.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_requests", Arguments: args, InputResponses: responses, RequestState: state})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		first := call(nil, "")
		if !first.NeedsInput() {
			t.Fatalf("first call: %s", mcptest.Text(first))
		}
		fill(h, id, 399)
		h.fake.Reset()
		yes := mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}}
		again := call(yes, first.RequestState)
		question, _ := again.InputRequests["confirm"].(*mcp.ElicitParams)
		if !again.NeedsInput() || question == nil || h.deletes() != 0 {
			t.Fatalf("a yes for 101 with 500 matching now: needs input %v, %d deletes, %s", again.NeedsInput(), h.deletes(), mcptest.Text(again))
		}
		contains(t, question.Message, "delete the 500 requests of token "+id)
		done := call(yes, again.RequestState)
		if done.IsError || h.deletes() != 1 {
			t.Fatalf("a yes for 500: %s, %d deletes", mcptest.Text(done), h.deletes())
		}
	})
	t.Run("elicitation/create", func(t *testing.T) {
		p := mcptest.Answering("accept", true)
		h := connectVia(t, config.Config{}, mcptest.AskingLinks()[1], p)
		id := h.createToken(t, nil)
		fill(h, id, maxUnconfirmedDelete+1)
		h.capture(t, id, "POST", "text/plain", "kept")
		h.fake.Reset()
		p.Reading = func() { fill(h, id, 399) }
		msg := h.failure(t, "delete_requests", map[string]any{"token_id": id, "query": "method:PUT"})
		contains(t, msg, fmt.Sprintf("the filter matched 101 requests of token %s when the user was asked and matches 500 now, more than the user agreed to delete, so nothing was deleted", id))
		if h.deletes() != 0 {
			t.Fatal("deleted more than the user was shown")
		}
	})
}

// TestConfirmShowsTheWholeQuery: the dialog shows the filter the user
// agrees to whole, not cut as an error quotes an argument (100 bytes).
func TestConfirmShowsTheWholeQuery(t *testing.T) {
	p := mcptest.Answering("decline", nil)
	h := connectVia(t, config.Config{}, mcptest.AskingLinks()[1], p)
	id := h.createToken(t, nil)
	for i := range maxUnconfirmedDelete + 1 {
		h.capture(t, id, "PUT", "text/plain", fmt.Sprint(i))
	}
	h.capture(t, id, "POST", "text/plain", "kept")
	query := "method:PUT" + strings.Repeat(" OR method:PATCH", 8) + " OR method:DELETE"
	h.failure(t, "delete_requests", map[string]any{"token_id": id, "query": query})
	contains(t, strings.Join(p.Questions(), "\n"), fmt.Sprintf("matching the query %q:", query))
}
