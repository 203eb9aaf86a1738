package config

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/app"
	"github.com/mcpforge/servers/shared/httpx"
)

// forwardFlags are the flags of the headers forwarded from an HTTP client (--forward-header).
func forwardFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{
			Name: "forward-header",
			Usage: "with --transport http: a header of each client's HTTP request to send on to the default endpoint's origin " +
				"(repeatable, e.g. Authorization), so each client reaches the API as itself; inert over stdio",
			Sources: cli.EnvVars("GRAPHQL_FORWARD_HEADERS"),
		},
	}
}

// readForward checks the flags of the headers forwarded from an HTTP client (--forward-header) into cfg.
func readForward(cmd *cli.Command, cfg *Config) error {
	var names []string
	for _, raw := range cmd.StringSlice("forward-header") {
		for _, name := range strings.Split(raw, ",") {
			if name = strings.TrimSpace(name); name != "" {
				names = append(names, name)
			}
		}
	}
	// The flags under which a client's Authorization is its credential
	// for graphqlmcp itself (shared/app's).
	authorizedBy := ""
	for _, flag := range []string{"http-token", "oauth-issuer"} {
		if strings.TrimSpace(cmd.String(flag)) != "" {
			authorizedBy = flag
		}
	}
	forward, err := ParseForwardHeaders(names, authorizedBy)
	if err != nil {
		return app.FlagErrorf("forward-header", "%v", err)
	}
	cfg.ForwardHeaders = forward
	return nil
}

// maxForwarded and maxForwardedName bound the names --forward-header
// takes, which every call reads and the start logs.
const (
	maxForwarded     = 20
	maxForwardedName = 100
)

// ParseForwardHeaders checks the names of the headers to forward: each a
// header a caller may set (upstream.CheckHeaders: no framing header), given
// once, and none that belongs to the MCP connection itself. authorizedBy names the flag (http-token, oauth-issuer)
// under which clients send graphqlmcp its own credential as
// Authorization, which must then not go upstream: an OAuth access token
// is for graphqlmcp alone (MCP's authorization spec forbids passing it
// through). Its errors read after the flag's name ("must ...").
func ParseForwardHeaders(names []string, authorizedBy string) ([]string, error) {
	if len(names) > maxForwarded {
		return nil, fmt.Errorf("must name at most %d headers, got %d; forward only those that say who the caller is", maxForwarded, len(names))
	}
	seen := map[string]string{}
	var forward []string
	for _, name := range names {
		if len(name) > maxForwardedName {
			return nil, fmt.Errorf("must name headers of at most %d characters, got one of %d; name the header, such as Authorization", maxForwardedName, len(name))
		}
		if err := upstream.CheckHeaders(map[string]string{name: ""}); err != nil {
			return nil, fmt.Errorf("must name headers a caller may set: %v", err)
		}
		key := http.CanonicalHeaderKey(strings.ReplaceAll(name, "_", "-"))
		if other, ok := seen[key]; ok {
			return nil, fmt.Errorf("must name each header once; %s and %s name the same header", httpx.HeaderName(other), httpx.HeaderName(name))
		}
		seen[key] = name
		switch {
		case strings.HasPrefix(key, "Mcp-"), key == "Last-Event-Id", key == "Origin":
			return nil, fmt.Errorf("must not name %s: it belongs to the MCP connection between the client and graphqlmcp, not to the API; remove it", httpx.HeaderName(name))
		case key == "Authorization" && authorizedBy == "http-token":
			return nil, fmt.Errorf("must not name Authorization while --http-token is set: clients send the token as Authorization: Bearer <token>, which would go upstream; " +
				"serve without --http-token (on loopback, or behind a proxy that authenticates, with --insecure-no-auth), or forward another header")
		case key == "Authorization" && authorizedBy != "":
			return nil, fmt.Errorf("must not name Authorization while --%s is set: clients send their OAuth access token for graphqlmcp as Authorization: Bearer <token>, "+
				"which is for graphqlmcp alone and must not go upstream; forward another header", authorizedBy)
		}
		forward = append(forward, name)
	}
	return forward, nil
}

// ForwardLog is the line to log at start about --forward-header, and its
// level; "" when none is set. Over stdio nothing is forwarded (no HTTP
// request carries headers, and the process's own user is the only
// caller), which is worth a warning: the operator expected otherwise.
func ForwardLog(cfg Config, overHTTP bool) (slog.Level, string) {
	if len(cfg.ForwardHeaders) == 0 {
		return slog.LevelInfo, ""
	}
	if !overHTTP {
		return slog.LevelWarn, fmt.Sprintf("--forward-header %s has no effect over stdio: only a client's HTTP request (--transport http) carries headers to forward", strings.Join(cfg.ForwardHeaders, ", "))
	}
	return slog.LevelInfo, fmt.Sprintf("forwarding the headers %s of each client's HTTP request to the default endpoint's origin", strings.Join(cfg.ForwardHeaders, ", "))
}
