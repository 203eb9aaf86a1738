package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wakeUpModes measures wait_for_request's wake-up both ways against the
// same fake on loopback: woken by the fake's socket push (the default
// socket URL of a local API is its own origin), and by polling alone
// (HOOKSVC_SOCKET_URL=off). Each round captures a request 0 to 1,200 ms
// after the wait said it was watching, spread evenly, and times capture to
// result. A capture that lands before the wait's first poll is found by
// that poll, push or not: the note counts the rounds the push woke, and a
// push run that the push never woke fails, as a polling round that says
// it was woken does.
func (b *bench) wakeUpModes(ctx context.Context, l launch, api string) error {
	rounds := 4 * b.sizes.rounds
	for _, mode := range []struct {
		name, env, note string
	}{
		{"push", "", "capture to result with the fake's socket push (Socket.IO), %d rounds, %d woken by the push"},
		{"polling", "HOOKSVC_SOCKET_URL=off", "capture to result, polling only (HOOKSVC_SOCKET_URL=off), %d rounds, %d woken by a push"},
	} {
		ml := l
		ml.env = slices.Clip(l.env)
		if mode.env != "" {
			ml.env = append(ml.env, mode.env)
		}
		wakes, pushed, err := wakeUps(ctx, ml, api, rounds)
		if err == nil && (mode.name == "push") != (pushed > 0) {
			err = fmt.Errorf("%d of %d rounds were woken by a push", pushed, len(wakes))
		}
		if err != nil {
			return fmt.Errorf("wake-up by %s: %w", mode.name, err)
		}
		b.add("hookmcp", "wait_for_request wake-up by "+mode.name+" (median)", ms(median(wakes)), "ms", fmt.Sprintf(mode.note, len(wakes), pushed))
		b.add("hookmcp", "wait_for_request wake-up by "+mode.name+" (worst)", ms(percentile(wakes, 100)), "ms", "")
	}
	return nil
}

// wakeUps runs rounds waits in one server session and returns each one's
// time from the capture to the result, and how many the push woke. A
// first wait, not measured, opens the socket that the next ones find.
func wakeUps(ctx context.Context, l launch, api string, rounds int) (wakes []time.Duration, pushed int, err error) {
	// Each wait says it is watching in its first progress notification;
	// one of an earlier round must not start the clock.
	watching := make(chan any, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpforge-bench", Version: "v1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case watching <- req.Params.ProgressToken:
			default:
			}
		},
	})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: l.command()}, nil)
	if err != nil {
		return nil, 0, err
	}
	defer cs.Close()
	id, err := createToken(ctx, cs)
	if err != nil {
		return nil, 0, err
	}
	if _, err := callOK(ctx, cs, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 1}); err != nil {
		return nil, 0, err
	}
	for round := range rounds {
		offset := time.Duration(round%5) * 300 * time.Millisecond
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
				return nil, 0, fmt.Errorf("wait_for_request ended before it watched: %v", got.err)
			}
		}
		time.Sleep(offset) // when the sender fires: the measure's input, not a wait for an outcome
		sent := time.Now()
		if _, err := fetch(ctx, http.MethodPost, api+"/"+id, webhookBody); err != nil {
			return nil, 0, err
		}
		got := <-done
		if got.err != nil {
			return nil, 0, got.err
		}
		answer := text(got.res)
		if !strings.Contains(answer, "POST") {
			return nil, 0, fmt.Errorf("wait_for_request: %.300s", answer)
		}
		if strings.Contains(answer, "Woken by the service's push") {
			pushed++
		}
		wakes = append(wakes, got.at.Sub(sent))
	}
	return wakes, pushed, nil
}
