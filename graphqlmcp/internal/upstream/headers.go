package upstream

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpforge/servers/shared/httpx"
)

// Defaults are the headers every GraphQL request starts from. The Accept value
// asks for the GraphQL-over-HTTP media type first, which lets a server answer
// a failed request with a non-2xx status and a GraphQL body.
func Defaults() http.Header {
	return http.Header{
		"Content-Type": {"application/json"},
		"Accept":       {"application/graphql-response+json, application/json;q=0.9"},
	}
}

// transportOwned lists the headers the HTTP layer sets itself; a caller's
// value would be ignored or would corrupt the request.
const transportOwned = "Host, Content-Length, Transfer-Encoding, Connection"

func isTransportOwned(name string) bool {
	switch http.CanonicalHeaderKey(name) {
	case "Host", "Content-Length", "Transfer-Encoding", "Connection":
		return true
	}
	return false
}

// CheckHeaders refuses header names that are not valid HTTP tokens or that the
// HTTP layer owns, and values with line breaks. Its errors never show a
// value, and show a name only when it reads as one (httpx.HeaderName): a
// refused name is often a whole header line, or a token pasted as a name.
func CheckHeaders(headers map[string]string) error {
	names := make([]string, 0, len(headers))
	for name := range headers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if !httpx.ValidHeaderName(name) {
			return errors.New(httpx.InvalidHeaderName(name))
		}
		if isTransportOwned(name) {
			return fmt.Errorf("header %q cannot be set: the HTTP layer sets %s itself; remove it", name, transportOwned)
		}
		if strings.ContainsAny(headers[name], "\r\n\x00") {
			return fmt.Errorf("the value of header %s contains a line break or NUL, which HTTP does not allow", httpx.HeaderName(name))
		}
	}
	return nil
}

// Merge builds the headers of one request: Defaults, then startup (when the
// caller decided they apply), then call; a later header replaces an earlier
// one of the same name, compared case-insensitively.
func Merge(startup, call map[string]string) http.Header {
	merged := Defaults()
	for _, layer := range []map[string]string{startup, call} {
		for name, value := range layer {
			merged.Set(name, value)
		}
	}
	return merged
}
