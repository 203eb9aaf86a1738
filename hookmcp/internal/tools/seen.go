package tools

import (
	"cmp"
	"container/list"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"sync"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
)

// maxSeenTokens bounds the seen memory: past it, the token used least
// recently is forgotten, and a wait on it starts from the recent window.
const maxSeenTokens = 10_000

// seenCursors remembers, per token, the newest request (by the service's
// sorting cursor) that any call of this server returned or listed, so that
// wait_for_request starts right after what the assistant last saw. It is
// per server process and bounded (least recently used tokens go first).
type seenCursors struct {
	mu    sync.Mutex
	limit int
	order *list.List                        // of *seenEntry, most recently used first
	byID  map[hooksvc.TokenID]*list.Element // token id -> its element in order
	// claimed holds the ids send_test_request has named, oldest first in
	// claimOrder, so that two sends of this server never name the same
	// request. Bounded like the cursors.
	claimed    map[hooksvc.RequestID]struct{}
	claimOrder []hooksvc.RequestID
}

type seenEntry struct {
	token  hooksvc.TokenID
	cursor int64
}

func newSeenCursors(limit int) *seenCursors {
	return &seenCursors{limit: limit, order: list.New(), byID: map[hooksvc.TokenID]*list.Element{}, claimed: map[hooksvc.RequestID]struct{}{}}
}

// claim records that a send_test_request named requestID, and reports
// false when another one of this server already had.
func (s *seenCursors) claim(requestID hooksvc.RequestID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.claimed[requestID]; ok {
		return false
	}
	s.claimed[requestID] = struct{}{}
	s.claimOrder = append(s.claimOrder, requestID)
	if len(s.claimOrder) > s.limit {
		delete(s.claimed, s.claimOrder[0])
		s.claimOrder = s.claimOrder[1:]
	}
	return true
}

// see records that a request at cursor was shown for token; the memory
// only moves forward.
func (s *seenCursors) see(token hooksvc.TokenID, cursor int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.byID[token]; ok {
		e := el.Value.(*seenEntry)
		e.cursor = max(e.cursor, cursor)
		s.order.MoveToFront(el)
		return
	}
	s.byID[token] = s.order.PushFront(&seenEntry{token: token, cursor: cursor})
	for s.order.Len() > s.limit {
		oldest := s.order.Back()
		s.order.Remove(oldest)
		delete(s.byID, oldest.Value.(*seenEntry).token)
	}
}

// last returns the newest cursor seen for token.
func (s *seenCursors) last(token hooksvc.TokenID) (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	el, ok := s.byID[token]
	if !ok {
		return 0, false
	}
	s.order.MoveToFront(el)
	return el.Value.(*seenEntry).cursor, true
}

// seeMeta records a request shown for token, when it has a cursor.
func (h *handlers) seeMeta(token hooksvc.TokenID, meta requestMeta) {
	if order, ok := meta.order(); ok {
		h.seen.see(token, order)
	}
}

// cursorQuery is the API's query for requests captured after cursor,
// within the filter q when there is one.
func cursorQuery(cursor int64, q string) string {
	after := "sorting:>" + strconv.FormatInt(cursor, 10)
	if q == "" {
		return after
	}
	return after + " AND (" + q + ")"
}

// listedRequest is a request as a listing shows it: its metadata, and its
// raw body when the listing carries one (send_test_request matches on it).
type listedRequest struct {
	requestMeta
	content *string
}

func decodeListed(item json.RawMessage) (listedRequest, error) {
	meta, err := decodeMeta(item)
	if err != nil {
		return listedRequest{}, err
	}
	var body struct {
		Content *string `json:"content"`
	}
	// A content that is not a string is treated as absent: matching on
	// it is a refinement, not a requirement.
	_ = json.Unmarshal(item, &body)
	return listedRequest{requestMeta: meta, content: body.Content}, nil
}

