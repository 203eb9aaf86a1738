package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// WaitForRequestArgs are wait_for_request's arguments.
type WaitForRequestArgs struct {
	TokenArg
	TimeoutSeconds *float64 `json:"timeout_seconds,omitempty" jsonschema:"how long to wait"`
	Query          string   `json:"query,omitempty" jsonschema:"a list_requests filter to match (hosted service only)"`
	SinceSeconds   *float64 `json:"since_seconds,omitempty"`
	AfterRequestID string   `json:"after_request_id,omitempty"`
}

var (
	waitSeconds  = mcptool.Whole{Min: 1, Max: 300, Default: 60}
	sinceSeconds = mcptool.Whole{Min: 0, Max: 3600, Default: 120}
)

// Polling pace: a capture is seen about a second after it lands at first,
// then the pace slows to at most one listing every maxPollInterval, far
// under the hosted API's 120 listings a minute per key.
const (
	firstPollInterval = time.Second
	maxPollInterval   = 5 * time.Second
	// pollPerPage is the page size of a walk down to the cursor, on a
	// server that ignores the cursor filter.
	pollPerPage = 10
	// maxCatchUpPages bounds the pages such a walk reads.
	maxCatchUpPages = 10
)

func (h *handlers) waitForRequestTool() mcptool.Tool[WaitForRequestArgs, RequestResult] {
	return mcptool.Tool[WaitForRequestArgs, RequestResult]{
		Name:  "wait_for_request",
		Title: "Wait for the next captured request",
		Description: "Return the first request (matching query) captured after after_request_id, else after the newest request this server has shown you for the token, else in the last since_seconds: at once if there, else when it arrives. " +
			"Trigger the sender before or after. None in time: captured: false, with the capture URL.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(true)},
		AdjustInput: func(s *jsonschema.Schema) {
			adjustTokenArg(s)
			waitSeconds.Schema(s.Properties["timeout_seconds"])
			sinceSeconds.Schema(s.Properties["since_seconds"])
			s.Properties["after_request_id"].Format = "uuid"
		},
		AdjustOutput: adjustRequestResult,
		Verbatim:     []string{"body", "note"},
		ThirdParty:   true, // the sender wrote its URL, headers, fields
		Handle:       h.waitForRequest,
	}
}

