// Package upstream sends GraphQL requests to an endpoint over HTTP: which
// endpoints a call may reach, which headers go with it, and how the answer is
// read, bounded, classified and cleaned of startup secrets.
package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"
	"unicode/utf8"

	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/jsonx"
)

// Client sends GraphQL requests.
type Client struct {
	Caller           *httpx.Caller
	MaxResponseBytes int64
	Redactor         Redactor
	// Gate judges every redirect hop as a new endpoint (Policy.Gate).
	Gate Gate
	// Placeholder is the built-in default endpoint when no endpoint was
	// configured: a failure to reach it says so, and how to set one.
	Placeholder *url.URL
}

// Request is one GraphQL-over-HTTP POST.
type Request struct {
	Target  Target
	Headers http.Header
	Timeout time.Duration
	// Body fields, as the GraphQL-over-HTTP spec names them.
	Query         string
	Variables     map[string]any
	OperationName string
	// MaxResponseBytes overrides the client's limit when larger.
	MaxResponseBytes int64
	// Incremental asks for incremental delivery (IncrementalAccept): the
	// operation uses @defer or @stream.
	Incremental bool
	// Extensions and DocID send a persisted operation by its id (Apollo's
	// persistedQuery extension, Relay's doc_id), Query then being empty
	// until the endpoint asks for the text.
	Extensions map[string]any
	DocID      string
	// Forward is what --forward-header did with this request, for the
	// advice on refused credentials.
	Forward Forward
}

// Response is a GraphQL response as the endpoint sent it.
type Response struct {
	Status int
	// Body is the response document, with startup secrets redacted.
	Body json.RawMessage
	// Data and Errors are the response's members of those names, split out
	// by the one parse Post makes, so callers need not parse Body again.
	Data   json.RawMessage
	Errors json.RawMessage
	// HasData reports a non-null "data" member: the operation ran, perhaps
	// partly.
	HasData bool
	// ReplacedInvalidUTF8 reports that the body held bytes that are not
	// UTF-8, which were replaced by U+FFFD: MCP messages must be UTF-8.
	ReplacedInvalidUTF8 bool
	// Dropped names the members left out of Body because they were null
	// or not of a GraphQL response's shape ("errors": null, "extensions":
	// "text").
	Dropped []string
	// Incremental says how an incrementally delivered answer came, whose
	// parts Body merges; nil for an answer in one piece.
	Incremental *Delivery
}

// Post sends req and returns the endpoint's GraphQL response. It fails when
// the request cannot be made or answered, or when the answer is not a GraphQL
// response; a GraphQL response carrying errors is not a failure here.
func (c *Client) Post(ctx context.Context, req Request) (*Response, error) {
	payload, err := Payload(req)
	if err != nil {
		return nil, err
	}
	ctx, cancel := httpx.WithTimeout(ctx, req.Timeout)
	defer cancel()
	if c.Gate != nil {
		ctx = WithGate(ctx, c.Gate, req.Target.LinkLocalAllowed)
	}
	caller, headers := c.Caller, req.Headers
	maxBytes := max(c.MaxResponseBytes, req.MaxResponseBytes)
	var cuts *cutKeeper
	if req.Incremental {
		headers = headers.Clone()
		if headers == nil {
			headers = http.Header{}
		}
		headers.Set("Accept", IncrementalAccept)
		cuts = c.keepingCuts(maxBytes)
		caller = cuts.caller
	}
	answer, err := caller.Do(ctx, httpx.Outbound{
		Method: http.MethodPost, URL: req.Target.URL, Header: headers, Body: payload,
		MaxBytes: maxBytes, Redactor: c.Redactor,
	})
	var tooBig *httpx.TooLargeError
	if errors.As(err, &tooBig) {
		return nil, tooLarge(req, tooBig.Limit)
	}
	if failure := httpx.AsFailure(err); failure != nil {
		placeholder := c.Placeholder != nil && req.Target.URL.String() == c.Placeholder.String()
		return nil, failed(req, failure, placeholder)
	}
	if err != nil {
		return nil, err
	}
	body := answer.Body
	// MCP messages must be UTF-8.
	replaced := !utf8.Valid(body)
	if replaced {
		body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
	}
	if isMultipart(answer.Header) {
		var cut error
		if cuts != nil {
			cut = cuts.cut
		}
		resp, err := readIncremental(ctx, req, answer, body, cut, c.Redactor)
		if resp != nil {
			resp.ReplacedInvalidUTF8 = replaced
		}
		return resp, err
	}
	if doc, ok := parseGraphQLResponse(body); ok {
		return &Response{
			Status: answer.Status, Body: doc.body, Data: doc.Data, Errors: doc.Errors, HasData: doc.hasData(),
			ReplacedInvalidUTF8: replaced, Dropped: doc.dropped,
		}, nil
	}
	if answer.Status >= 300 && answer.Status < 400 {
		return nil, redirected(req, answer, c.Redactor)
	}
	return nil, notGraphQL(req, answer, body)
}

