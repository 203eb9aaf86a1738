package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/shared/jsonx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// ListRequestsArgs are list_requests' arguments.
type ListRequestsArgs struct {
	TokenArg
	Sorting  string   `json:"sorting,omitempty"`
	PerPage  *float64 `json:"per_page,omitempty"`
	Page     *float64 `json:"page,omitempty"`
	DateFrom string   `json:"date_from,omitempty" jsonschema:"captured at or after (UTC, or now-30m, now-7d)"`
	DateTo   string   `json:"date_to,omitempty" jsonschema:"captured at or before"`
	Query    string   `json:"query,omitempty" jsonschema:"Elasticsearch query-string filter: a bare word searches bodies; method:POST, type:email, headers.user-agent:\"curl/8.0\", query.action:create, AND, OR, NOT; quote values with -"`
}

// ListRequestsResult is the API's page envelope, plus a note when the page
// was cut to fit.
type ListRequestsResult struct {
	Data        []map[string]any `json:"data" jsonschema:"the requests, each as the API returns it (uuid, type, method, url, headers, query, content, ip, created_at, ...)"`
	Total       int              `json:"total" jsonschema:"requests matching, over all pages"`
	PerPage     int              `json:"per_page"`
	CurrentPage int              `json:"current_page"`
	IsLastPage  bool             `json:"is_last_page"`
	From        int              `json:"from"`
	To          int              `json:"to"`
	Note        string           `json:"note,omitempty" jsonschema:"present when the page was cut to fit (how many requests were left out and how to read them), or when the server ignored the filters"`
	// FiltersIgnored is set when the server was shown to ignore the
	// filters given, so the page holds unfiltered requests.
	FiltersIgnored bool `json:"filters_ignored,omitempty" jsonschema:"true when the server does not apply date_from, date_to or query (the open-source webhook.site): the page is unfiltered"`
}

// The rules of the paging arguments. The defaults differ from the API's own:
// an assistant nearly always wants the newest requests first.
var (
	sortings = mcptool.Enum{"newest", "oldest"}
	perPage  = mcptool.Whole{Min: 1, Max: 100, Default: 50}
	// page has a largest value, as every whole number here does, so that
	// no number a client sends is converted to an int beyond its range
	// (9223372036854775808 would become a negative page).
	pageNumber = mcptool.Whole{Min: 1, Max: 100_000, Default: 1}
)

// maxResultBytes is the largest list_requests result: more would crowd an
// assistant's context.
const maxResultBytes = 100_000

func (h *handlers) listRequestsTool() mcptool.Tool[ListRequestsArgs, mcptool.Document[ListRequestsResult]] {
	return mcptool.Tool[ListRequestsArgs, mcptool.Document[ListRequestsResult]]{
		Name:  "list_requests",
		Title: "List captured requests",
		Description: "List a token's captured requests (web, email, DNS), a page at a time: data, total, current_page, is_last_page. " +
			"A page over 100,000 bytes is cut at a whole request, with a note on reading the rest.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(true)},
		AdjustInput: func(s *jsonschema.Schema) {
			adjustTokenArg(s)
			adjustDates(s)
			s.Properties["query"].MinLength = ptr(1)
			sortings.Schema(s.Properties["sorting"])
			perPage.Schema(s.Properties["per_page"])
			pageNumber.Schema(s.Properties["page"])
		},
		AdjustOutput: func(s *jsonschema.Schema) {
			s.AdditionalProperties = nil // the API may add members
			// Never null: fitPage writes [] for an empty page.
			data := s.Properties["data"].AnyOf[0]
			data.Description = s.Properties["data"].Description
			s.Properties["data"] = data
		},
		Handle: h.listRequests,
	}
}

func (h *handlers) listRequests(ctx context.Context, req *mcp.CallToolRequest, args ListRequestsArgs) (*mcp.CallToolResult, mcptool.Document[ListRequestsResult], error) {
	// Read as delete_requests reads them, so that a preview with the same
	// filters lists what the delete would delete.
	if err := blankFilter(givenArgs(req), "nothing was sent"); err != nil {
		return nil, nil, err
	}
	id, key, err := h.access(args.TokenID, args.APIKey)
	if err != nil {
		return nil, nil, err
	}
	query, err := args.query(time.Now())
	if err != nil {
		return nil, nil, err
	}
	page, err := h.client.ListRequests(ctx, key, id, query)
	if err != nil {
		return nil, nil, err
	}
	var filtersIgnored []string
	kinds := filterKinds{query: args.Query != "", dateFrom: args.DateFrom != "", dateTo: args.DateTo != ""}
	if kinds.used() {
		ignored, err := h.ignoredFilters(ctx, key, id, kinds)
		if err != nil {
			return nil, nil, err
		}
		filtersIgnored = ignored
	}
	raw, err := fitPage(page, filtersIgnored...)
	if err != nil {
		return nil, nil, err
	}
	// A filtered page shows matches, not the requests between them: only
	// an unfiltered one moves the memory of what was shown, so that a wait
	// still returns what the filter left out.
	if !kinds.used() {
		h.seePage(id, raw)
	}
	// The API's escapes (a PHP service writes https:\/\/ and \u00e9) are
	// spelt out, so that the model reads the text itself. The page is
	// what senders wrote, so its text is framed as theirs.
	doc := jsonx.Unescape(raw)
	return mcptool.Text(mcptool.Untrusted("a page of captured requests as JSON", doc)), mcptool.Document[ListRequestsResult](doc), nil
}