func (h *handlers) waitForRequest(ctx context.Context, req *mcp.CallToolRequest, args WaitForRequestArgs) (*mcp.CallToolResult, RequestResult, error) {
	id, key, err := h.access(args.TokenID, args.APIKey)
	if err != nil {
		return nil, RequestResult{}, err
	}
	seconds, err := waitSeconds.Value("timeout_seconds", args.TimeoutSeconds)
	if err != nil {
		return nil, RequestResult{}, err
	}
	since, err := sinceSeconds.Value("since_seconds", args.SinceSeconds)
	if err != nil {
		return nil, RequestResult{}, err
	}
	// Given empty, either would read as left out: a query that matches
	// every request, a start point that is not the one asked for.
	g := givenArgs(req)
	if g.blank("query") {
		return nil, RequestResult{}, errors.New("query is empty: a filter that is given must have a value (an empty one matches every request), so it was refused; give it a value or leave it out; nothing was sent")
	}
	if g.blank("after_request_id") {
		return nil, RequestResult{}, errors.New("after_request_id is empty: pass a request UUID, or leave after_request_id out to wait from the newest request shown (else since_seconds ago); nothing was sent")
	}
	if args.AfterRequestID != "" && !hooksvc.UUIDPattern.MatchString(args.AfterRequestID) {
		return nil, RequestResult{}, fmt.Errorf("after_request_id must be a request UUID such as %s; got %q. get_latest_request or list_requests gives the ids", hooksvc.ExampleUUID, truncate(args.AfterRequestID, 100))
	}
	start := h.now()
	limit := time.Duration(seconds) * time.Second
	// The limit is kept by the wait's clock (now and pause); the call's
	// context still cancels the wait. On the wall clock, the limit also
	// bounds what the API takes to answer, so a hanging API does not hold
	// the call past timeout_seconds; an injected clock does not race a
	// real-time timer.
	waitCtx := ctx
	if h.realClock {
		var cancel context.CancelFunc
		waitCtx, cancel = context.WithDeadline(ctx, start.Add(limit))
		defer cancel()
	}
	w := &waiter{h: h, id: id, key: key, query: args.Query, req: req, start: start, limit: limit}
	// Subscribed before the first poll, so that a capture after that poll
	// is pushed.
	w.push = h.live.wait(id, key)
	defer w.push.release()
	if err := w.begin(waitCtx, args.AfterRequestID, time.Duration(since)*time.Second); err != nil {
		return nil, RequestResult{}, err
	}
	// The first notification tells the client the wait is watching: a
	// request captured from now on will be returned.
	w.progress(waitCtx)
	meta, found, err := w.wait(ctx, waitCtx)
	switch {
	case ctx.Err() != nil:
		waited := h.now().Sub(start)
		h.logger.Info("wait_for_request stopped: the call was cancelled", "token", id, "waited", waited.Round(time.Millisecond))
		return nil, RequestResult{}, fmt.Errorf("wait_for_request was cancelled after %s", waited.Round(time.Second))
	case err != nil:
		return nil, RequestResult{}, err
	case !found:
		captureURL := h.client.CaptureURL(id)
		what := "No request"
		if args.Query != "" {
			what = fmt.Sprintf("No request matching %q", truncate(args.Query, 100))
		}
		note := fmt.Sprintf("%s arrived at token %s within %d seconds. Send one to %s (send_test_request does), or trigger the sender, then wait again. %s", what, id, seconds, captureURL, w.how())
		res, out := nothingCaptured(id, captureURL, note)
		out.Waited = float64(seconds)
		return res, out, nil
	}
	// The body is read under the call's own context: the request is there,
	// and the wait's limit should not cut its reading short.
	out, err := h.requestResult(ctx, key, id, meta.requestMeta)
	if err != nil {
		return nil, RequestResult{}, err
	}
	out.Note = strings.TrimSpace(out.Note + " " + w.how())
	switch {
	case w.partial:
		// Requests older than this one, yet after the cursor, were not
		// read: the memory stays before them.
		out.Note = strings.TrimSpace(out.Note + " " + "Older requests after the last one shown may remain unread: the capture API's listing could not be read down to them. list_requests reads them.")
	case args.Query == "":
		// A filtered wait shows one match, not the requests it left out
		// before it: only an unfiltered one moves the memory.
		h.seeMeta(id, meta.requestMeta)
	}
	out.Waited = h.now().Sub(start).Round(100 * time.Millisecond).Seconds()
	return mcptool.Text(requestText("New request", out)...), out, nil
}

// waiter is one wait_for_request call in progress.
type waiter struct {
	h        *handlers
	id       hooksvc.TokenID
	key      string
	query    string
	req      *mcp.CallToolRequest
	start    time.Time
	limit    time.Duration
	cursor   int64 // the service's sorting number: requests after it are awaited
	interval time.Duration
	partial  bool // the request found may have unread ones after the cursor before it
	// push wakes the wait when the service pushes a capture of the token;
	// pushed is set when the poll that found the request followed a push.
	push   liveWait
	pushed bool
	// notLive is why the push was not live at the first poll that found
	// it so ("" when it was live at every poll), and wasLive whether a
	// poll found it live: the note tells the wait as it went, not only the
	// socket's state at its end.
	notLive string
	wasLive bool
	// The polls pushes trigger draw on a budget of pushBurst, refilled one
	// every pushRefill.
	budget   float64
	budgetAt time.Time
}

// A wait that pushes wake polls at once, a few times in a row; past that,
// once a second: with the safety-net poll, about 72 listings a minute at
// most on a token flooded with captures that the wait's query does not
// match, under the hosted API's 120.
const (
	pushBurst  = 3
	pushRefill = time.Second
)

