package tools

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
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
	Query          string   `json:"query,omitempty" jsonschema:"wait for a match of this list_requests filter (hosted service only)"`
	AfterRequestID string   `json:"after_request_id,omitempty" jsonschema:"return the first request captured after this one: the newest id seen before triggering the sender"`
}

var waitSeconds = mcptool.Whole{Min: 1, Max: 300, Default: 60}

// Polling pace: a capture is seen about a second after it lands at first,
// then the pace slows to at most one listing every maxPollInterval, far
// under the hosted API's 120 listings a minute per key.
const (
	firstPollInterval = time.Second
	maxPollInterval   = 5 * time.Second
	// pollPerPage is the listing size of a poll: enough to see a burst.
	pollPerPage = 10
	// maxCatchUpPages bounds the pages read back when more requests than a
	// poll's page arrived since the last one.
	maxCatchUpPages = 10
)

func (h *handlers) waitForRequestTool() mcptool.Tool[WaitForRequestArgs, RequestResult] {
	return mcptool.Tool[WaitForRequestArgs, RequestResult]{
		Name:  "wait_for_request",
		Title: "Wait for the next captured request",
		Description: "Wait for the token's next request and return it as get_latest_request does: the first captured after this call starts (or after after_request_id) that matches query. " +
			"Trigger the sender, wait, inspect. When none arrives in time: captured: false, with the capture URL to send to.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(true)},
		AdjustInput: func(s *jsonschema.Schema) {
			adjustTokenArg(s)
			waitSeconds.Schema(s.Properties["timeout_seconds"])
			s.Properties["after_request_id"].Format = "uuid"
		},
		AdjustOutput: adjustRequestResult,
		Verbatim:     []string{"body", "note"},
		Handle:       h.waitForRequest,
	}
}

// boundary is the last request not to return: requests captured after it
// are awaited. Its zero value lets every request through.
type boundary struct {
	uuid      string
	order     int64
	hasOrder  bool
	createdAt string
}

func boundaryOf(meta requestMeta) boundary {
	order, ok := meta.order()
	return boundary{uuid: meta.UUID, order: order, hasOrder: ok, createdAt: meta.CreatedAt}
}

// before reports whether meta was captured after b. Listings run newest
// first, so the first request that is not stops a walk. The API's sorting
// number orders captures finer than a second; without it the capture
// second decides, a request of b's own second counting as later.
func (b boundary) before(meta requestMeta) bool {
	if b.uuid == "" {
		return true
	}
	if meta.UUID == b.uuid {
		return false
	}
	if order, ok := meta.order(); ok && b.hasOrder {
		return order > b.order
	}
	return meta.CreatedAt >= b.createdAt
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
	if args.AfterRequestID != "" && !hooksvc.UUIDPattern.MatchString(args.AfterRequestID) {
		return nil, RequestResult{}, fmt.Errorf("after_request_id must be a request UUID such as %s; got %q. get_latest_request or list_requests gives the ids", hooksvc.ExampleUUID, truncate(args.AfterRequestID, 100))
	}
	start := time.Now()
	limit := time.Duration(seconds) * time.Second
	waitCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	w := &waiter{h: h, id: id, key: key, query: args.Query, req: req, start: start, limit: limit}
	if err := w.begin(waitCtx, args.AfterRequestID); err != nil {
		return nil, RequestResult{}, err
	}
	// The first notification tells the client the wait is watching: a
	// request captured from now on will be returned.
	w.progress(waitCtx)
	meta, err := w.wait(waitCtx, args.AfterRequestID != "")
	switch {
	case ctx.Err() != nil:
		h.logger.Info("wait_for_request stopped: the call was cancelled", "token", id, "waited", time.Since(start).Round(time.Millisecond))
		return nil, RequestResult{}, fmt.Errorf("wait_for_request was cancelled after %s", time.Since(start).Round(time.Second))
	case waitCtx.Err() != nil:
		captureURL := h.client.CaptureURL(id)
		what := "No request"
		if args.Query != "" {
			what = fmt.Sprintf("No request matching %q", truncate(args.Query, 100))
		}
		note := fmt.Sprintf("%s arrived at token %s within %d seconds. Send one to %s (send_test_request does), or trigger the sender, then wait again.", what, id, seconds, captureURL)
		res, out := nothingCaptured(id, captureURL, note)
		out.Waited = float64(seconds)
		return res, out, nil
	case err != nil:
		return nil, RequestResult{}, err
	}
	// The body is read under the call's own context: the request is there,
	// and the wait's limit should not cut its reading short.
	out, err := h.requestResult(ctx, key, id, meta)
	if err != nil {
		return nil, RequestResult{}, err
	}
	out.Waited = time.Since(start).Round(100 * time.Millisecond).Seconds()
	return mcptool.Text(requestText("New request", out)...), out, nil
}