// query checks the arguments and returns the query string to send. sorting,
// per_page and page are always sent, so the API's own defaults never apply.
func (a ListRequestsArgs) query(now time.Time) (url.Values, error) {
	q := url.Values{}
	sorting, err := oneOf(sortings, "sorting", a.Sorting)
	if err != nil {
		return nil, err
	}
	q.Set("sorting", sorting)
	size, err := perPage.Value("per_page", a.PerPage)
	if err != nil {
		return nil, err
	}
	page, err := pageNumber.Value("page", a.Page)
	if err != nil {
		return nil, err
	}
	q.Set("per_page", strconv.Itoa(size))
	q.Set("page", strconv.Itoa(page))
	from, to, err := resolveDates(a.DateFrom, a.DateTo, now)
	if err != nil {
		return nil, err
	}
	for name, v := range map[string]string{"date_from": from, "date_to": to, "query": a.Query} {
		if v != "" {
			q.Set(name, v)
		}
	}
	return q, nil
}

// fitPage encodes the page as list_requests returns it, whole items while
// they fit in maxResultBytes of JSON, envelope and note included. When not
// even the first request fits, it is shown cut (shrinkItem). filtersIgnored
// names the kinds of filter the server was shown to ignore.
func fitPage(page *hooksvc.Page, filtersIgnored ...string) (json.RawMessage, error) {
	return fitPageWithin(page, maxResultBytes, filtersIgnored)
}

// fitPageWithin is fitPage with its limit as a parameter, so that a fuzz
// test can reach every cut with small inputs.
func fitPageWithin(page *hooksvc.Page, limit int, filtersIgnored []string) (json.RawMessage, error) {
	fields, dropped := envelope(page)
	empty, err := jsonx.Marshal(withData(fields, nil))
	if err != nil {
		return nil, err
	}
	budget := limit - len(empty) - noteReserve
	items, kept, shrunk := fitItems(page.Data, budget)
	note := ""
	switch {
	case shrunk:
		note = fmt.Sprintf("The first request on this page is over %d bytes by itself: it is shown cut (truncated_members names what was cut), and the other %d requests of the page were left out. "+
			"Ask for per_page 1 to step through them one at a time, and get_latest_request for a body whole.", maxResultBytes, len(page.Data)-1)
	case kept < len(page.Data):
		note = cutNote(page, kept, len(page.Data))
	}
	note += describeDropped(dropped)
	if len(filtersIgnored) > 0 {
		fields["filters_ignored"] = json.RawMessage("true")
		note += fmt.Sprintf(" The capture API ignored the %s filter: it does not apply filters (the open-source webhook.site behaves this way), so this page is unfiltered.",
			strings.Join(filtersIgnored, " and "))
	}
	if note != "" {
		fields["note"], _ = jsonx.Marshal(strings.TrimSpace(note))
	}
	return jsonx.Marshal(withData(fields, items))
}

// withData sets the envelope's data to items ([] when there are none).
func withData(fields map[string]json.RawMessage, items []json.RawMessage) map[string]json.RawMessage {
	if items == nil {
		items = []json.RawMessage{}
	}
	fields["data"], _ = jsonx.Marshal(items)
	return fields
}

// cutNote says how many requests were left out of a page cut after kept of
// n, and which per_page and page read them: a per_page that divides the
// page's own keeps the pages aligned.
func cutNote(page *hooksvc.Page, kept, n int) string {
	perPage := max(page.PerPage, n)
	size := 1
	for d := min(kept, perPage); d >= 1; d-- {
		if perPage%d == 0 {
			size = d
			break
		}
	}
	current := max(page.Page, 1)
	firstLeftOut := (current-1)*perPage + kept // 0-based over all pages
	return fmt.Sprintf("Only the first %d of the %d requests on this page fit in %d bytes of JSON; %d were left out. "+
		"To read them, call list_requests again with the same filters and per_page %d: page %d at that size holds the first one left out, and the pages after it the rest. Or narrow with query, date_from or date_to.",
		kept, n, maxResultBytes, n-kept, size, firstLeftOut/size+1)
}

// seePage records the newest request a list_requests result shows (the
// requests it kept, when the page was cut), for wait_for_request to start
// after it.
func (h *handlers) seePage(id hooksvc.TokenID, raw json.RawMessage) {
	var shown struct {
		Data []json.RawMessage `json:"data"`
	}
	if json.Unmarshal(raw, &shown) != nil {
		return
	}
	for _, item := range shown.Data {
		if meta, err := decodeMeta(item); err == nil {
			h.seeMeta(id, meta)
		}
	}
}
