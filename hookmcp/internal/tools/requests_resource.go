package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/shared/jsonx"
)

// The resource: every request a token holds, as one JSON array.
const (
	requestsURITemplate = "hooksvc://token/{token_id}/requests"
	resourcePerPage     = 100
	// maxResourcePages stops a read whose pages never end; a token keeps at
	// most 10,000 requests, which is 100 pages.
	maxResourcePages = 200
)

func requestsURI(tokenID string) string {
	return "hooksvc://token/" + tokenID + "/requests"
}

func (h *handlers) addRequestsResource(server *mcp.Server) {
	server.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: requestsURITemplate,
		Name:        "token-requests",
		Title:       "Requests captured by a token",
		Description: "Every request the token holds, oldest first, all pages in one JSON array, each request as the API returns it. Read with HOOKSVC_API_KEY.",
		MIMEType:    "application/json",
	}, h.readRequests)
	if h.cfg.TokenID != "" {
		server.AddResource(&mcp.Resource{
			URI:         requestsURI(h.cfg.TokenID),
			Name:        "default-token-requests",
			Title:       "Requests captured by the default token",
			Description: "Every request the default token (HOOKSVC_TOKEN_ID) holds, as one JSON array.",
			MIMEType:    "application/json",
		}, h.readRequests)
	}
}

// readRequests reads every page, oldest first so that requests arriving
// during the read join the end instead of shifting the pages.
func (h *handlers) readRequests(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := strings.CutPrefix(uri, "hooksvc://token/")
	if ok {
		id, ok = strings.CutSuffix(id, "/requests")
	}
	if !ok || checkUUID("token_id", id) != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"%s: the token in %s must be a token UUID such as %s (the API does not take aliases)", uri, requestsURITemplate, exampleID)}
	}
	id = strings.ToLower(id)
	var all []json.RawMessage
	for page := 1; page <= maxResourcePages; page++ {
		query := url.Values{"sorting": {"oldest"}, "per_page": {strconv.Itoa(resourcePerPage)}, "page": {strconv.Itoa(page)}}
		p, err := h.client.ListRequests(ctx, h.cfg.APIKey, id, query)
		if errors.Is(err, hooksvc.ErrNotFound) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", uri, err)
		}
		for _, d := range p.Data {
			all = append(all, d)
		}
		if p.IsLastPage || len(p.Data) == 0 {
			break
		}
	}
	if all == nil {
		all = []json.RawMessage{}
	}
	text, err := jsonx.Marshal(all)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(text)}}}, nil
}
