package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptool"
)

// GetLatestRequestArgs are get_latest_request's arguments.
type GetLatestRequestArgs struct {
	TokenArg
}

// LatestRequestResult is get_latest_request's structured result. Its text
// content is the body itself (or the note and the base64 body).
type LatestRequestResult struct {
	TokenID     string `json:"token_id"`
	Captured    bool   `json:"captured" jsonschema:"false when the token has captured nothing yet; the other fields are then empty"`
	RequestID   string `json:"request_id,omitempty" jsonschema:"uuid of the latest request"`
	Type        string `json:"type,omitempty" jsonschema:"web, email or dns"`
	Method      string `json:"method,omitempty"`
	URL         string `json:"url,omitempty"`
	CreatedAt   string `json:"created_at,omitempty" jsonschema:"when it was captured, UTC yyyy-MM-dd HH:mm:ss"`
	ContentType string `json:"content_type,omitempty" jsonschema:"the Content-Type the request was sent with, when it had one"`
	Size        int    `json:"size" jsonschema:"body size in bytes"`
	Encoding    string `json:"encoding,omitempty" jsonschema:"text when the body is valid UTF-8 and given as is; base64 otherwise"`
	Body        string `json:"body" jsonschema:"the raw body, byte for byte (base64-encoded when encoding is base64)"`
	Note        string `json:"note,omitempty"`
}

func (h *handlers) getLatestRequestTool() mcptool.Tool[GetLatestRequestArgs, LatestRequestResult] {
	return mcptool.Tool[GetLatestRequestArgs, LatestRequestResult]{
		Name:  "get_latest_request",
		Title: "Get the latest captured request body",
		Description: "Get the raw body of the newest request a token captured, byte for byte: as text when it is valid UTF-8, else base64-encoded with a note. " +
			"The request's content type, method, URL and time come alongside. A token that has captured nothing yet gives captured: false (not an error).",
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(true)},
		AdjustInput:  func(s *jsonschema.Schema) { adjustTokenArg(s) },
		AdjustOutput: func(s *jsonschema.Schema) { s.Properties["encoding"].Enum = []any{"text", "base64"} },
		Handle:       h.getLatestRequest,
	}
}

// getLatestRequest lists the newest request, then fetches that request's raw
// body by its id. One listing tells apart an unknown token (404) from one
// with no requests (total 0), which /request/latest does not: it answers 404
// for both. Asking for the body by id keeps the body and its metadata from
// the same request even when another arrives in between.
func (h *handlers) getLatestRequest(ctx context.Context, _ *mcp.CallToolRequest, args GetLatestRequestArgs) (*mcp.CallToolResult, LatestRequestResult, error) {
	id, key, err := h.access(args.TokenID, args.APIKey)
	if err != nil {
		return nil, LatestRequestResult{}, err
	}
	page, err := h.client.ListRequests(ctx, key, id, url.Values{"sorting": {"newest"}, "per_page": {"1"}, "page": {"1"}})
	if err != nil {
		return nil, LatestRequestResult{}, err
	}
	if len(page.Data) == 0 {
		out := LatestRequestResult{TokenID: id, Note: fmt.Sprintf("Token %s has not captured any request yet. Requests sent to %s will show here.", id, h.client.CaptureURL(id))}
		return mcptool.Text(out.Note), out, nil
	}
	var meta struct {
		UUID      string              `json:"uuid"`
		Type      string              `json:"type"`
		Method    string              `json:"method"`
		URL       string              `json:"url"`
		CreatedAt string              `json:"created_at"`
		Headers   map[string][]string `json:"headers"`
	}
	if err := json.Unmarshal(page.Data[0], &meta); err != nil {
		// The API is PHP: empty headers may arrive as [], which fails only
		// Headers; the members decoded before and after it are kept.
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) {
			return nil, LatestRequestResult{}, fmt.Errorf("the capture API listed a request that is not a JSON object")
		}
	}
	if meta.UUID == "" {
		return nil, LatestRequestResult{}, fmt.Errorf("the capture API listed a request without a uuid")
	}
	body, err := h.client.RawBody(ctx, key, id, meta.UUID)
	if err != nil {
		return nil, LatestRequestResult{}, err
	}
	out := LatestRequestResult{
		TokenID: id, Captured: true, RequestID: meta.UUID, Type: meta.Type, Method: meta.Method,
		URL: meta.URL, CreatedAt: meta.CreatedAt, Size: len(body),
	}
	for name, values := range meta.Headers {
		if len(values) > 0 && strings.EqualFold(name, "Content-Type") {
			out.ContentType = values[0]
		}
	}
	if utf8.Valid(body) {
		out.Encoding, out.Body = "text", string(body)
	} else {
		out.Encoding, out.Body = "base64", base64.StdEncoding.EncodeToString(body)
		out.Note = fmt.Sprintf("The body is %d bytes that are not valid UTF-8 text, so it is given base64-encoded (standard alphabet, padded).", len(body))
	}
	// The body goes in a block of its own, exactly, for clients that read
	// only text content.
	return mcptool.Text(summary(out), out.Body), out, nil
}

// summary is the line before the body: what the request was.
func summary(out LatestRequestResult) string {
	contentType := out.ContentType
	if contentType == "" {
		contentType = "no content type"
	}
	line := fmt.Sprintf("Latest request %s: %s %s at %s UTC (%s, %d bytes, body as %s).", out.RequestID, out.Method, out.URL, out.CreatedAt, contentType, out.Size, out.Encoding)
	if out.Note != "" {
		line += " " + out.Note
	}
	return line
}
