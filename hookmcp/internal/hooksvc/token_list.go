package hooksvc

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// maxListedTokens bounds the account's token list read for completions:
// one page, as a person picks from the first few anyway.
const maxListedTokens = 100

// ListTokens returns the ids of the first tokens of the account key belongs
// to (GET /token, the hosted service's only; one page of up to
// maxListedTokens). It needs a key: without one there is no account.
// Entries without a UUID are skipped, not refused: the list only offers
// names to complete.
func (cl *Client) ListTokens(ctx context.Context, key string) ([]TokenID, error) {
	query := url.Values{"per_page": {strconv.Itoa(maxListedTokens)}, "page": {"1"}}
	resp, err := cl.Do(ctx, Call{Method: http.MethodGet, Path: "/token", Query: query, Key: key, Doing: "Listing the account's tokens", expect: expectPage})
	if err != nil {
		return nil, err
	}
	page, err := DecodePage(resp.Body)
	if err != nil {
		return nil, err
	}
	ids := make([]TokenID, 0, min(len(page.Data), maxListedTokens))
	for _, item := range page.Data[:min(len(page.Data), maxListedTokens)] {
		var t struct {
			UUID string `json:"uuid"`
		}
		if json.Unmarshal(item, &t) == nil && UUIDPattern.MatchString(t.UUID) {
			// Lowercase, as every id the server names: a prefix
			// typed in either case completes it.
			ids = append(ids, TokenID(strings.ToLower(t.UUID)))
		}
	}
	return ids, nil
}
