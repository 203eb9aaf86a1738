package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestTokenCompletions: the requests resource's token_id completes to the
// default token, then the tokens this session's calls named or created
// (newest first), then, with a key, the account's tokens (GET /token, read
// at most once per 30 s of the server's clock), each once, by prefix;
// another session is not offered this one's tokens.
func TestTokenCompletions(t *testing.T) {
	fake := fakehooksvc.New(fakehooksvc.Options{APIKeys: []string{envKey, callKey}})
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	const defaultToken = "0B5E1D7A-1111-4222-8333-444455556666"
	var clock struct {
		sync.Mutex
		now time.Time
	}
	clock.now = time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	now := func() time.Time { clock.Lock(); defer clock.Unlock(); return clock.now }
	server := NewServer(Options{
		Config:  config.Config{APIURL: mustParse(t, srv.URL), Timeout: 5 * time.Second, APIKey: envKey, TokenID: defaultToken},
		HTTP:    NewHTTPClient("hookmcp-test"),
		Logger:  slog.New(slog.DiscardHandler),
		Version: "test",
		Now:     now,
	})
	session := mcptest.Connect(t, server)
	h := &harness{session: session, fake: fake, url: srv.URL, logs: &mcptest.SyncBuffer{}}

	accountOnly := createDirect(t, srv.URL, envKey)
	first := h.createToken(t, nil)
	otherAccount := h.createToken(t, map[string]any{"api_key": callKey})
	named := createDirect(t, srv.URL, "")
	h.ok(t, "get_token", map[string]any{"token_id": srv.URL + "/" + named}) // a capture URL, as pasted

	complete := func(arg, value string) *mcp.CompleteResult {
		t.Helper()
		res, err := session.Complete(context.Background(), &mcp.CompleteParams{
			Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: requestsURITemplate},
			Argument: mcp.CompleteParamsArgument{Name: arg, Value: value},
		})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	got := complete("token_id", "")
	// first was created with the configured key, so the account lists it
	// too: it is offered once, where the server's own memory puts it.
	want := []string{strings.ToLower(defaultToken), named, otherAccount, first, accountOnly}
	if !slices.Equal(got.Completion.Values, want) || got.Completion.Total != 5 || got.Completion.HasMore {
		t.Errorf("completing \"\": %+v, want %v", got.Completion, want)
	}
	if got := complete("token_id", strings.ToUpper(accountOnly[:8])).Completion.Values; !slices.Equal(got, []string{accountOnly}) {
		t.Errorf("completing a prefix of the account's token: %v", got)
	}
	if got := complete("other", "").Completion.Values; len(got) != 0 {
		t.Errorf("another argument: %v", got)
	}
	// Another session of the same server (another client over HTTP) is
	// not offered the tokens this one named: only the default and the
	// account's.
	other, err := mcptest.Connect(t, server).Complete(context.Background(), &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: requestsURITemplate},
		Argument: mcp.CompleteParamsArgument{Name: "token_id", Value: ""},
	})
	if err != nil || slices.Contains(other.Completion.Values, named) || slices.Contains(other.Completion.Values, otherAccount) ||
		!slices.Contains(other.Completion.Values, strings.ToLower(defaultToken)) || !slices.Contains(other.Completion.Values, accountOnly) {
		t.Errorf("another session: %v %+v", err, other)
	}
	if n := tokenListings(fake); n != 1 {
		t.Errorf("%d GET /token for four completions within 30 s, want 1", n)
	}
	clock.Lock()
	clock.now = clock.now.Add(31 * time.Second)
	clock.Unlock()
	complete("token_id", "")
	if n := tokenListings(fake); n != 2 {
		t.Errorf("%d GET /token after 31 s, want 2", n)
	}

	// Without a key there is no account to list.
	keyless := connect(t, config.Config{})
	token := keyless.createToken(t, nil)
	res, err := keyless.session.Complete(context.Background(), &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: requestsURITemplate},
		Argument: mcp.CompleteParamsArgument{Name: "token_id", Value: ""},
	})
	if err != nil || !slices.Equal(res.Completion.Values, []string{token}) || tokenListings(keyless.fake) != 0 {
		t.Errorf("without a key: %v %+v, %d GET /token", err, res, tokenListings(keyless.fake))
	}
}

