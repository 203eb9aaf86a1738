package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/jsonx"
	"github.com/mcpforge/servers/shared/mcptool"
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

// readRequests reads pages, oldest first so that requests arriving during
// the read join the end instead of shifting the pages, until the text would
// pass the configured size (--resource-max-bytes). Requests left out are
// counted in a second, plain-text content that says how to read them. The
// call's --timeout bounds the whole read, not each page.
func (h *handlers) readRequests(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := strings.CutPrefix(uri, "hooksvc://token/")
	if ok {
		id, ok = strings.CutSuffix(id, "/requests")
	}
	if !ok || checkUUID("token_id", id) != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"%s: the token in %s must be a token UUID such as %s (the API does not take aliases)", truncate(uri, 200), requestsURITemplate, hooksvc.ExampleUUID)}
	}
	contents, err := h.readRequestPages(ctx, uri, hooksvc.TokenID(strings.ToLower(id)))
	if err != nil {
		return nil, resourceError(req, uri, err, h.cfg.APIKey != "")
	}
	return &mcp.ReadResourceResult{Contents: contents}, nil
}

// resourceError is a failed read as the JSON-RPC error the client's protocol
// version defines, with advice a resource reader can follow: a read takes
// no arguments, so the key can only come from HOOKSVC_API_KEY.
func resourceError(req *mcp.ReadResourceRequest, uri string, err error, keySet bool) error {
	data, _ := jsonx.Marshal(map[string]string{"uri": uri})
	switch {
	case errors.Is(err, hooksvc.ErrNotFound):
		return mcptool.ResourceNotFound(req, uri, "the token does not exist, was deleted or has expired; check its UUID (get_token reads it, create_token makes a new one)")
	case errors.Is(err, hooksvc.ErrAuth) && keySet:
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Data: data, Message: "reading " + uri +
			": the capture API refused the key in HOOKSVC_API_KEY for this token (a resource read can use no other): start hookmcp with the key of the account that owns the token"}
	case errors.Is(err, hooksvc.ErrAuth):
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Data: data, Message: "reading " + uri +
			": the capture API refused the key (authentication required or key invalid); a resource read uses HOOKSVC_API_KEY: set it in hookmcp's environment to the key of the token's account"}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Data: data, Message: fmt.Sprintf("reading %s: %v", uri, err)}
}

// readRequestPages reads the token's requests page by page into the
// resource's contents.
func (h *handlers) readRequestPages(ctx context.Context, uri string, id hooksvc.TokenID) ([]*mcp.ResourceContents, error) {
	ctx, cancel := httpx.WithTimeout(ctx, h.cfg.Timeout)
	defer cancel()
	limit := h.resourceMaxBytes()
	// The text is written as the pages arrive, each request compacted as
	// json.Marshal would, so that memory holds one copy of it and a page.
	var text strings.Builder
	var item bytes.Buffer
	text.WriteByte('[')
	size, kept, total, full := 2, 0, 0, false // size counts the brackets
	for page := 1; page <= maxResourcePages && !full; page++ {
		query := url.Values{"sorting": {"oldest"}, "per_page": {strconv.Itoa(resourcePerPage)}, "page": {strconv.Itoa(page)}}
		p, err := h.client.ListRequests(ctx, h.cfg.APIKey, id, query)
		if err != nil {
			return nil, err
		}
		total = max(total, p.Total)
		for _, d := range p.Data {
			item.Reset()
			if err := json.Compact(&item, jsonx.Unescape(asObject(d))); err != nil {
				return nil, err
			}
			if size+item.Len()+1 > limit {
				full = true
				break
			}
			if kept == 0 && total > 0 {
				// Room for all the token holds, as far as the budget goes:
				// the text is not copied again as it grows. total is the
				// API's word: bounded first, so that no claim overflows.
				text.Grow(min(limit, min(total, limit)*(item.Len()+1)+2))
			}
			if kept > 0 {
				text.WriteByte(',')
			}
			text.Write(item.Bytes())
			size += item.Len() + 1
			kept++
		}
		if p.IsLastPage || len(p.Data) == 0 {
			break
		}
	}
	text.WriteByte(']')
	contents := []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: text.String()}}
	if full {
		contents = append(contents, &mcp.ResourceContents{URI: uri, MIMEType: "text/plain", Text: resourceCutNote(kept, total, size, limit)})
	}
	return contents, nil
}

func (h *handlers) resourceMaxBytes() int {
	if h.cfg.ResourceMaxBytes > 0 {
		return int(h.cfg.ResourceMaxBytes)
	}
	return config.DefaultResourceMaxBytes
}

// resourceCutNote says how many requests a cut read left out and which
// list_requests calls read them: a per_page whose pages stay under
// list_requests' own budget, dividing kept so that a page starts at the
// first request left out.
func resourceCutNote(kept, total, size, limit int) string {
	leftOut := max(total-kept, 1)
	average := size / max(kept, 1)
	perPage := min(max(maxResultBytes*9/10/max(average, 1), 1), 100)
	if kept == 0 {
		perPage = 1
	}
	for kept > 0 && kept%perPage != 0 {
		perPage--
	}
	return fmt.Sprintf("This resource holds the oldest %d of the token's %d requests; the other %d were left out to keep it under %d bytes (--resource-max-bytes). "+
		"Read them with list_requests, sorting \"oldest\", per_page %d, from page %d on; or narrow with its query, date_from and date_to.",
		kept, max(total, kept+leftOut), leftOut, limit, perPage, kept/perPage+1)
}
