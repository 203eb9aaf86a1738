package httpx

import (
	"net/url"
	"strings"
)

// RedactURL renders a URL given by a person or a configuration for an error
// message with what may carry a credential hidden: the user info
// (user:password@), the query string and the fragment. Text that does not
// parse as a URL is cut at its first '?' or '#', and its user info hidden,
// the same way.
func RedactURL(raw string) string {
	const hidden = "REDACTED"
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		text := raw
		if i := strings.IndexAny(text, "?#"); i >= 0 {
			text = text[:i] + "?" + hidden
		}
		if scheme, rest, ok := strings.Cut(text, "://"); ok {
			if at := strings.LastIndex(rest[:indexOr(rest, "/", len(rest))], "@"); at >= 0 {
				text = scheme + "://" + hidden + "@" + rest[at+1:]
			}
		}
		return text
	}
	if u.User != nil {
		u.User = url.User(hidden)
	}
	if u.RawQuery != "" || u.ForceQuery {
		u.RawQuery = hidden
	}
	if u.Fragment != "" || u.RawFragment != "" {
		u.Fragment, u.RawFragment = hidden, ""
	}
	return u.String()
}

func indexOr(s, sub string, otherwise int) int {
	if i := strings.Index(s, sub); i >= 0 {
		return i
	}
	return otherwise
}
