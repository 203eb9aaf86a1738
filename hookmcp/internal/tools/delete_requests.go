package tools

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// DeleteRequestsArgs are delete_requests' arguments.
type DeleteRequestsArgs struct {
	TokenArg
	DateFrom string `json:"date_from,omitempty" jsonschema:"delete those captured at or after"`
	DateTo   string `json:"date_to,omitempty" jsonschema:"delete those captured at or before (now-7d: older than a week)"`
	Query    string `json:"query,omitempty" jsonschema:"delete those matching this list_requests filter"`
	// All is the only way to ask for every request: never the absence of
	// filters, which a client may drop or blank.
	All bool `json:"all,omitempty"`
}

// DeleteRequestsResult is delete_requests' result.
type DeleteRequestsResult struct {
	TokenID  string `json:"token_id"`
	Scope    string `json:"scope" jsonschema:"all, or matching when a filter was given"`
	DateFrom string `json:"date_from,omitempty" jsonschema:"delete those captured at or after"`
	DateTo   string `json:"date_to,omitempty" jsonschema:"delete those captured at or before (now-7d: older than a week)"`
	Query    string `json:"query,omitempty"`
	Matched  *int   `json:"matched,omitempty" jsonschema:"with a filter: how many requests it matched just before the delete"`
	Message  string `json:"message" jsonschema:"what was asked to be deleted"`
}

func (h *handlers) deleteRequestsTool() mcptool.Tool[DeleteRequestsArgs, DeleteRequestsResult] {
	return mcptool.Tool[DeleteRequestsArgs, DeleteRequestsResult]{
		Name:  "delete_requests",
		Title: "Delete captured requests",
		Description: "Delete a token's requests that match date_from, date_to and query, or with all: true (alone) every one; the token stays. " +
			"Cannot be undone: confirm with the user; preview with list_requests and the same filters. A blank filter, or one the server cannot apply, is refused and nothing is deleted.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(true)},
		AdjustInput: func(s *jsonschema.Schema) {
			adjustTokenArg(s)
			adjustDates(s)
			s.Properties["query"].MinLength = ptr(1)
		},
		AdjustOutput: func(s *jsonschema.Schema) {
			s.Properties["scope"].Enum = []any{"all", "matching"}
		},
		Verbatim: []string{"message"},
		Handle:   h.deleteRequests,
	}
}

