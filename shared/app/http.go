package app

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// httpAccess is who may use the Streamable HTTP endpoint.
type httpAccess struct {
	// allowOrigins are origins (scheme://host[:port]) whose browser pages
	// may call the server and read its answers (CORS).
	allowOrigins map[string]bool
	// token, when set, must come as "Authorization: Bearer <token>".
	token string
	// oauth, when set, admits OAuth access tokens too (oauth.go); a
	// request with the static token is admitted as before.
	oauth *oauthConfig
	// selfChecked are the tools that refuse writes themselves to a token
	// without the write scopes (WritesAllowed).
	selfChecked []string
	// resource checks OAuth tokens while serving (set by serveMCPWith).
	resource *resourceServer
	// ready answers /readyz (probes.go), which needs no token; it rides
	// here only to reach the handler.
	ready *Readiness
}

// minHTTPTokenLen keeps a guessable token from standing in for one.
const minHTTPTokenLen = 16

// httpAccessFrom reads --allow-origin, --http-token and --insecure-no-auth
// and refuses a listener that anyone could reach without a token: the
// server holds its operator's credentials (a GitHub token, a capture-API
// key), and any caller of /mcp uses them.
func httpAccessFrom(listen string, allowOrigins []string, token string, insecure bool, envPrefix string) (httpAccess, error) {
	access := httpAccess{allowOrigins: map[string]bool{}, token: token}
	for _, raw := range allowOrigins {
		for _, item := range strings.Split(raw, ",") {
			if item = strings.TrimSpace(item); item == "" {
				continue
			}
			origin, ok := normalizeOrigin(item)
			if !ok {
				return httpAccess{}, FlagErrorf("allow-origin", "must be a web origin, scheme://host[:port]; got %s. For example --allow-origin https://app.example.com", mcptool.QuoteUpTo(item, maxQuotedValue))
			}
			access.allowOrigins[origin] = true
		}
	}
	if token != "" && (len(token) < minHTTPTokenLen || strings.ContainsAny(token, " \t\r\n")) {
		// Not repeated: it is a secret, even when malformed.
		return httpAccess{}, FlagErrorf("http-token", "must be at least %d characters with no spaces; generate one with: openssl rand -hex 32", minHTTPTokenLen)
	}
	if token == "" && !insecure && !isLoopbackListen(listen) {
		return httpAccess{}, FlagErrorf("listen", "is %s, not a loopback address, and anyone who reaches it could use this server's credentials: "+
			"set --http-token (%s_HTTP_TOKEN) so that clients must send Authorization: Bearer <token>, "+
			"or pass --insecure-no-auth if something in front of the server already authenticates callers", shortened(listen), envPrefix)
	}
	return access, nil
}

// isLoopbackListen reports a listen address only this machine can reach.
func isLoopbackListen(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	return httpx.IsLoopbackHost(host)
}

// normalizeOrigin renders an origin in the one form origins are compared
// in (httpx.Origin): the host as the transport names it (IDNA, ASCII lower
// case; browsers send a page's origin so), the port always written. A
// host with no such form is no origin.
func normalizeOrigin(raw string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return "", false
	}
	origin, err := httpx.Origin(u)
	return origin, err == nil
}

// isLocalOrigin reports an origin on this machine: a page served from
// localhost, 127.0.0.0/8 or [::1], on any port.
func isLocalOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return isLoopbackListen(net.JoinHostPort(u.Hostname(), "0"))
}