// waiter is one wait_for_request call in progress.
type waiter struct {
	h        *handlers
	id, key  string
	query    string
	req      *mcp.CallToolRequest
	start    time.Time
	limit    time.Duration
	after    boundary
	interval time.Duration
}

// begin fixes the boundary: the request after_request_id names, else the
// newest request when the call starts. With a query, it first proves the
// server applies filters: on one that ignores them, the first request of
// any kind would come back as a match.
func (w *waiter) begin(ctx context.Context, afterID string) error {
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
		item, err := w.h.client.GetRequest(ctx, w.key, w.id, afterID)
		if err != nil {
			return fmt.Errorf("after_request_id: %w", err)
		}
		meta, err := decodeMeta(item)
		if err != nil {
			return err
		}
		meta.UUID = afterID
		w.after = boundaryOf(meta)
		return nil
	}
	page, err := w.h.client.ListRequests(ctx, w.key, w.id, url.Values{"sorting": {"newest"}, "per_page": {"1"}, "page": {"1"}})
	if err != nil {
		return err
	}
	if len(page.Data) > 0 {
		meta, err := decodeMeta(page.Data[0])
		if err != nil {
			return err
		}
		w.after = boundaryOf(meta)
	}
	return nil
}

// wait polls until a request after the boundary arrives, or ctx ends. A
// rate limit or a gateway error slows the pace instead of ending the wait.
func (w *waiter) wait(ctx context.Context, pollFirst bool) (requestMeta, error) {
	w.interval = firstPollInterval
	if !pollFirst {
		if err := hooksvc.Sleep(ctx, w.interval); err != nil {
			return requestMeta{}, err
		}
	}
	for {
		meta, found, err := w.poll(ctx)
		var status *hooksvc.StatusError
		switch {
		case found:
			return meta, nil
		case errors.As(err, &status) && status.Transient():
			pause := 2 * w.interval
			if status.Asked {
				pause = max(pause, status.Wait)
			}
			w.h.logger.Info("wait_for_request slowing down", "token", w.id, "status", status.Status, "pause", pause)
			w.interval = min(pause, time.Minute)
		case err != nil:
			return requestMeta{}, err
		default:
			w.interval = min(w.interval*5/4, maxPollInterval)
		}
		w.progress(ctx)
		if err := hooksvc.Sleep(ctx, w.interval); err != nil {
			return requestMeta{}, err
		}
	}
}

// poll lists the newest requests matching the query and returns the
// oldest one after the boundary, reading further pages while a whole page
// is newer than it.
func (w *waiter) poll(ctx context.Context) (requestMeta, bool, error) {
	var oldest requestMeta
	found := false
	for page := 1; page <= maxCatchUpPages; page++ {
		query := url.Values{"sorting": {"newest"}, "per_page": {strconv.Itoa(pollPerPage)}, "page": {strconv.Itoa(page)}}
		if w.query != "" {
			query.Set("query", w.query)
		}
		listing, err := w.h.client.PollRequests(ctx, w.key, w.id, query)
		if err != nil {
			if found {
				return oldest, true, nil
			}
			return requestMeta{}, false, err
		}
		for _, item := range listing.Data {
			meta, err := decodeMeta(item)
			if err != nil {
				return requestMeta{}, false, err
			}
			if !w.after.before(meta) {
				return oldest, found, nil
			}
			oldest, found = meta, true
		}
		if listing.IsLastPage || len(listing.Data) < pollPerPage {
			break
		}
	}
	return oldest, found, nil
}

// progress tells a client that asked for progress how long the wait has
// gone on, from 0 when it starts watching. A client that cannot take it
// does not end the wait.
func (w *waiter) progress(ctx context.Context) {
	token := w.req.Params.GetProgressToken()
	if token == nil || w.req.Session == nil {
		return
	}
	elapsed := time.Since(w.start)
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