func (h *handlers) deleteRequests(ctx context.Context, req *mcp.CallToolRequest, args DeleteRequestsArgs) (*mcp.CallToolResult, DeleteRequestsResult, error) {
	// The scope is settled before anything is sent: a filter given is a
	// filter, and only all: true, alone, asks for everything.
	if err := blankFilter(givenArgs(req), "nothing was deleted: to delete every request, pass all: true and no filter"); err != nil {
		return nil, DeleteRequestsResult{}, err
	}
	filtered := args.DateFrom != "" || args.DateTo != "" || args.Query != ""
	switch {
	case args.All && filtered:
		return nil, DeleteRequestsResult{}, fmt.Errorf("all: true deletes every request of the token, so it takes no date_from, date_to or query: pass all: true alone, or the filters without it; nothing was deleted")
	case !args.All && !filtered:
		return nil, DeleteRequestsResult{}, fmt.Errorf("delete_requests needs a filter (date_from, date_to or query), or all: true to delete every request of the token; nothing was deleted")
	}
	id, key, err := h.access(args.TokenID, args.APIKey)
	if err != nil {
		return nil, DeleteRequestsResult{}, err
	}
	from, to, err := resolveDates(args.DateFrom, args.DateTo, time.Now())
	if err != nil {
		return nil, DeleteRequestsResult{}, err
	}
	if args.Query != "" && matchesAll(args.Query) {
		return nil, DeleteRequestsResult{}, fmt.Errorf("query %s selects every request (only wildcards, quotes and operators), so it was refused and nothing was deleted: "+
			"to delete every request, pass all: true and no filter; to delete some, give a query with a term to match, such as method:POST", hooksvc.Quote(args.Query))
	}
	query := url.Values{}
	var filters []string
	if from != "" {
		query.Set("date_from", from)
		filters = append(filters, "captured at or after "+from+" UTC")
	}
	if to != "" {
		query.Set("date_to", to)
		filters = append(filters, "captured at or before "+to+" UTC")
	}
	if args.Query != "" {
		query.Set("query", args.Query)
		filters = append(filters, "matching the query "+hooksvc.Quote(args.Query))
	}
	out := DeleteRequestsResult{TokenID: string(id), Scope: "all", DateFrom: from, DateTo: to, Query: args.Query}
	// The user's yes is for the call as given: now-1h stays now-1h.
	binding := []string{string(id), strconv.FormatBool(args.All), args.DateFrom, args.DateTo, args.Query}
	if len(filters) == 0 {
		err := h.confirmDelete(ctx, req, "deleting every request of token "+string(id), binding, key, func(ctx context.Context) (string, error) {
			n, err := h.count(ctx, key, id, nil)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("The assistant asks to delete every request captured by token %s: %s now. The token itself stays. This cannot be undone.\n\nDelete them all?", id, requestsCount(n)), nil
		}, nil)
		if err != nil {
			return nil, DeleteRequestsResult{}, err
		}
		none, err := h.client.DeleteRequests(ctx, key, id, query)
		if err != nil {
			return nil, DeleteRequestsResult{}, err
		}
		out.Message = fmt.Sprintf("Asked the API to delete all requests of token %s; it accepted. The token itself remains.", id)
		if none {
			out.Message = fmt.Sprintf("Token %s had no requests to delete: the API answered that it deleted nothing (0 deleted). The token itself remains.", id)
		}
		return mcptool.Text(out.Message), out, nil
	}
	out.Scope = "matching"
	matched, err := h.provenFilteredCount(ctx, key, id, query, filterKinds{query: args.Query != "", dateFrom: from != "", dateTo: to != ""})
	if err != nil {
		return nil, DeleteRequestsResult{}, err
	}
	out.Matched = &matched
	if matched == 0 {
		out.Message = fmt.Sprintf("No request of token %s is %s, so nothing was deleted.", id, strings.Join(filters, " and "))
		return mcptool.Text(out.Message), out, nil
	}
	if matched > maxUnconfirmedDelete {
		// The count shown is part of what the user agrees to: an answer
		// given for 150 does not delete 500 (the call is asked again).
		binding := append(binding, strconv.Itoa(matched))
		err := h.confirmDelete(ctx, req, fmt.Sprintf("deleting %d requests of token %s", matched, id), binding, key, func(context.Context) (string, error) {
			// The filter the user agrees to is shown whole, not cut as an
			// error quotes it.
			shown := filters
			if args.Query != "" {
				shown = append(filters[:len(filters)-1:len(filters)-1], "matching the query "+shownQuery(args.Query))
			}
			return fmt.Sprintf("The assistant asks to delete the %d requests of token %s %s: more than one preview (%d) can show. Other requests and the token stay. This cannot be undone.\n\nDelete them?",
				matched, id, strings.Join(shown, " and "), maxUnconfirmedDelete), nil
		}, func(ctx context.Context) error {
			// While the user read, requests may have arrived that the
			// filter matches: no more are deleted than the user was shown.
			now, err := h.count(ctx, key, id, query)
			if err != nil {
				return err
			}
			if now > matched {
				return fmt.Errorf("the filter matched %d requests of token %s when the user was asked and matches %d now, more than the user agreed to delete, so nothing was deleted: "+
					"call again to ask the user about what matches now", matched, id, now)
			}
			return nil
		})
		if err != nil {
			return nil, DeleteRequestsResult{}, err
		}
	}
	none, err := h.client.DeleteRequests(ctx, key, id, query)
	if err != nil {
		return nil, DeleteRequestsResult{}, err
	}
	out.Message = fmt.Sprintf("Asked the API to delete the requests of token %s %s (%d matched just before); it accepted. Other requests and the token remain.", id, strings.Join(filters, " and "), matched)
	if none {
		out.Message = fmt.Sprintf("The API answered that it deleted nothing (0 deleted) of the requests of token %s %s, though %d matched just before; they may have been deleted meanwhile. Other requests and the token remain.",
			id, strings.Join(filters, " and "), matched)
	}
	return mcptool.Text(out.Message), out, nil
}

// provenFilteredCount returns how many requests query matches, after proving
// that the server applies every kind of filter in it; a server that does not
// gets an error and no delete.
func (h *handlers) provenFilteredCount(ctx context.Context, key string, id hooksvc.TokenID, query url.Values, kinds filterKinds) (int, error) {
	total, err := h.count(ctx, key, id, nil)
	if err != nil || total == 0 {
		return 0, err
	}
	ignored, err := h.ignoredFilters(ctx, key, id, kinds)
	if err != nil {
		return 0, err
	}
	if len(ignored) > 0 {
		return 0, fmt.Errorf("the capture API at %s does not apply the %s filter (asked for requests matching a filter that can match none, it listed the token's requests), "+
			"so a filtered delete there would delete every request of the token: nothing was deleted. The open-source webhook.site behaves this way. "+
			"To delete every request, pass all: true and no filter; to keep some, leave them", httpx.DisplayURL(h.cfg.APIURL), strings.Join(ignored, " and "))
	}
	matched, err := h.count(ctx, key, id, query)
	if err != nil {
		return 0, err
	}
	// A query can select everything while holding words (NOT x, method:*,
	// _exists_:uuid, created_at:[* TO *]), and dates can span every
	// request: whatever its spelling, a filter that matches every request
	// deletes as all: true does, so it must be asked for as that.
	if matched >= total {
		return 0, fmt.Errorf("this filter matches every request of token %s (%d of %d), so nothing was deleted: to delete them all pass all: true (alone, without filters); "+
			"to delete some, give a filter that leaves the others out (preview it with list_requests)", id, matched, total)
	}
	return matched, nil
}

// maxShownQuery bounds the query the confirmation shows, within
// mcptool.MaxConfirmMessage.
const maxShownQuery = 3000

// shownQuery is the query quoted for the person who confirms the delete:
// whole up to maxShownQuery bytes, past it cut, saying how much more there
// is (the count the user agrees to is still the count deleted).
func shownQuery(q string) string {
	quoted := strconv.Quote(q)
	if len(quoted) <= maxShownQuery {
		return quoted
	}
	cut := maxShownQuery
	for cut > 0 && !utf8.RuneStart(quoted[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes more; the whole query is in the tool call's arguments)", quoted[:cut], len(quoted)-cut)
}
