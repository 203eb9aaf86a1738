package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/shared/mcptool"
)

// RequestResult is one captured request with its exact body: the result of
// get_request, get_latest_request and wait_for_request. Its text content is
// a summary line and the body itself.
type RequestResult struct {
	TokenID     string              `json:"token_id"`
	Captured    bool                `json:"captured" jsonschema:"false when there is no request to show (none captured yet, or none arrived in time); the request's fields are then empty"`
	RequestID   string              `json:"request_id,omitempty" jsonschema:"the request's uuid (get_request and delete_request take it)"`
	Type        string              `json:"type,omitempty" jsonschema:"web, email or dns"`
	Method      string              `json:"method,omitempty"`
	URL         string              `json:"url,omitempty" jsonschema:"the URL the request was sent to, path and query string included"`
	CreatedAt   string              `json:"created_at,omitempty" jsonschema:"when it was captured, UTC yyyy-MM-dd HH:mm:ss"`
	IP          string              `json:"ip,omitempty" jsonschema:"the sender's address"`
	Headers     map[string][]string `json:"headers,omitempty" jsonschema:"the request's headers as the service recorded them (lower-case names), each with its values"`
	Query       map[string]any      `json:"query,omitempty" jsonschema:"the query string's parameters, when it had any"`
	Form        map[string]any      `json:"form,omitempty" jsonschema:"the form fields the service parsed from the body (url-encoded or multipart), when any"`
	Files       map[string]any      `json:"files,omitempty" jsonschema:"the files of a multipart body, as the service describes them (name, size, content type)"`
	ContentType string              `json:"content_type,omitempty" jsonschema:"the Content-Type the request was sent with, when it had one"`
	Size        int                 `json:"size" jsonschema:"body size in bytes"`
	Encoding    string              `json:"encoding,omitempty" jsonschema:"text when the body is valid UTF-8 and given as is; base64 otherwise"`
	Body        string              `json:"body" jsonschema:"the raw body, byte for byte (base64-encoded when encoding is base64)"`
	CaptureURL  string              `json:"capture_url,omitempty" jsonschema:"when nothing is shown: where to send requests to capture them"`
	Waited      float64             `json:"waited_seconds,omitempty" jsonschema:"wait_for_request only: how long it waited, in seconds"`
	Note        string              `json:"note,omitempty"`
}

func adjustRequestResult(s *jsonschema.Schema) {
	s.Properties["encoding"].Enum = []any{"text", "base64"}
	s.Properties["capture_url"].Format = "uri"
	headerMap(s.Properties["headers"])
}

// headerMap says a header map's values are arrays of strings, never null:
// derived from []string they read ["null","array"], a type list that
// single-type schema dialects refuse.
func headerMap(p *jsonschema.Schema) {
	p.AdditionalProperties = &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string"}}
}

// requestMeta is what a request object says of the request, decoded
// loosely: the API is PHP, so an empty map may come as [], and a member of
// an unexpected type leaves only that member empty.
type requestMeta struct {
	UUID      hooksvc.RequestID `json:"uuid"`
	Type      string            `json:"type"`
	Method    string            `json:"method"`
	URL       string            `json:"url"`
	CreatedAt string            `json:"created_at"`
	IP        string            `json:"ip"`
	Sorting   json.Number       `json:"sorting"`
	Headers   json.RawMessage   `json:"headers"`
	Query     json.RawMessage   `json:"query"`
	Form      json.RawMessage   `json:"request"`
	Files     json.RawMessage   `json:"files"`
}

// decodeMeta reads a request object as listed or fetched.
func decodeMeta(item json.RawMessage) (requestMeta, error) {
	var meta requestMeta
	if err := json.Unmarshal(item, &meta); err != nil {
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) {
			return requestMeta{}, errors.New("the capture API sent a request that is not a JSON object")
		}
	}
	if meta.UUID == "" {
		return requestMeta{}, errors.New("the capture API sent a request without a uuid")
	}
	return meta, nil
}

// order is where the request sits in capture order: the API's sorting
// number (finer than a second) when it has one.
func (m requestMeta) order() (int64, bool) {
	n, err := strconv.ParseInt(m.Sorting.String(), 10, 64)
	return n, err == nil
}

// headers reads the header map, each value an array of strings or a
// single string.
func (m requestMeta) headers() map[string][]string {
	var raw map[string]json.RawMessage
	if json.Unmarshal(m.Headers, &raw) != nil || len(raw) == 0 {
		return nil
	}
	out := make(map[string][]string, len(raw))
	for name, value := range raw {
		var values []string
		if json.Unmarshal(value, &values) != nil {
			var one string
			if json.Unmarshal(value, &one) != nil {
				continue
			}
			values = []string{one}
		}
		out[name] = values
	}
	return out
}

// object reads an object member; null, [] and other shapes read as none.
func object(raw json.RawMessage) map[string]any {
	var out map[string]any
	if json.Unmarshal(raw, &out) != nil || len(out) == 0 {
		return nil
	}
	return out
}

// requestResult fetches the exact body of the request described by meta
// and returns both as a result. Asking for the body by the request's id
// keeps body and metadata from the same request.
func (h *handlers) requestResult(ctx context.Context, key string, tokenID hooksvc.TokenID, meta requestMeta) (RequestResult, error) {
	body, err := h.client.RawBody(ctx, key, tokenID, meta.UUID)
	if err != nil {
		return RequestResult{}, err
	}
	out := RequestResult{
		TokenID: string(tokenID), Captured: true, RequestID: string(meta.UUID), Type: meta.Type, Method: meta.Method,
		URL: meta.URL, CreatedAt: meta.CreatedAt, IP: meta.IP, Headers: meta.headers(),
		Query: object(meta.Query), Form: object(meta.Form), Files: object(meta.Files), Size: len(body),
	}
	for name, values := range out.Headers {
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
	return out, nil
}

// requestText is the text content of a request result: a summary line
// that starts with label, then the body alone in a block of its own,
// exactly, for clients that read only text content.
func requestText(label string, out RequestResult) []string {
	contentType := out.ContentType
	if contentType == "" {
		contentType = "no content type"
	}
	line := fmt.Sprintf("%s %s: %s %s at %s UTC (%s, %d bytes, body as %s).", label, out.RequestID, out.Method, out.URL, out.CreatedAt, contentType, out.Size, out.Encoding)
	if out.Note != "" {
		line += " " + out.Note
	}
	return []string{line, out.Body}
}

// nothingCaptured is a result that shows no request, with why.
func nothingCaptured(tokenID hooksvc.TokenID, captureURL, note string) (*mcp.CallToolResult, RequestResult) {
	return mcptool.Text(note), RequestResult{TokenID: string(tokenID), CaptureURL: captureURL, Note: note}
}
