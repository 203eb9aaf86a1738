package httpx

import (
	"net/url"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// UnderPrefix reports whether u lies under prefix, an operator's allowed
// URL prefix (graphqlmcp's --allow-endpoint, hookmcp's --replay-to): the
// same origin (scheme, canonical host and port) and a path under prefix's
// on a segment boundary, so that /hooks holds /hooks and /hooks/stripe but
// not /hooksx. Paths are compared decoded, as a server serves them; the
// caller refuses first what its own paths never need (encoded slashes,
// %25), and a path that climbs (climbs) is never under a prefix, whatever
// the caller checked.
func UnderPrefix(u, prefix *url.URL) bool {
	if !SameOrigin(u, prefix) || climbs(u.Path) {
		return false
	}
	base := strings.TrimSuffix(prefix.Path, "/")
	return base == "" || u.Path == base || strings.HasPrefix(u.Path, base+"/")
}

// climbs reports a path a server could read as another than the one
// compared: one with a dot segment (. or .., split at / or at \ as a
// Windows server does), as written or in the form Unicode's compatibility
// normalization (NFKC) gives it, which some servers and frameworks apply
// before routing: a fullwidth dot (U+FF0E) or a two-dot leader (U+2025) is
// a dot there, a fullwidth solidus a separator, and a fullwidth % or ; one
// that the server may decode or split at next.
func climbs(path string) bool {
	if dotSegment(path) {
		return true
	}
	normal := norm.NFKC.String(path)
	return normal != path && (dotSegment(normal) || strings.ContainsAny(normal, `%;\`))
}

func dotSegment(path string) bool {
	for _, segment := range strings.FieldsFunc(path, func(r rune) bool { return r == '/' || r == '\\' }) {
		if segment == "." || segment == ".." {
			return true
		}
	}
	return false
}
