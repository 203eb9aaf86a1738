package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// SetResponseArgs are set_response's arguments.
type SetResponseArgs struct {
	RequestArg
	Status  *float64          `json:"status"`
	Content string            `json:"content,omitempty"`
	Headers map[string]string `json:"headers,omitempty" jsonschema:"e.g. Content-Type"`
}

// Bounds of a set response: a webhook's reply (a challenge echoed, an
// error to provoke a retry), not a download. The API takes up to 10 MB.
var responseStatus = mcptool.Whole{Min: 200, Max: 599}

const (
	maxResponseContent = 1 << 20
	maxResponseHeaders = 50
)

// connectionHeaders describe the connection a response goes over, not the
// response: the service writes them itself from the content it sends
// (the fake drops them), so a value set for one would not reach the sender.
var connectionHeaders = []string{"Connection", "Content-Length", "Content-Encoding", "Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// SetResponseResult is set_response's result. What was set, and the API's
// answer, are in the message, not repeated as members: every session pays
// for the tool list's output schemas.
type SetResponseResult struct {
	TokenID   string `json:"token_id"`
	RequestID string `json:"request_id"`
	// SenderWaiting is left out when the API's answer does not say.
	SenderWaiting *bool  `json:"sender_waiting,omitempty"`
	Message       string `json:"message"`
}

func (h *handlers) setResponseTool() mcptool.Tool[SetResponseArgs, SetResponseResult] {
	return mcptool.Tool[SetResponseArgs, SetResponseResult]{
		Name:        "set_response",
		Title:       "Answer a waiting sender",
		Description: "Answer a request's sender, held waiting while its token listens (update_token listen, 1-10 s). Says if it was waiting.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(true)},
		AdjustInput: func(s *jsonschema.Schema) {
			adjustRequestArg(s)
			responseStatus.Schema(s.Properties["status"])
			s.Properties["content"].MaxLength = ptr(maxResponseContent)
			s.Properties["headers"].MaxProperties = ptr(maxResponseHeaders)
		},
		Handle: h.setResponse,
	}
}

func (h *handlers) setResponse(ctx context.Context, _ *mcp.CallToolRequest, args SetResponseArgs) (*mcp.CallToolResult, SetResponseResult, error) {
	id, key, requestID, err := h.request(args.RequestArg)
	if err != nil {
		return nil, SetResponseResult{}, err
	}
	response, err := args.response(answerCleaner(h.secrets(key), h.cfg.APIKey, key))
	if err != nil {
		return nil, SetResponseResult{}, err
	}
	delivery, answer, err := h.client.SetResponse(ctx, key, id, requestID, response)
	if err != nil {
		return nil, SetResponseResult{}, err
	}
	out := SetResponseResult{TokenID: string(id), RequestID: string(requestID)}
	set := fmt.Sprintf("HTTP %d, %d bytes of content, %d header(s)", response.Status, len(response.Content), len(response.Header))
	const listen = "A sender is held only while its token listens (update_token listen, 1 to 10 s), for at most listen seconds after it sends: " +
		"set listen, have the sender send again, call wait_for_request, then set_response before listen seconds pass."
	if delivery != hooksvc.Delivered {
		set += h.listening(ctx, key, id)
	}
	switch delivery {
	case hooksvc.Delivered:
		out.SenderWaiting = ptr(true)
		out.Message = fmt.Sprintf("The sender of request %s was waiting and received %s (the API answered %s).", requestID, set, answer)
	case hooksvc.NoSenderWaiting:
		out.SenderWaiting = ptr(false)
		out.Message = fmt.Sprintf("No sender was waiting for request %s, so nothing was delivered (%s): the API answered %s, reported to mean that no sender was held "+
			"(an earlier set_response had answered it, it had already received the token's default response, or the token did not listen when it sent). %s", requestID, set, answer, listen)
	default:
		out.Message = fmt.Sprintf("The API took the response for request %s (%s) and answered %s, which does not say whether a sender was waiting. %s", requestID, set, answer, listen)
	}
	return mcptool.Text(out.Message), out, nil
}

// response checks the arguments and returns the response to set. Nothing
// that holds a key (in any form or case clean finds) is sent: the sender
// is not the API.
func (a SetResponseArgs) response(clean func(string) string) (hooksvc.Response, error) {
	if a.Status == nil {
		return hooksvc.Response{}, errors.New("status is required: the HTTP status the sender receives, 200 to 599 (for example 200 to answer a challenge, 500 to make the sender retry)")
	}
	status, err := responseStatus.Check("status", *a.Status)
	if err != nil {
		// 1xx is no final answer: an HTTP server sends it as an interim
		// one, and the sender goes on waiting for the real status.
		return hooksvc.Response{}, fmt.Errorf("%w: a sender receives a final status only (1xx are interim answers); nothing was sent", err)
	}
	// 205 too: RFC 9110 forbids content with it, and servers drop it.
	if (status == http.StatusNoContent || status == http.StatusResetContent || status == http.StatusNotModified) && a.Content != "" {
		return hooksvc.Response{}, fmt.Errorf("content must be left out with status %d: such an answer has no body, so the sender would not receive it; use 200 to send content. Nothing was sent", status)
	}
	if len(a.Content) > maxResponseContent {
		return hooksvc.Response{}, fmt.Errorf("content is %d bytes; set_response sends at most %d (1 MiB). Nothing was sent", len(a.Content), maxResponseContent)
	}
	if len(a.Headers) > maxResponseHeaders {
		return hooksvc.Response{}, fmt.Errorf("headers may hold at most %d entries; got %d. Nothing was sent", maxResponseHeaders, len(a.Headers))
	}
	r := hooksvc.Response{Status: status, Content: []byte(a.Content), Header: http.Header{}}
	// One header given in two cases would reach the service as two
	// entries, which it may merge, keep both of, or let the last one win.
	seen := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(a.Headers)) {
		value := a.Headers[name]
		if err := checkResponseHeader(name, value); err != nil {
			return hooksvc.Response{}, err
		}
		if first, ok := seen[strings.ToLower(name)]; ok {
			return hooksvc.Response{}, fmt.Errorf("headers %s and %s are one header: HTTP header names ignore case, and set_response sends one value per header; give it once. Nothing was sent",
				responseHeaderName(first, clean), responseHeaderName(name, clean))
		}
		seen[strings.ToLower(name)] = name
		// The names go as given: the API takes them so.
		r.Header[name] = append(r.Header[name], value)
	}
	parts := map[string]string{"content": a.Content}
	for name, value := range a.Headers {
		parts[shownName("header", name, httpx.HeaderName(name), clean)] = name + ": " + value
	}
	for _, part := range slices.Sorted(maps.Keys(parts)) {
		if clean(parts[part]) != parts[part] {
			return hooksvc.Response{}, fmt.Errorf("the %s holds a secret (the API key or a configured signing secret), which set_response never sends to a sender (the key goes to the API only): remove it; nothing was sent", part)
		}
	}
	return r, nil
}

