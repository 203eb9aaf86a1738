package httpx

import (
	"net/url"
	"strings"
)

// UnderPrefix reports whether u lies under prefix, an operator's allowed
// URL prefix (graphqlmcp's --allow-endpoint, hookmcp's --replay-to): the
// same origin (scheme, canonical host and port) and a path under prefix's
// on a segment boundary, so that /hooks holds /hooks and /hooks/stripe but
// not /hooksx. Paths are compared decoded, as a server serves them: the
// caller first refuses a path that a server could read as another (dot
// segments, encoded slashes), each server by the rule its paths need.
func UnderPrefix(u, prefix *url.URL) bool {
	if !SameOrigin(u, prefix) {
		return false
	}
	base := strings.TrimSuffix(prefix.Path, "/")
	return base == "" || u.Path == base || strings.HasPrefix(u.Path, base+"/")
}
