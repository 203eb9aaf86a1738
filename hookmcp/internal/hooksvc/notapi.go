package hooksvc

import (
	"bytes"
	"fmt"
	"mime"
	"net/url"
	"strings"

	"github.com/mcpforge/servers/shared/httpx"
)

// notTheAPI explains a success that the API would not give, which means
// HOOKSVC_API_URL names something else: a capture URL (the request was
// captured, and answered with the token's default response, marked by
// X-Token-Id), a web page, or another service. A call that expects no JSON
// (a delete) is judged by the capture mark alone, and a raw body not at all.
func (cl *Client) notTheAPI(c Call, resp *httpx.Answer) error {
	if c.Raw {
		return nil
	}
	body := bytes.TrimSpace(resp.Body)
	isJSON := len(body) > 0 && (body[0] == '{' || body[0] == '[')
	if token := resp.Header.Get("X-Token-Id"); token != "" && !isJSON {
		return cl.captureURLError(c, resp, token)
	}
	if !c.JSON || isJSON {
		return nil
	}
	redactor := cl.redactor(c)
	if httpx.IsWebPage(resp.Header, resp.Body) {
		return fmt.Errorf("%s failed: %s answered HTTP %d with %s, not the capture API's JSON: that URL is a web page, not the API. "+
			"HOOKSVC_API_URL (--api-url) must be the API's base URL (for the hosted service: %s), set when starting hookmcp",
			c.doing(), httpx.DisplayURL(cl.BaseURL), resp.Status, describeBody(resp, redactor), hostedURL)
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mediaType == "" {
		mediaType = "typeless"
	}
	return fmt.Errorf("%s failed: %s answered HTTP %d with a %s body, not the capture API's JSON: %s. "+
		"Check that HOOKSVC_API_URL (--api-url) is the API's base URL (for the hosted service: %s), set when starting hookmcp",
		c.doing(), httpx.DisplayURL(cl.BaseURL), resp.Status, mediaType, describeBody(resp, redactor), hostedURL)
}

// captureURLError says that HOOKSVC_API_URL is a token's capture URL, and
// which base URL to use instead.
func (cl *Client) captureURLError(c Call, resp *httpx.Answer, token string) error {
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mediaType == "" {
		mediaType = "no Content-Type"
	}
	text := fmt.Sprintf("%s failed: HOOKSVC_API_URL (%s) is a capture URL, not the capture API: the request was captured by token %s "+
		"and answered with its default response (HTTP %d, %s) instead of the API's JSON. "+
		"Set HOOKSVC_API_URL to the service's base URL, %s, when starting hookmcp (and HOOKSVC_TOKEN_ID=%s to make that token the default)",
		c.doing(), httpx.DisplayURL(cl.BaseURL), token, resp.Status, mediaType, BaseOfCaptureURL(cl.BaseURL, token), token)
	if c.Key != "" {
		text += ". The API key was sent with that request, and whoever has the capture URL can read it there: " +
			"delete the token's requests once hookmcp uses the right URL, or change the key"
	}
	return fmt.Errorf("%s", text)
}

// BaseOfCaptureURL is the service's base URL for u, a capture URL: u without
// the path segment naming the token (and what follows it), or without its
// last segment when none does (an alias); a token's subdomain
// (https://<uuid>.webhook.site) is dropped too.
func BaseOfCaptureURL(u *url.URL, token string) string {
	base := &url.URL{Scheme: u.Scheme, Host: u.Host}
	if first, rest, ok := strings.Cut(u.Host, "."); ok && (strings.EqualFold(first, token) || UUIDPattern.MatchString(first)) && strings.Contains(rest, ".") {
		base.Host = rest
	}
	segments := strings.Split(strings.Trim(u.Path, "/"), "/")
	cut := len(segments) - 1
	for i, segment := range segments {
		if strings.EqualFold(segment, token) || UUIDPattern.MatchString(segment) {
			cut = i
			break
		}
	}
	if cut > 0 {
		base.Path = "/" + strings.Join(segments[:cut], "/")
	}
	return base.String()
}