// pushPoll takes one poll from the push budget and says how long to wait
// for it first.
func (w *waiter) pushPoll() time.Duration {
	now := w.h.now()
	if w.budgetAt.IsZero() {
		w.budget = pushBurst
	} else {
		w.budget = min(pushBurst, w.budget+float64(now.Sub(w.budgetAt))/float64(pushRefill))
	}
	w.budgetAt = now
	w.budget--
	if w.budget >= 0 {
		return 0
	}
	return time.Duration(-w.budget * float64(pushRefill))
}

// how says how the wait watched: woken by the push, or polling, and why
// the push was not used.
func (w *waiter) how() string {
	if w.pushed {
		return "Woken by the service's push (live socket)."
	}
	if live, why := w.push.state(); !live {
		if w.wasLive {
			return "Polled the capture API (socket: live earlier in the wait, then " + why + ")."
		}
		return "Polled the capture API (socket: " + why + ")."
	}
	// Live now, which may be for an instant: a socket that drops each
	// time it opens is live at some moments. Its failure during the wait
	// is what kept the push from coming.
	if err := w.push.failure(); err != nil {
		return "Polled the capture API (socket: " + err.Error() + ", then live later in the wait; no push came for this request)."
	}
	if w.notLive != "" {
		return "Polled the capture API (socket: " + w.notLive + " at first, live only later in the wait; no push came for this request)."
	}
	return "Polled the capture API (the socket was live; no push came for this request)."
}

// observe notes the push's state at a poll.
func (w *waiter) observe() {
	live, why := w.push.state()
	switch {
	case live:
		w.wasLive = true
	case w.notLive == "":
		w.notLive = why
	}
}

// sleep pauses for d on the wait's clock, or until the push wakes it
// (signal closes) or the socket's state changes (changed closes). woken
// says whether one of them woke it; pushed is set when a capture did.
func (w *waiter) sleep(ctx context.Context, d time.Duration, signal, changed <-chan struct{}, seq uint64) (woken bool, err error) {
	if signal == nil && changed == nil {
		return false, w.h.pause(ctx, d)
	}
	pauseCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-signal:
			cancel()
		case <-changed:
			cancel()
		case <-done:
		}
	}()
	err = w.h.pause(pauseCtx, d)
	select {
	case <-signal:
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		w.pushed = w.push.pushedSince(seq)
		return true, nil
	default:
	}
	select {
	case <-changed:
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return true, nil
	default:
		return false, err
	}
}

// begin fixes the cursor: the request after_request_id names, else the
// newest request this server has shown for the token, else the moment
// since before now. With a query, it first proves the server applies
// filters: on one that ignores them, the first request of any kind would
// come back as a match.
func (w *waiter) begin(ctx context.Context, afterID string, since time.Duration) error {
	if w.query != "" {
		ignored, err := w.h.ignoredFilters(ctx, w.key, w.id, filterKinds{query: true})
		if err != nil {
			return err
		}
		if len(ignored) > 0 {
			return fmt.Errorf("the capture API at %s does not apply query filters (the open-source webhook.site does not), so wait_for_request cannot wait for a match: "+
				"call it without query and check the request it returns", httpx.DisplayURL(w.h.cfg.APIURL))
		}
	}
	if afterID != "" {
		item, err := w.h.client.GetRequest(ctx, w.key, w.id, hooksvc.RequestID(afterID))
		if err != nil {
			return fmt.Errorf("after_request_id: %w", err)
		}
		meta, err := decodeMeta(item)
		if err != nil {
			return err
		}
		order, ok := meta.order()
		if !ok {
			return fmt.Errorf("after_request_id: the capture API gave request %s no sorting number, so what came after it cannot be told; call without after_request_id", afterID)
		}
		w.cursor = order
		return nil
	}
	if cursor, ok := w.h.seen.last(w.id); ok {
		w.cursor = cursor
		return nil
	}
	// The service's sorting number is microseconds since the epoch.
	w.cursor = w.start.Add(-since).UnixMicro()
	return nil
}

