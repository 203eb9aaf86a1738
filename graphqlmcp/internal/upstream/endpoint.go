package upstream

import (
	"fmt"
	"net/url"
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
	isDefault := sameEndpoint(u, p.Default)
	explicit := isDefault
	if !isDefault {
		if err := checkPath(u); err != nil {
			return Target{}, fmt.Errorf("endpoint %s is refused: %v; omit endpoint to use the default", httpx.DisplayURL(u), err)
		}
		// Judged decoded, sent as judged: /gr%61phql goes out as /graphql.
		u.RawPath = ""
	}
	if !isDefault && len(p.Allow) > 0 {
		for _, prefix := range p.Allow {
			if httpx.UnderPrefix(u, prefix) {
				explicit = true
				break
			}
		}
		if !explicit {
			return Target{}, fmt.Errorf("endpoint %s is not allowed: this server takes per-call endpoints only under %s (--allow-endpoint); omit endpoint to use the default", httpx.DisplayURL(u), p.allowedList())
		}
	}
	if !isDefault && !p.configuredQuery(u) {
		return Target{}, fmt.Errorf("endpoint %s is refused: its query string is not the one configured for it. Some GraphQL servers (express-graphql and its forks) "+
			"run the query, variables or operationName of the URL's query string in place of the body's, so a per-call endpoint may carry no query string, "+
			"or exactly that of the default endpoint or of the --allow-endpoint entry it matches; remove the query string, or omit endpoint to use the default", httpx.DisplayURL(u))
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

// configuredQuery reports whether u's query string may go with a per-call endpoint:
// none, or exactly the query string the operator wrote for the default
// endpoint or for an --allow-endpoint entry the endpoint matches. Compared
// as written, so that no spelling of a parameter (Query, %71uery, query[])
// passes for what was configured.
func (p Policy) configuredQuery(u *url.URL) bool {
	if u.RawQuery == "" || u.RawQuery == p.Default.RawQuery {
		return true
	}
	return slices.ContainsFunc(p.Allow, func(prefix *url.URL) bool { return httpx.UnderPrefix(u, prefix) && u.RawQuery == prefix.RawQuery })
}

// checkPath refuses a per-call endpoint's path that a server or proxy on
// the way could read as another path than the one the allow-list judged:
// one that climbs out of a prefix (a segment starting with ".", which
// covers . and .. and the ".;" and "..;" a Java server reads as them), that
// a Windows or Java server splits differently (a backslash, a ;parameter),
// that decodes into a slash, backslash, semicolon or dot (%2f, %5c, %3b,
// %2e in any case), or into anything else when decoded again (%25, which
// double encoding needs), or that holds anything but printable ASCII once
// decoded (overlong UTF-8 such as %c0%ae and fullwidth dots are dots to
// some servers), or a ? or # (a query string to a hop that decodes the
// path first). A GraphQL endpoint's path needs none of these.
func checkPath(u *url.URL) error {
	for _, r := range u.Path {
		if r <= ' ' || r >= 0x7f || strings.ContainsRune(`;\%?#"<>[]^`+"`{|}", r) {
			return fmt.Errorf("its path holds %q, which a server may read as a path parameter, another separator or another character; a per-call endpoint's path holds letters, digits and - . _ ~ ! $ & ' ( ) * + , = : @ / only", r)
		}
	}
	escaped := strings.ToLower(u.EscapedPath())
	for _, enc := range []struct{ code, char string }{{"%2f", "/"}, {"%2e", "."}} {
		if strings.Contains(escaped, enc.code) {
			return fmt.Errorf("its path holds %s, an encoded %s, which a server that decodes the path reads as a separator or a dot segment; write the path plainly", strings.ToUpper(enc.code), enc.char)
		}
	}
	for _, segment := range strings.Split(u.Path, "/") {
		if strings.HasPrefix(segment, ".") {
			return fmt.Errorf("its path has the segment %q, which starts with a dot: . and .. (and .;, ..;) climb out of the path the allow-list judged; write the path without them", segment)
		}
	}
	return nil
}
