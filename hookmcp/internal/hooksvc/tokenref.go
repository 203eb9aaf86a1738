package hooksvc

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/redact"
)

// maxTokenRefChars bounds what ParseToken reads: a capture URL with a long
// path is still far under it.
const maxTokenRefChars = 2_000

// ParseToken reads a token as a user pastes it and returns its UUID: the
// UUID itself, a capture URL (<base>/<uuid>/any/path, or the token's
// subdomain https://<uuid>.webhook.site/...), the web app's view URL
// (https://webhook.site/#!/view/<uuid>), the email address
// (<uuid>@emailhook.site) or a DNS name (anything.<uuid>.dnshook.site).
// name is the argument, for errors. The API takes a token's UUID only, so an
// alias is refused with the way to find the UUID, and so is a URL of another
// service than the one configured: its token does not live here. Nothing is
// sent anywhere. secrets are keys besides the configured one (a call's
// own) that an error must not show: they are redacted before a value is
// cut to be quoted, so that no cut leaves part of one.
func (cl *Client) ParseToken(name, v string, secrets ...string) (TokenID, error) {
	v = strings.TrimSpace(v)
	if len(v) > maxTokenRefChars {
		return "", fmt.Errorf("%s is %d characters long; a token is its UUID such as %s (or a capture URL, email address or DNS name that holds it)", name, len(v), ExampleUUID)
	}
	if UUIDPattern.MatchString(v) {
		return TokenID(strings.ToLower(v)), nil
	}
	r := redact.New(append([]string{cl.APIKey}, secrets...)...)
	shown := r.String(v)
	if strings.Contains(v, "://") {
		id, err := cl.tokenOfURL(name, v, r)
		return id, redacted(err, r)
	}
	if host, _, ok := strings.Cut(v, "/"); ok && strings.Contains(host, ".") && !strings.Contains(host, "@") {
		// A capture URL pasted without its scheme: webhook.site/<uuid>.
		id, err := cl.tokenOfURL(name, cl.BaseURL.Scheme+"://"+v, r)
		return id, redacted(err, r)
	}
	if local, _, ok := strings.Cut(v, "@"); ok {
		if UUIDPattern.MatchString(local) {
			return TokenID(strings.ToLower(local)), nil
		}
		return "", fmt.Errorf("%s %s is an email address whose name is not a token UUID: a token's address is <uuid>@emailhook.site. Pass the token's UUID, such as %s", name, Quote(shown), ExampleUUID)
	}
	if strings.Contains(v, ".") && !strings.ContainsAny(v, "/ ") {
		// The token is the label right before dnshook.site: a name's
		// other labels are the sender's own, and may be any UUID.
		labels := strings.Split(strings.ToLower(strings.TrimSuffix(v, ".")), ".")
		if strings.Join(labels[1:], ".") == canonicalHost(cl.BaseURL) && UUIDPattern.MatchString(labels[0]) {
			// The token's subdomain without its scheme: <uuid>.webhook.site.
			return TokenID(labels[0]), nil
		}
		if n := len(labels); n >= 3 && labels[n-2] == "dnshook" && labels[n-1] == "site" && UUIDPattern.MatchString(labels[n-3]) {
			return TokenID(labels[n-3]), nil
		}
		return "", fmt.Errorf("%s %s is a host name without a token UUID right before dnshook.site: a token's DNS name is <anything>.<uuid>.dnshook.site. Pass the token's UUID, such as %s", name, Quote(shown), ExampleUUID)
	}
	if AliasPattern.MatchString(v) {
		return "", aliasError(name, shown)
	}
	return "", fmt.Errorf("%s must be a token UUID such as %s (a capture URL, the token's email address or its DNS name also work); got %s", name, ExampleUUID, Quote(shown))
}

// redacted is err with key hidden from its text: a pasted value is shown
// in errors, and may hold the key.
func redacted(err error, r redact.Redactor) error {
	if err == nil {
		return nil
	}
	return errors.New(r.String(err.Error()))
}