// Payload is the body Post sends for req, byte for byte: a dry run shows it.
func Payload(req Request) ([]byte, error) {
	payload, err := jsonx.Marshal(struct {
		Query         string         `json:"query,omitempty"`
		DocID         string         `json:"doc_id,omitempty"`
		Variables     map[string]any `json:"variables,omitempty"`
		OperationName string         `json:"operationName,omitempty"`
		Extensions    map[string]any `json:"extensions,omitempty"`
	}{req.Query, req.DocID, req.Variables, req.OperationName, req.Extensions})
	if err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	return formSafe(payload), nil
}

// RefusesCredentials reports an HTTP status that says the credentials were
// refused (401, 403).
func RefusesCredentials(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden
}

type graphQLResponse struct {
	Data, Errors json.RawMessage
	body         []byte   // the document to pass on
	dropped      []string // members left out of it
}

func (r graphQLResponse) hasData() bool {
	return len(r.Data) > 0 && string(r.Data) != "null"
}

// parseGraphQLResponse accepts what makes a body a GraphQL response: a JSON
// object with "data" (an object, or null) or "errors" (an array of objects).
// Anything else, such as {"errors":"Invalid API key"} or {"data":"text"}, is
// not one, and passing it on would break the tool's output schema. The
// document is passed on as it came, unless "errors" or "extensions" is null
// or "extensions" is not an object: that member is then left out (and named
// in dropped), since the output schema has no room for it.
func parseGraphQLResponse(body []byte) (graphQLResponse, bool) {
	var members map[string]json.RawMessage
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' || jsonx.UnmarshalSharing(trimmed, &members) != nil {
		return graphQLResponse{}, false
	}
	doc := graphQLResponse{Data: members["data"], Errors: members["errors"], body: body}
	data, hasData := members["data"]
	errs, hasErrors := members["errors"]
	if hasErrors && isNull(errs) {
		hasErrors = false
		doc.Errors = nil
		doc.dropped = append(doc.dropped, "errors")
	}
	if !hasData && !hasErrors || hasData && !isNull(data) && !isObject(data) || hasErrors && !isArrayOfObjects(errs) {
		return graphQLResponse{}, false
	}
	if ext, ok := members["extensions"]; ok && !isObject(ext) {
		doc.dropped = append(doc.dropped, "extensions")
	}
	if len(doc.dropped) > 0 {
		for _, name := range doc.dropped {
			delete(members, name)
		}
		cleaned, err := jsonx.Marshal(members)
		if err != nil {
			return graphQLResponse{}, false
		}
		doc.body = cleaned
	}
	return doc, true
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

func isObject(raw json.RawMessage) bool {
	trimmed := bytes.TrimSpace(raw)
	return len(trimmed) > 0 && trimmed[0] == '{'
}

func isArrayOfObjects(raw json.RawMessage) bool {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return false
	}
	for _, item := range items {
		if !isObject(item) {
			return false
		}
	}
	return true
}