// responseHeaderName shows a header's name in an error, unless it holds a
// secret.
func responseHeaderName(name string, clean func(string) string) string {
	if clean(name) != name {
		return "<a name not shown: it holds a secret>"
	}
	return httpx.HeaderName(name)
}

// checkResponseHeader refuses a malformed header, and one the service
// writes itself.
func checkResponseHeader(name, value string) error {
	if !httpx.ValidHeaderName(name) {
		return fmt.Errorf("headers: %s. Nothing was sent", httpx.InvalidHeaderName(name))
	}
	for _, refused := range connectionHeaders {
		if strings.EqualFold(name, refused) {
			return fmt.Errorf("header %s cannot be set: %s describe the connection, and the service writes them itself from the content; leave it out. Nothing was sent",
				httpx.HeaderName(name), strings.Join(connectionHeaders, ", "))
		}
	}
	// Printable ASCII only: RFC 9110 asks for it, and a server that writes
	// header text as Latin-1 (Node's http did) cuts U+010A to a line feed,
	// splitting the response.
	if len(value) > maxTestValueBytes || strings.ContainsFunc(value, func(r rune) bool { return (r < 0x20 && r != '\t') || r >= 0x7f }) {
		return fmt.Errorf("header %s: a value is one line of printable ASCII of at most %d bytes, without control characters; percent-encode other characters (or use RFC 8187's UTF-8'' form where the header allows it). Nothing was sent",
			httpx.HeaderName(name), maxTestValueBytes)
	}
	// HTTP parsers drop a value's outer whitespace: the sender would
	// receive another value than the one set.
	if strings.Trim(value, " \t") != value {
		return fmt.Errorf("header %s: a value has no spaces or tabs at its start or end: HTTP drops them, so the sender would not receive them; trim them. Nothing was sent", httpx.HeaderName(name))
	}
	return nil
}

// listening says how long the token holds a sender now, for a response
// that found none waiting: a token that does not listen is the usual
// cause. Nothing is said when the token cannot be read; the response was
// set all the same.
func (h *handlers) listening(ctx context.Context, key string, id hooksvc.TokenID) string {
	token, err := h.client.GetToken(ctx, key, id)
	if err != nil {
		h.logger.Debug("reading the token's listen after a set response", "error", err)
		return ""
	}
	var settings struct {
		Listen json.RawMessage `json:"listen"`
	}
	var listen float64
	// The API is PHP: listen may come as a number or a numeric string.
	if json.Unmarshal(token, &settings) != nil || json.Unmarshal(settings.Listen, &listen) != nil && json.Unmarshal(bytes.Trim(settings.Listen, `"`), &listen) != nil {
		return ""
	}
	if listen <= 0 {
		return fmt.Sprintf("; token %s does not listen now (listen 0)", id)
	}
	return fmt.Sprintf("; token %s listens %g s now", id, listen)
}
