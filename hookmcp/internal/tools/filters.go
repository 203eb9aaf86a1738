package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
)

// A filtered delete must never delete more than its filter says. Two things
// can make it: a filter the API reads as "everything" (a blank query, a lone
// wildcard), and a server that ignores filters altogether (the open-source
// webhook.site, which hookmcp supports through HOOKSVC_API_URL, deletes every
// request whatever date_from, date_to and query say). The first is refused
// by reading the query; the second by asking the server a question whose
// right answer is "none" before anything is deleted.

// matchesAll reports a query that selects every request: blank, or made only
// of wildcards, quotes, parentheses, field separators and boolean operators,
// with no term left to match.
func matchesAll(query string) bool {
	rest := strings.NewReplacer(`"`, " ", `'`, " ", "(", " ", ")", " ", "*", " ", ":", " ", "&&", " ", "||", " ", "!", " ", "?", " ").Replace(query)
	for _, word := range strings.Fields(rest) {
		switch word {
		case "AND", "OR", "NOT", "TO", "_exists_", "+", "-":
			continue
		}
		return false
	}
	return true
}

// filterArgs are the filters of list_requests and delete_requests.
var filterArgs = []string{"date_from", "date_to", "query"}

// blankFilter refuses a filter given empty or blank: a filter that is given
// is a filter, and an empty one would otherwise read as left out, which
// selects every request. What the call did not do is said by done.
func blankFilter(g given, done string) error {
	for _, name := range filterArgs {
		if g.blank(name) {
			return fmt.Errorf("%s is empty: a filter that is given must have a value (an empty one would select every request), so it was refused; give it a value or leave it out; %s", name, done)
		}
	}
	return nil
}

// filterKinds groups the filters of a call by what the server must apply:
// the query, date_from and date_to. Each date is probed alone: a server may
// apply one and ignore the other.
type filterKinds struct {
	query    bool
	dateFrom bool
	dateTo   bool
}

// used reports whether a filter is in use.
func (k filterKinds) used() bool { return k.query || k.dateFrom || k.dateTo }

// neverMatching returns, for each kind of filter in use, a filter of that
// kind alone that no request can match: a random word, which no body holds,
// a date_to before the service existed, and a date_from centuries ahead.
func (k filterKinds) neverMatching() map[string]url.Values {
	probes := map[string]url.Values{}
	if k.query {
		var b [8]byte
		_, _ = rand.Read(b[:])
		probes["query"] = url.Values{"query": {"hookmcpprobe" + hex.EncodeToString(b[:])}}
	}
	if k.dateFrom {
		probes["date_from"] = url.Values{"date_from": {"2999-01-01 00:00:00"}}
	}
	if k.dateTo {
		probes["date_to"] = url.Values{"date_to": {"1970-01-01 00:00:00"}}
	}
	return probes
}

// ignoredFilters asks the server, for each kind of filter in use, to list
// what a never-matching filter of that kind selects. A server that applies
// the filter answers total 0; one that ignores it answers with the token's
// requests. It returns the kinds the server ignores, or an error when it
// could not be asked.
func (h *handlers) ignoredFilters(ctx context.Context, key string, id hooksvc.TokenID, kinds filterKinds) ([]string, error) {
	var ignored []string
	for kind, filter := range kinds.neverMatching() {
		filter.Set("per_page", "1")
		filter.Set("page", "1")
		page, err := h.client.ListRequests(ctx, key, id, filter)
		if err != nil {
			return nil, fmt.Errorf("checking that the capture API applies the %s filter: %w", kind, err)
		}
		if page.Total > 0 || len(page.Data) > 0 {
			ignored = append(ignored, kind)
		}
	}
	slices.Sort(ignored)
	return ignored, nil
}

// count returns how many of a token's requests match query (all of them when
// it has no filter).
func (h *handlers) count(ctx context.Context, key string, id hooksvc.TokenID, query url.Values) (int, error) {
	q := url.Values{"per_page": {"1"}, "page": {"1"}}
	maps.Copy(q, query)
	page, err := h.client.ListRequests(ctx, key, id, q)
	if err != nil {
		return 0, err
	}
	return page.Total, nil
}
