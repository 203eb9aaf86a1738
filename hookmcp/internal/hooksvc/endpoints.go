package hooksvc

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/mcpforge/servers/shared/httpx"
)

// CaptureURL is where a token receives requests: <base>/<uuid>.
func (cl *Client) CaptureURL(tokenID string) string {
	return cl.BaseURL.JoinPath(tokenID).String()
}

func tokenPath(id string) string { return "/token/" + url.PathEscape(id) }

func what(id string) string { return "token " + id }

// CreateToken creates a token from body (only the fields to set) and returns
// the API's token object.
func (cl *Client) CreateToken(ctx context.Context, key string, body map[string]any) (json.RawMessage, error) {
	resp, err := cl.Do(ctx, Call{Method: http.MethodPost, Path: "/token", Body: body, Key: key})
	if err != nil {
		return nil, err
	}
	return jsonObject(resp.Body, "the new token")
}

// GetToken returns a token object.
func (cl *Client) GetToken(ctx context.Context, key, id string) (json.RawMessage, error) {
	resp, err := cl.Do(ctx, Call{Method: http.MethodGet, Path: tokenPath(id), Key: key, What: what(id)})
	if err != nil {
		return nil, err
	}
	return jsonObject(resp.Body, what(id))
}

// PutToken replaces a token's settings with body and returns the token.
// The API resets every setting body leaves out.
func (cl *Client) PutToken(ctx context.Context, key, id string, body map[string]any) (json.RawMessage, error) {
	resp, err := cl.Do(ctx, Call{Method: http.MethodPut, Path: tokenPath(id), Body: body, Key: key, What: what(id)})
	if err != nil {
		return nil, err
	}
	return jsonObject(resp.Body, what(id))
}

// DeleteToken deletes a token and everything it captured.
func (cl *Client) DeleteToken(ctx context.Context, key, id string) error {
	_, err := cl.Do(ctx, Call{Method: http.MethodDelete, Path: tokenPath(id), Key: key, What: what(id)})
	return err
}

// ListRequests returns one page envelope of a token's requests.
func (cl *Client) ListRequests(ctx context.Context, key, id string, query url.Values) (*Page, error) {
	resp, err := cl.Do(ctx, Call{Method: http.MethodGet, Path: tokenPath(id) + "/requests", Query: query, Key: key, What: what(id)})
	if err != nil {
		return nil, err
	}
	return DecodePage(resp.Body)
}

// RawBody returns a captured request's body exactly as it arrived.
func (cl *Client) RawBody(ctx context.Context, key, id, requestID string) ([]byte, error) {
	resp, err := cl.Do(ctx, Call{
		Method: http.MethodGet, Path: tokenPath(id) + "/request/" + url.PathEscape(requestID) + "/raw",
		Key: key, What: fmt.Sprintf("request %s of token %s", requestID, id),
	})
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// DeleteRequests deletes a token's requests matching query (date_from,
// date_to, query), or all of them when it is empty. The path is singular:
// the plural one does not exist.
func (cl *Client) DeleteRequests(ctx context.Context, key, id string, query url.Values) error {
	_, err := cl.Do(ctx, Call{Method: http.MethodDelete, Path: tokenPath(id) + "/request", Query: query, Key: key, What: what(id)})
	return err
}

// Page is a listing envelope, as DecodePage reads it. Data holds the requests as the API sent them;
// Fields keeps every member, so the envelope can be returned as it came.
type Page struct {
	Data       []json.RawMessage
	Total      int
	PerPage    int
	Page       int
	IsLastPage bool
	From, To   int
	Fields     map[string]json.RawMessage
}

func DecodePage(body []byte) (*Page, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, fmt.Errorf("the capture API sent a listing that is not a JSON object: %s", httpx.Snippet(body, 120))
	}
	p := &Page{Fields: fields}
	// The API is PHP: an empty list may arrive as [] or {}. Decode loosely.
	if raw := fields["data"]; len(raw) > 0 && raw[0] == '[' {
		if err := json.Unmarshal(raw, &p.Data); err != nil {
			return nil, fmt.Errorf("the capture API sent a listing whose data is malformed: %v", err)
		}
	}
	// The envelope's numbers, loosely too: a member missing, null or of
	// another type reads as zero (false), and the listing is still usable.
	p.Total, p.PerPage, p.Page = lenient[int](fields["total"]), lenient[int](fields["per_page"]), lenient[int](fields["current_page"])
	p.IsLastPage = lenient[bool](fields["is_last_page"])
	p.From, p.To = lenient[int](fields["from"]), lenient[int](fields["to"])
	return p, nil
}

// lenient decodes raw as a T, or gives T's zero value when raw is missing or
// holds another type.
func lenient[T any](raw json.RawMessage) T {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		var zero T
		return zero
	}
	return v
}

// jsonObject checks that body is a JSON object.
func jsonObject(body []byte, what string) (json.RawMessage, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(body, &probe); err != nil {
		return nil, fmt.Errorf("the capture API sent %s as something other than a JSON object", what)
	}
	return json.RawMessage(body), nil
}