// guard checks every request to /mcp before the MCP handler sees it. The
// MCP transport spec requires servers to validate Origin, so that a web page
// the user visits cannot drive a local server (DNS rebinding, cross-site
// requests); a request with no Origin comes from a program, not a page.
//
// Only the origins of --allow-origin get CORS headers and preflight
// answers, so only their pages can read an answer. A local origin not
// listed is served as before CORS existed here (a program on this machine
// may send one), but with no CORS header: a local page (any dev server, any
// local app) can neither read the answer nor pass the preflight that a
// JSON POST needs, so it cannot read captured webhooks or use the server's
// credentials.
func (a httpAccess) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" {
			normalized, ok := normalizeOrigin(origin)
			switch {
			case ok && a.allowOrigins[normalized]:
				allowCORS(w.Header(), origin)
				if isPreflight(r) {
					answerPreflight(w, r)
					return
				}
			case ok && isLocalOrigin(normalized) && !isPreflight(r):
			default:
				http.Error(w, "Forbidden: requests from the web page at this Origin are refused; the server's operator can allow it with --allow-origin", http.StatusForbidden)
				return
			}
		}
		if a.token != "" || a.resource != nil {
			if problem := misplacedToken(r); problem != "" {
				if a.resource != nil {
					a.resource.challenge(w, http.StatusBadRequest, "invalid_request", problem, "Bad Request: "+problem)
				} else {
					http.Error(w, "Bad Request: "+problem, http.StatusBadRequest)
				}
				return
			}
			given, bearer := bearerToken(r)
			switch {
			case a.token != "" && bearer && subtle.ConstantTimeCompare([]byte(given), []byte(a.token)) == 1:
			case a.resource != nil:
				var ok bool
				if r, ok = a.resource.authenticate(w, r); !ok {
					return
				}
			default:
				w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
				http.Error(w, "Unauthorized: send Authorization: Bearer <the server's --http-token>", http.StatusUnauthorized)
				return
			}
		}
		admit(w, r)
		next.ServeHTTP(w, r)
	})
}

// bearerToken is the token of r's Authorization header, its scheme
// compared without regard to case (RFC 9110 §11.1: "bearer" is Bearer).
func bearerToken(r *http.Request) (string, bool) {
	scheme, token, found := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	return token, found && strings.EqualFold(scheme, "Bearer") && token != ""
}

// misplacedToken says why r's token is refused before it is looked at:
// one in the URL (the MCP authorization spec forbids it: URLs are logged
// and kept, RFC 6750 §5.3), or two Authorization headers, of which a proxy
// in front might check one and this server another. "" when neither.
func misplacedToken(r *http.Request) string {
	if r.URL.Query().Has("access_token") {
		return "a token in the URL (access_token) is refused, as URLs are logged and kept; send it only as Authorization: Bearer <token>, and revoke it if it was real"
	}
	if len(r.Header.Values("Authorization")) > 1 {
		return "the request has more than one Authorization header; send one"
	}
	return ""
}

// httpHandler serves server over Streamable HTTP at /mcp, stateless (every
// request stands alone, so any number of clients and replicas work), with a
// liveness probe at /healthz that needs no token and tells nothing. The
// go-sdk handler also rejects requests whose Host is not local when they
// arrive on a loopback address (DNS rebinding). Only a request the guard
// admits keeps its connection (hangUpUnadmitted).
func httpHandler(server *mcp.Server, logger *slog.Logger, access httpAccess, calls *httpCalls) http.Handler {
	return httpHandlerWith(server, logger, access, calls, maxBodyReadTime)
}

// httpHandlerWith is httpHandler with the time a request body may take.
func httpHandlerWith(server *mcp.Server, logger *slog.Logger, access httpAccess, calls *httpCalls, bodyTime time.Duration) http.Handler {
	mcpHandler := newMCPHTTP(server, logger, calls)
	mcpHandler.maxBodyTime = bodyTime
	mux := http.NewServeMux()
	mux.Handle("/mcp", access.guard(mcpHandler))
	if access.resource != nil {
		access.resource.addMetadata(mux)
	}
	addProbes(mux, access.ready)
	return hangUpUnadmitted(mux, bodyTime)
}