// TestTokenCompletionsBounded: each session's memory keeps its newest
// maxKnownTokens, the newest maxTokenSessions sessions are kept, and an
// answer lists at most maxCompletions with the total.
func TestTokenCompletionsBounded(t *testing.T) {
	c := (&handlers{}).newTokenCompletions()
	session := &mcp.ServerSession{}
	for i := range maxKnownTokens + 50 {
		c.remember(session, hooksvcID(i))
	}
	known := c.known(session)
	if len(known) != maxKnownTokens || known[0] != hooksvcID(maxKnownTokens+49) || slices.Contains(known, hooksvcID(0)) {
		t.Fatalf("%d known, newest %s", len(known), known[0])
	}
	res := c.complete(context.Background(), session, "")
	if len(res.Completion.Values) != maxCompletions || res.Completion.Total != maxKnownTokens || !res.Completion.HasMore {
		t.Errorf("%d values, total %d, hasMore %v", len(res.Completion.Values), res.Completion.Total, res.Completion.HasMore)
	}
	for range maxTokenSessions {
		c.remember(&mcp.ServerSession{}, hooksvcID(1))
	}
	if len(c.known(session)) != 0 || len(c.sessions) != maxTokenSessions {
		t.Errorf("after %d newer sessions the first still has %d tokens; %d sessions kept", maxTokenSessions, len(c.known(session)), len(c.sessions))
	}
}

func hooksvcID(i int) hooksvc.TokenID {
	return hooksvc.TokenID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i))
}

// createDirect creates a token on the fake without the server (key empty:
// a public one) and returns its UUID.
func createDirect(t *testing.T, base, key string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/token", strings.NewReader("{}"))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if key != "" {
		req.Header.Set("Api-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var created struct{ UUID string }
	if err := json.NewDecoder(resp.Body).Decode(&created); err != nil || created.UUID == "" {
		t.Fatalf("creating a token: %v", err)
	}
	return created.UUID
}

// tokenListings counts the GET /token the fake received.
func tokenListings(fake *fakehooksvc.Server) int {
	n := 0
	for _, r := range fake.Received() {
		if r.Method == http.MethodGet && r.Path == "/token" {
			n++
		}
	}
	return n
}

// TestTokenCompletionsHostileAccount: a GET /token that fails, answers
// what is not JSON, or lists ids that are not UUIDs (control characters,
// a secret-looking string) gives no values from the account and is asked
// again only after 30 s of the server's clock, however many completions
// come meanwhile; an id the API gives in capitals completes, lowercased,
// from a lowercase prefix.
func TestTokenCompletionsHostileAccount(t *testing.T) {
	const upper = "ABCDEF01-2345-4678-89AB-CDEF01234567"
	for _, c := range []struct {
		name   string
		status int
		body   string
		want   []string
	}{
		{"failing", http.StatusInternalServerError, `{"error": "down"}`, []string{}},
		{"not JSON", http.StatusOK, strings.Repeat("<html>", 100_000), []string{}},
		{"hostile ids", http.StatusOK, `{"data": [{"uuid": "abcdef01-2345-4678-89ab-cdef0123456\u001b"}, {"uuid": "abc sk_live_secret"}, {"uuid": 7}], "total": 3, "per_page": 100, "current_page": 1, "is_last_page": true, "from": 1, "to": 3, "last_page": 1}`, []string{}},
		{"capitals", http.StatusOK, `{"data": [{"uuid": "` + upper + `"}], "total": 1, "per_page": 100, "current_page": 1, "is_last_page": true, "from": 1, "to": 1, "last_page": 1}`, []string{strings.ToLower(upper)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			listings := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet && r.URL.Path == "/token" {
					mu.Lock()
					listings++
					mu.Unlock()
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(c.status)
				fmt.Fprint(w, c.body)
			}))
			t.Cleanup(srv.Close)
			var clock struct {
				sync.Mutex
				now time.Time
			}
			clock.now = time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
			server := NewServer(Options{
				Config:  config.Config{APIURL: mustParse(t, srv.URL), Timeout: 5 * time.Second, APIKey: envKey},
				HTTP:    NewHTTPClient("hookmcp-test"),
				Logger:  slog.New(slog.DiscardHandler),
				Version: "test",
				Now:     func() time.Time { clock.Lock(); defer clock.Unlock(); return clock.now },
			})
			session := mcptest.Connect(t, server)
			complete := func(prefix string) []string {
				t.Helper()
				res, err := session.Complete(context.Background(), &mcp.CompleteParams{
					Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: requestsURITemplate},
					Argument: mcp.CompleteParamsArgument{Name: "token_id", Value: prefix},
				})
				if err != nil {
					t.Fatal(err)
				}
				return res.Completion.Values
			}
			for _, prefix := range []string{"", "a", "ab", "abc", "abcd"} {
				if got := complete(prefix); !slices.Equal(got, c.want) {
					t.Errorf("completing %q: %q, want %q", prefix, got, c.want)
				}
			}
			count := func() int { mu.Lock(); defer mu.Unlock(); return listings }
			if n := count(); n != 1 {
				t.Errorf("%d GET /token for five completions within 30 s, want 1", n)
			}
			clock.Lock()
			clock.now = clock.now.Add(31 * time.Second)
			clock.Unlock()
			complete("")
			if n := count(); n != 2 {
				t.Errorf("%d GET /token after 31 s, want 2", n)
			}
		})
	}
}