// wait polls until a request after the cursor arrives or the limit
// passes, and reports whether one did. The last poll is at the limit, so a
// request captured during the last pause is still returned; on the wall
// clock it runs under the call's own context with a short bound of its
// own, since waitCtx has expired by then. A rate limit or a gateway error
// slows the pace instead of ending the wait.
func (w *waiter) wait(callCtx, waitCtx context.Context) (listedRequest, bool, error) {
	w.interval = firstPollInterval
	deadline := w.start.Add(w.limit)
	ctx, last := waitCtx, false
	polled := false // a poll has been answered: the API is there
	for {
		// Taken before the poll: a push during it wakes the pause after.
		signal, seq := w.push.signal()
		w.observe()
		found, partial, err := w.h.afterCursor(ctx, w.key, w.id, w.cursor, w.query, 1)
		limitFell := err != nil && polled && !last && ctx.Err() == context.DeadlineExceeded
		if err != nil && polled && last {
			// The poll at the limit failed after others were answered:
			// the wait timed out.
			return listedRequest{}, false, nil
		}
		polled = polled || err == nil
		var status *hooksvc.StatusError
		// The pace slows by a quarter after each empty poll.
		pause, next := w.interval, min(w.interval*5/4, maxPollInterval)
		switch {
		case limitFell:
			// The real-time limit fell during a poll: the poll at the
			// limit follows.
		case err == nil && len(found) > 0:
			w.partial = partial
			return found[0], true, nil
		case errors.As(err, &status) && status.Transient():
			pause = 2 * w.interval
			if status.Asked {
				pause = max(pause, status.Wait)
			}
			pause = min(pause, time.Minute)
			next = pause
			w.h.logger.Info("wait_for_request slowing down", "token", w.id, "status", status.Status, "pause", pause)
		case err != nil:
			return listedRequest{}, false, err
		}
		if last {
			return listedRequest{}, false, nil
		}
		// The push wakes the wait; polls are its safety net, at the
		// slowest pace. The end of this live state wakes it too, read from
		// the state seen here: the watch's own wake-up may miss a socket
		// that is live only for an instant (one that drops as it opens).
		var changed <-chan struct{}
		if live, ch := w.push.live(); live {
			pause, changed = max(pause, maxPollInterval), ch
		}
		w.pushed = false
		if left := deadline.Sub(w.h.now()); left > 0 && !limitFell {
			woken, err := w.sleep(ctx, min(pause, left), signal, changed, seq)
			switch {
			case woken:
				// Poll now, at the same pace; on a token flooded with
				// captures, no faster than the push budget allows.
				if wait := w.pushPoll(); wait > 0 {
					if err := w.h.pause(ctx, min(wait, deadline.Sub(w.h.now()))); err != nil && ctx.Err() != context.DeadlineExceeded {
						return listedRequest{}, false, err
					}
				}
				continue
			case err != nil && ctx.Err() != context.DeadlineExceeded:
				return listedRequest{}, false, err
			case err == nil && pause < left:
				w.progress(ctx)
				w.interval = next
				continue
			}
		}
		ctx, last = callCtx, true
		if w.h.realClock {
			// The call does not outlast timeout_seconds by much.
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(callCtx, maxPollInterval)
			defer cancel()
		}
	}
}

// progress tells a client that asked for progress how long the wait has
// gone on, from 0 when it starts watching. A client that cannot take it
// does not end the wait.
func (w *waiter) progress(ctx context.Context) {
	token := w.req.Params.GetProgressToken()
	if token == nil || w.req.Session == nil {
		return
	}
	elapsed := w.h.now().Sub(w.start)
	err := w.req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
		ProgressToken: token,
		Progress:      elapsed.Seconds(),
		Total:         w.limit.Seconds(),
		Message:       fmt.Sprintf("waiting for a request to %s: %d of %d s", w.h.client.CaptureURL(w.id), int(elapsed.Seconds()), int(w.limit.Seconds())),
	})
	if err != nil {
		w.h.logger.Debug("progress notification not sent", "error", err)
	}
}