// serveHTTP listens on addr and serves httpHandler until ctx is done. Then
// it stops taking connections and ends as stdio does: calls in flight have
// shutdownGrace to finish, those still running are answered with a "server
// shutting down" error (see shutdown), and it returns once every answer is
// out, or shutdownAnswerWait later, whatever slow clients do.
func serveHTTP(ctx context.Context, server *mcp.Server, addr string, access httpAccess, logger *slog.Logger) error {
	listener, err := net.Listen("tcp", addr)
	if err != nil {
		return FlagErrorf("listen", "cannot listen on %s: %s. For example --listen 127.0.0.1:8080", shortened(addr), shortened(err.Error()))
	}
	limits := defaultHTTPLimits()
	var issuer string
	if access.oauth != nil {
		issuer = access.oauth.issuer
	}
	logger.Info("serving MCP over Streamable HTTP", "url", "http://"+listener.Addr().String()+"/mcp", "bearer_token_required", access.token != "", "oauth_issuer", issuer,
		"max_connections", limits.conns, "max_unadmitted_per_address", limits.perAddr, "header_timeout", limits.readHeader, "idle_timeout", limits.idle)
	return serveMCPWith(ctx, listener, server, access, logger, shutdownGrace, limits)
}

// serveMCP is serveHTTP on a listener, with the shutdown grace to use. A
// request body still arriving when the grace ends is cut short and its call
// answered too (see mcpHTTP.readBody).
func serveMCP(ctx context.Context, listener net.Listener, server *mcp.Server, access httpAccess, logger *slog.Logger, grace time.Duration) error {
	return serveMCPWith(ctx, listener, server, access, logger, grace, defaultHTTPLimits())
}

// serveMCPWith is serveMCP with the listener's limits (tests make them
// short).
func serveMCPWith(ctx context.Context, listener net.Listener, server *mcp.Server, access httpAccess, logger *slog.Logger, grace time.Duration, limits httpLimits) error {
	end := newShutdown(grace)
	server.AddReceivingMiddleware(end.middleware)
	if access.oauth != nil {
		tools := newToolIndex(ctx, server)
		defer tools.close()
		access.resource = newResourceServer(*access.oauth, logger)
		server.AddReceivingMiddleware(access.resource.scopes(tools, access.selfChecked).middleware)
	}
	calls := newHTTPCalls(logger, end.expired)
	return serveDraining(ctx, listener, httpHandlerWith(server, logger, access, calls, limits.body), logger, func() {
		end.begin(stopReason(ctx))
	}, grace+shutdownAnswerWait, limits)
}

// Serve serves handler on listener until ctx is done, then shuts down
// gracefully: requests in flight have shutdownGrace and shutdownAnswerWait
// to finish, then every connection still open is closed. The loopback
// stand-ins (the sample GraphQL API, the capture-API fake) use it too.
func Serve(ctx context.Context, listener net.Listener, handler http.Handler, logger *slog.Logger) error {
	// Their handlers admit no one and all their clients are on this
	// machine, so a per-address share would only cut their own clients'
	// kept-alive connections; the cap still holds.
	limits := defaultHTTPLimits()
	limits.perAddr = 0
	return serveDraining(ctx, listener, handler, logger, func() {}, shutdownGrace+shutdownAnswerWait, limits)
}

// serveDraining is Serve with drain called as shutdown starts, while
// requests in flight are waited for, for at most wait. Past that, the
// connections still open are closed: a client that holds a request body
// back, or stops reading its answer, does not hold the process, whose end
// stays within a few seconds and a success.
func serveDraining(ctx context.Context, listener net.Listener, handler http.Handler, logger *slog.Logger, drain func(), wait time.Duration, limits httpLimits) error {
	conns := newConnRegistry(limits)
	listener = conns.listener(listener)
	httpServer := &http.Server{
		Handler:     handler,
		ConnState:   conns.connState,
		ConnContext: connContext,
		// No ReadTimeout or WriteTimeout: they would end a long call (a
		// 300 s wait_for_request) or its stream; the MCP handler bounds
		// the time a request body takes instead (limits.body).
		ReadHeaderTimeout: limits.readHeader,
		IdleTimeout:       limits.idle,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- httpServer.Serve(listener) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	drain()
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), wait)
	defer cancel()
	if err := httpServer.Shutdown(shutdownCtx); err != nil {
		if !errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("shutdown: %w", err)
		}
		// Every call has had its answer written, or its client is not
		// taking it: neither is worth more waiting.
		logger.Warn("closing the connections of clients that did not finish in time", "waited", wait)
		if err := httpServer.Close(); err != nil {
			return fmt.Errorf("shutdown: %w", err)
		}
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
