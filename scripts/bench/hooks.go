package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// webhookBody is what each captured request of the resource measure
// carries: a push event of the size a small real webhook has (about 600
// bytes).
const webhookBody = `{"ref":"refs/heads/main","before":"6113728f27ae82c7b1a177c8d03f9e96e0adf246","after":"59b20b8d5c6ff8d09518454d4dd8b7a30f095ab5",` +
	`"repository":{"id":1296269,"full_name":"octocat/Hello-World","private":false,"html_url":"https://github.com/octocat/Hello-World"},` +
	`"pusher":{"name":"octocat","email":"octocat@github.com"},"head_commit":{"id":"59b20b8d5c6ff8d09518454d4dd8b7a30f095ab5",` +
	`"message":"Update README.md","timestamp":"2026-11-22T10:00:00Z","author":{"name":"The Octocat","email":"octocat@github.com"},` +
	`"added":[],"removed":[],"modified":["README.md"]}}`

func (b *bench) hooks(ctx context.Context) error {
	fmt.Fprintln(os.Stderr, "hookmcp:")
	api, _, err := b.procs.Start("fakehooksvc", "-listen", "127.0.0.1:0")
	if err != nil {
		return err
	}
	l := launch{server: "hookmcp", path: filepath.Join(b.procs.Bin, "hookmcp"), env: []string{"HOOKSVC_API_URL=" + api}, version: true}
	s, err := b.measured(ctx, l)
	if err != nil {
		return err
	}
	defer s.Close()
	id, err := createToken(ctx, s.ClientSession)
	if err != nil {
		return err
	}
	if err := b.latency(ctx, "hookmcp", s, "get_token", map[string]any{"token_id": id}, func() error {
		_, err := fetch(ctx, http.MethodGet, api+"/token/"+id, "")
		return err
	}); err != nil {
		return err
	}
	if err := b.resource(ctx, l, api); err != nil {
		return err
	}
	return b.wakeUp(ctx, l, api)
}

func createToken(ctx context.Context, s *mcp.ClientSession) (string, error) {
	created, err := callOK(ctx, s, "create_token", map[string]any{})
	if err != nil {
		return "", err
	}
	var token struct {
		Token struct {
			UUID string `json:"uuid"`
		} `json:"token"`
	}
	raw, _ := json.Marshal(created.StructuredContent)
	if err := json.Unmarshal(raw, &token); err != nil || token.Token.UUID == "" {
		return "", fmt.Errorf("create_token gave no uuid: %s", raw)
	}
	return token.Token.UUID, nil
}

// resource reads hooksvc://token/{id}/requests of a token holding the run's
// captures (10,000 in the full run, the most a token keeps), in a fresh
// server whose size budget lets it read them all: the read's wall time
// against plain requests for the same pages, the text's size, and the
// server's peak RSS against it.
func (b *bench) resource(ctx context.Context, l launch, api string) error {
	l.args = []string{"--resource-max-bytes", fmt.Sprint(256 << 20)}
	s, _, err := connect(ctx, l)
	if err != nil {
		return err
	}
	defer s.Close()
	id, err := createToken(ctx, s.ClientSession)
	if err != nil {
		return err
	}
	if err := capture(ctx, api+"/"+id, b.sizes.captures); err != nil {
		return err
	}
	before, err := rssMiB(s.pid())
	if err != nil {
		return err
	}
	cpuBefore, err := cpuTime(s.pid())
	if err != nil {
		return err
	}
	start := time.Now()
	res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "hooksvc://token/" + id + "/requests"})
	if err != nil {
		return err
	}
	took := time.Since(start)
	cpuAfter, err := cpuTime(s.pid())
	if err != nil {
		return err
	}
	peak, err := peakRSSMiB(s.pid())
	if err != nil {
		return err
	}
	var items []json.RawMessage
	if len(res.Contents) == 0 || json.Unmarshal([]byte(res.Contents[0].Text), &items) != nil || len(items) != b.sizes.captures {
		return fmt.Errorf("the resource gave %d requests, want %d", len(items), b.sizes.captures)
	}
	payload := len(res.Contents[0].Text)
	// The same pages fetched by a plain client: what the upstream takes.
	start = time.Now()
	for page := 1; (page-1)*100 < b.sizes.captures; page++ {
		if _, err := fetch(ctx, http.MethodGet, fmt.Sprintf("%s/token/%s/requests?sorting=oldest&per_page=100&page=%d", api, id, page), ""); err != nil {
			return err
		}
	}
	plain := time.Since(start)
	label := fmt.Sprintf("%d requests of %d bytes each", b.sizes.captures, len(webhookBody))
	b.add("hookmcp", "resource read", ms(took), "ms", label)
	b.add("hookmcp", "resource read: server CPU", ms(cpuAfter-cpuBefore), "ms", "user + system")
	b.add("hookmcp", "the same pages by plain HTTP", ms(plain), "ms", fmt.Sprintf("%d pages of 100", (b.sizes.captures+99)/100))
	b.add("hookmcp", "resource text", mib(payload), "MiB", label)
	b.add("hookmcp", "resource peak RSS", peak, "MiB", fmt.Sprintf("VmHWM; %.1f MiB before the read", before))
	b.add("hookmcp", "resource peak RSS ÷ text", peak/mib(payload), "×", "")
	return nil
}

