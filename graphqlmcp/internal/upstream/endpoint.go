package upstream

import (
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/mcpforge/servers/shared/httpx"
)

// Policy decides which endpoints a call may reach and which of them receive
// the startup headers.
type Policy struct {
	Default          *url.URL
	Allow            []*url.URL // origins or URL prefixes; empty allows any per-call endpoint
	HeadersAnyOrigin bool
}

// Target is an endpoint a call may use.
type Target struct {
	URL *url.URL
	// StartupHeaders reports whether the startup headers go to this endpoint.
	StartupHeaders bool
	// LinkLocalAllowed reports that the operator named this endpoint
	// explicitly, so it may be a link-local address.
	LinkLocalAllowed bool
	// IsDefault reports the default endpoint (--endpoint), named or not.
	IsDefault bool
}

// MaxEndpointLen bounds a per-call endpoint, so that the errors that name
// it stay short.
const MaxEndpointLen = 2048

// Resolve returns the Target for a call's endpoint argument ("" means the
// default). Its errors say why the endpoint was refused and what to do.
func (p Policy) Resolve(raw string) (Target, error) {
	if strings.TrimSpace(raw) == "" {
		return Target{URL: p.Default, StartupHeaders: true, LinkLocalAllowed: true, IsDefault: true}, nil
	}
	if len(raw) > MaxEndpointLen {
		// Not quoted whole: every error of the call would repeat it.
		return Target{}, fmt.Errorf("endpoint is %d bytes long, over the limit of %d for a URL; pass a shorter URL (%s)", len(raw), MaxEndpointLen, httpx.Snippet([]byte(httpx.RedactURL(raw[:200])), 100))
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Target{}, fmt.Errorf("endpoint %q is not an absolute http(s) URL: pass one such as https://api.example.com/graphql, or omit endpoint to use the default %s", httpx.RedactURL(raw), httpx.DisplayURL(p.Default))
	}
	if u, err = httpx.CanonicalURL(u); err != nil {
		return Target{}, fmt.Errorf("endpoint %s is refused: %v", httpx.RedactURL(raw), err)
	}
	u.Fragment = ""
	cleanPath(u)
	isDefault := sameEndpoint(u, p.Default)
	explicit := isDefault
	if !isDefault && len(p.Allow) > 0 {
		for _, prefix := range p.Allow {
			if matchesPrefix(u, prefix) {
				explicit = true
				break
			}
		}
		if !explicit {
			return Target{}, fmt.Errorf("endpoint %s is not allowed: this server takes per-call endpoints only under %s (--allow-endpoint); omit endpoint to use the default", httpx.DisplayURL(u), p.allowedList())
		}
	}
	if IsLinkLocalHost(u.Hostname()) && !explicit {
		return Target{}, fmt.Errorf("endpoint %s is refused: link-local and cloud metadata addresses are blocked; the operator can allow it with --allow-endpoint", httpx.DisplayURL(u))
	}
	return Target{
		URL:              u,
		StartupHeaders:   p.HeadersAnyOrigin || httpx.SameOrigin(u, p.Default),
		LinkLocalAllowed: explicit,
		IsDefault:        isDefault,
	}, nil
}

// Gate judges a redirect hop as a new endpoint: the allow-list and the
// link-local guard apply to it, and it may reach a link-local address only
// when the operator named it.
func (p Policy) Gate(u *url.URL) (bool, error) {
	target, err := p.Resolve(u.String())
	return target.LinkLocalAllowed, err
}

func (p Policy) allowedList() string {
	items := make([]string, len(p.Allow))
	for i, prefix := range p.Allow {
		items[i] = httpx.DisplayURL(prefix)
	}
	return strings.Join(items, ", ")
}

func sameEndpoint(a, b *url.URL) bool {
	return httpx.SameOrigin(a, b) && a.EscapedPath() == b.EscapedPath() && a.RawQuery == b.RawQuery
}

// matchesPrefix reports whether u has prefix's origin and its path lies under
// prefix's path, on a segment boundary: /graphql matches /graphql and
// /graphql/v2 but not /graphqlx.
func matchesPrefix(u, prefix *url.URL) bool {
	if !httpx.SameOrigin(u, prefix) {
		return false
	}
	base := strings.TrimSuffix(prefix.EscapedPath(), "/")
	path := u.EscapedPath()
	return base == "" || path == base || strings.HasPrefix(path, base+"/")
}

// cleanPath removes dot segments from u's path (/graphql/../echo is /echo,
// and so is /graphql/%2e%2e/echo once decoded), so that an allow-list prefix
// is matched against the path the endpoint will serve, and that path is
// what is sent. A path without dot segments is left as it was written.
func cleanPath(u *url.URL) {
	segments := strings.Split(u.Path, "/")
	if !slices.Contains(segments, "..") && !slices.Contains(segments, ".") {
		return
	}
	cleaned := path.Clean("/" + u.Path)
	if strings.HasSuffix(u.Path, "/") && cleaned != "/" {
		cleaned += "/"
	}
	u.Path, u.RawPath = cleaned, ""
}
