package httpx

import (
	"bytes"
	"html"
	"mime"
	"net/http"
	"regexp"
	"strings"
)

// IsWebPage reports an answer that is an HTML page: a site, a login page or
// a server's error page, where an API was expected. It goes by the
// Content-Type, and by the body's start when that says nothing. An empty
// body is no page, whatever its Content-Type: a server (or framework) may
// label an empty 204 text/html.
func IsWebPage(header http.Header, body []byte) bool {
	if len(bytes.TrimSpace(body)) == 0 {
		return false
	}
	mediaType, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	switch mediaType {
	case "text/html", "application/xhtml+xml":
		return true
	case "", "text/plain", "application/octet-stream":
		start := bytes.ToLower(bytes.TrimSpace(body[:min(len(body), 512)]))
		return bytes.HasPrefix(start, []byte("<!doctype html")) || bytes.HasPrefix(start, []byte("<html"))
	}
	return false
}

// PageTitle is what an HTML page says it is, its <title> or else its first
// <h1>, as plain text of at most 120 bytes; "" when it has neither. The
// search looks at the first 64 KiB only. Its patterns are compiled here, on
// a failure, not at every start of a server.
func PageTitle(body []byte) string {
	pageHeadings := regexp.MustCompile(`(?is)<(title|h1)[^>]*>(.*?)</(?:title|h1)>`)
	tags := regexp.MustCompile(`(?s)<[^>]*>`)
	for _, m := range pageHeadings.FindAllSubmatch(body[:min(len(body), 64<<10)], 2) {
		text := strings.Join(strings.Fields(html.UnescapeString(tags.ReplaceAllString(string(m[2]), " "))), " ")
		if text != "" {
			return Snippet([]byte(text), 120)
		}
	}
	return ""
}