// afterCursor returns up to n of the token's requests captured after
// cursor that match q, oldest first. It asks the service for them by the
// cursor; a service that ignores the filter (the open-source server) shows
// it by answering with a request at or before the cursor, and is then read
// newest first down to the cursor instead. partial is true when that walk
// stopped at its page cap before reaching the cursor: older requests after
// the cursor may remain unread.
func (h *handlers) afterCursor(ctx context.Context, key string, id hooksvc.TokenID, cursor int64, q string, n int) (found []listedRequest, partial bool, err error) {
	// A page of at least pollPerPage, put in order here: a service that
	// answers newest first despite sorting=oldest still yields the oldest
	// of the page, not the newest.
	size := max(n, pollPerPage)
	query := url.Values{"sorting": {"oldest"}, "per_page": {strconv.Itoa(size)}, "page": {"1"}, "query": {cursorQuery(cursor, q)}}
	listing, err := h.client.PollRequests(ctx, key, id, query)
	if err != nil {
		return nil, false, err
	}
	var out []listedRequest
	for _, item := range listing.Data {
		meta, err := decodeListed(item)
		if err != nil {
			return nil, false, err
		}
		order, ok := meta.order()
		if !ok {
			return nil, false, fmt.Errorf("the capture API sent request %s without a sorting number, so the requests after another cannot be told apart", meta.UUID)
		}
		if order <= cursor {
			if q != "" {
				// Callers refuse a query on a server that ignores filters
				// before asking; this is a server that changed its mind.
				return nil, false, fmt.Errorf("the capture API ignored the query filter")
			}
			return h.afterCursorNewestFirst(ctx, key, id, cursor, n)
		}
		out = append(out, meta)
	}
	inOrder := slices.IsSortedFunc(out, byOrder)
	slices.SortStableFunc(out, byOrder)
	// A full page that came newest first may have older ones after it.
	partial = !inOrder && len(listing.Data) >= size && !listing.IsLastPage
	return out[:min(n, len(out))], partial, nil
}

// byOrder orders requests by the service's sorting cursor, oldest first.
func byOrder(a, b listedRequest) int {
	x, _ := a.order()
	y, _ := b.order()
	return cmp.Compare(x, y)
}

// afterCursorNewestFirst reads newest first, page by page, down to cursor
// (at most maxCatchUpPages pages) and returns the oldest n after it that
// it read, and whether the cap stopped it before the cursor.
func (h *handlers) afterCursorNewestFirst(ctx context.Context, key string, id hooksvc.TokenID, cursor int64, n int) ([]listedRequest, bool, error) {
	var newer []listedRequest // newest first
	for page := 1; page <= maxCatchUpPages; page++ {
		query := url.Values{"sorting": {"newest"}, "per_page": {strconv.Itoa(pollPerPage)}, "page": {strconv.Itoa(page)}}
		listing, err := h.client.PollRequests(ctx, key, id, query)
		if err != nil {
			return nil, false, err
		}
		for _, item := range listing.Data {
			meta, err := decodeListed(item)
			if err != nil {
				return nil, false, err
			}
			if order, ok := meta.order(); !ok || order <= cursor {
				return oldestN(newer, n), false, nil
			}
			newer = append(newer, meta)
		}
		if listing.IsLastPage || len(listing.Data) < pollPerPage {
			return oldestN(newer, n), false, nil
		}
	}
	return oldestN(newer, n), true, nil
}

// oldestN returns the last n of a newest-first list, oldest first.
func oldestN(newer []listedRequest, n int) []listedRequest {
	out := make([]listedRequest, 0, min(n, len(newer)))
	for i := len(newer) - 1; i >= 0 && len(out) < n; i-- {
		out = append(out, newer[i])
	}
	return out
}

// newestCursor returns the sorting cursor of the token's newest request,
// and false when it has none.
func (h *handlers) newestCursor(ctx context.Context, key string, id hooksvc.TokenID) (int64, bool, error) {
	item, ok, err := h.client.LatestRequest(ctx, key, id)
	if err != nil || !ok {
		return 0, false, err
	}
	meta, err := decodeMeta(item)
	if err != nil {
		return 0, false, err
	}
	order, ok := meta.order()
	if !ok {
		return 0, false, fmt.Errorf("the capture API sent request %s without a sorting number", meta.UUID)
	}
	return order, true, nil
}
