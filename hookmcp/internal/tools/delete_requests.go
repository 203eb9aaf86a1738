package tools

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptool"
)

// DeleteRequestsArgs are delete_requests' arguments.
type DeleteRequestsArgs struct {
	TokenArg
	DateTo string `json:"date_to,omitempty" jsonschema:"delete requests captured at or before this UTC time, yyyy-MM-dd HH:mm:ss"`
	Query  string `json:"query,omitempty" jsonschema:"delete requests matching this filter, in list_requests' query syntax"`
}

// DeleteRequestsResult is delete_requests' result.
type DeleteRequestsResult struct {
	TokenID string `json:"token_id"`
	Scope   string `json:"scope" jsonschema:"all, or matching when a filter was given"`
	DateTo  string `json:"date_to,omitempty"`
	Query   string `json:"query,omitempty"`
	Message string `json:"message" jsonschema:"what was asked to be deleted"`
}

func (h *handlers) addDeleteRequestsTool(server *mcp.Server) {
	mcptool.Add(server, &mcp.Tool{
		Name:  "delete_requests",
		Title: "Delete captured requests",
		Description: "Delete the requests a token captured: those up to date_to and/or matching query, or, with neither, ALL of them. " +
			"The token itself stays. This cannot be undone: confirm with the user first, and try the same filters with list_requests to see what would go.",
		InputSchema: mcptool.InputSchemaFor[DeleteRequestsArgs](func(s *jsonschema.Schema) {
			adjustTokenArg(s)
			adjustDate(s, "date_to")
		}),
		OutputSchema: mcptool.SchemaFor[DeleteRequestsResult](func(s *jsonschema.Schema) {
			s.Properties["scope"].Enum = []any{"all", "matching"}
		}),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(true)},
	}, h.deleteRequests)
}

func (h *handlers) deleteRequests(ctx context.Context, _ *mcp.CallToolRequest, args DeleteRequestsArgs) (*mcp.CallToolResult, error) {
	id, key, err := h.access(args.TokenID, args.APIKey)
	if err != nil {
		return nil, err
	}
	if _, err := parseDate("date_to", args.DateTo); err != nil {
		return nil, err
	}
	query := url.Values{}
	var filters []string
	if args.DateTo != "" {
		query.Set("date_to", args.DateTo)
		filters = append(filters, "captured at or before "+args.DateTo+" UTC")
	}
	if args.Query != "" {
		query.Set("query", args.Query)
		filters = append(filters, fmt.Sprintf("matching the query %q", args.Query))
	}
	if err := h.client.DeleteRequests(ctx, key, id, query); err != nil {
		return nil, err
	}
	out := DeleteRequestsResult{TokenID: id, Scope: "all", DateTo: args.DateTo, Query: args.Query}
	if len(filters) == 0 {
		out.Message = fmt.Sprintf("Asked the API to delete all requests of token %s; it accepted. The token itself remains.", id)
	} else {
		out.Scope = "matching"
		out.Message = fmt.Sprintf("Asked the API to delete the requests of token %s %s; it accepted. Other requests and the token remain.", id, strings.Join(filters, " and "))
	}
	return mcptool.Structured(out, out.Message)
}