// capture sends n webhook requests to a capture URL, eight at a time.
func capture(ctx context.Context, url string, n int) error {
	work := make(chan struct{})
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range work {
				if _, err := fetch(ctx, http.MethodPost, url, webhookBody); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	sent := 0
	for ; sent < n; sent++ {
		select {
		case work <- struct{}{}:
		case err := <-errs:
			close(work)
			wg.Wait()
			return err
		}
	}
	close(work)
	wg.Wait()
	close(errs)
	return <-errs
}

// wakeUp measures how long wait_for_request takes to return a request
// after it is captured. The server polls (at once when the call starts,
// then 1 s later, each pause a quarter longer, up to 5 s), so the capture
// is sent at a different moment of the cycle each round, from when the
// server says it is watching.
func (b *bench) wakeUp(ctx context.Context, l launch, api string) error {
	// Each wait says it is watching in its first progress notification; one
	// of an earlier round must not start the clock.
	watching := make(chan any, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpforge-bench", Version: "v1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case watching <- req.Params.ProgressToken:
			default:
			}
		},
	})
	cmd := l.command()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	id, err := createToken(ctx, cs)
	if err != nil {
		return err
	}
	var wakes []time.Duration
	for round := range b.sizes.rounds {
		offset := time.Duration(round) * 300 * time.Millisecond
		params := &mcp.CallToolParams{Name: "wait_for_request", Arguments: map[string]any{"token_id": id, "timeout_seconds": 30}}
		token := fmt.Sprintf("wake-%d", round)
		params.SetProgressToken(token)
		type outcome struct {
			res *mcp.CallToolResult
			err error
			at  time.Time
		}
		done := make(chan outcome, 1)
		go func() {
			res, err := cs.CallTool(ctx, params)
			if err == nil && res.IsError {
				err = fmt.Errorf("wait_for_request: tool error: %.300s", text(res))
			}
			done <- outcome{res, err, time.Now()}
		}()
	watch:
		for {
			select {
			case started := <-watching:
				if started == token {
					break watch
				}
			case got := <-done:
				return fmt.Errorf("wait_for_request ended before it watched: %v", got.err)
			}
		}
		time.Sleep(offset)
		sent := time.Now()
		if _, err := fetch(ctx, http.MethodPost, api+"/"+id, webhookBody); err != nil {
			return err
		}
		got := <-done
		if got.err != nil {
			return got.err
		}
		if !strings.Contains(text(got.res), "POST") {
			return fmt.Errorf("wait_for_request: %.300s", text(got.res))
		}
		wakes = append(wakes, got.at.Sub(sent))
	}
	b.add("hookmcp", "wait_for_request wake-up (median)", ms(median(wakes)), "ms", fmt.Sprintf("capture to result, %d rounds, the capture 0 to %d ms after the wait began", len(wakes), (len(wakes)-1)*300))
	b.add("hookmcp", "wait_for_request wake-up (worst)", ms(percentile(wakes, 100)), "ms", "")
	return nil
}