// aliasError refuses an alias: the API's paths take a token's UUID only, and
// no call of the API turns an alias into one.
func aliasError(name, alias string) error {
	return fmt.Errorf("%s must be a token UUID such as %s; got %s. The API does not accept a token's alias in its place: pass the token's UUID "+
		"(create_token returns it, and the web app shows it) or a capture URL, email address or DNS name that holds it", name, ExampleUUID, Quote(alias))
}

// tokenOfURL finds the token in a URL of the configured service: the first
// label of its host (the token's subdomain), else the first path segment
// after the base path (or the API's own /token/<uuid>), else, with no path,
// the web app's fragment #!/view/<uuid>. A UUID anywhere else in the URL is
// not the token's (an alias's capture URL may hold an order's id), so a
// first segment that is not a UUID is refused as an alias is. Its errors
// show raw redacted by r.
func (cl *Client) tokenOfURL(name, raw string, r redact.Redactor) (TokenID, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s is not a URL hookmcp can read (want https://<host>/<token uuid>/...): pass the token's UUID, such as %s", name, ExampleUUID)
	}
	shown := r.String(httpx.DisplayURL(u))
	// Ports count: another port is another service.
	host, base := canonicalHost(u), canonicalHost(cl.BaseURL)
	first, parent, _ := strings.Cut(host, ".")
	if host == "" || host != base && !(parent == base && (UUIDPattern.MatchString(first))) {
		return "", fmt.Errorf("%s is a URL of %s, but hookmcp uses the capture API at %s (HOOKSVC_API_URL), which does not hold that service's tokens: "+
			"pass a token of %s, or start hookmcp with HOOKSVC_API_URL set to that service's base URL", name, Clip(r.String(u.Host)), httpx.DisplayURL(cl.BaseURL), cl.BaseURL.Host)
	}
	if UUIDPattern.MatchString(first) {
		return TokenID(strings.ToLower(first)), nil
	}
	noToken := fmt.Errorf("%s %s holds no token UUID: a capture URL is %s/<token uuid>/...; pass the token's UUID, such as %s", name, Quote(shown), httpx.DisplayURL(cl.BaseURL), ExampleUUID)
	path := strings.Trim(u.Path, "/")
	if basePath := strings.Trim(cl.BaseURL.Path, "/"); basePath != "" {
		rest, ok := strings.CutPrefix(path, basePath)
		if !ok || rest != "" && rest[0] != '/' {
			return "", noToken
		}
		path = rest
	}
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case UUIDPattern.MatchString(parts[0]):
		return TokenID(strings.ToLower(parts[0])), nil
	case parts[0] == "token" && len(parts) > 1 && UUIDPattern.MatchString(parts[1]):
		// The API's own address of the token, /token/<uuid>/...
		return TokenID(strings.ToLower(parts[1])), nil
	case parts[0] != "" && AliasPattern.MatchString(parts[0]):
		return "", aliasError(name, shown)
	case parts[0] != "":
		return "", noToken
	}
	view := strings.Split(strings.Trim(strings.TrimPrefix(u.Fragment, "!"), "/"), "/")
	switch {
	case UUIDPattern.MatchString(view[0]):
		return TokenID(strings.ToLower(view[0])), nil
	case view[0] == "view" && len(view) > 1 && UUIDPattern.MatchString(view[1]):
		return TokenID(strings.ToLower(view[1])), nil
	}
	return "", noToken
}

// canonicalHost is u's host as the transport dials it (httpx.CanonicalHost),
// with its port unless that is the scheme's default; "" when it has no
// canonical form, which matches nothing.
func canonicalHost(u *url.URL) string {
	host, port, err := httpx.CanonicalHostPort(u)
	if err != nil {
		return ""
	}
	if port == "443" && u.Scheme == "https" || port == "80" && u.Scheme == "http" {
		return host
	}
	return net.JoinHostPort(host, port)
}
