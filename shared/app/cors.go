package app

import (
	"net/http"
	"strings"
)

// What a page's script may send and read over CORS: the headers the
// Streamable HTTP transport uses (the session and protocol-version headers,
// Last-Event-ID to resume a stream, a bearer token, the JSON content type)
// and the ones it reads back (the session id, the protocol version, and the
// bearer challenge of a 401).
const (
	corsAllowMethods  = "GET, POST, DELETE"
	corsAllowHeaders  = "Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, Authorization, Content-Type"
	corsExposeHeaders = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate"
	// corsMaxAge is how long (seconds) a browser may reuse a preflight.
	corsMaxAge = "600"
)

// allowCORS lets the page at origin, already checked as allowed, read the
// answer. The origin is echoed as the browser sent it, never "*": a page of
// any other origin gets no CORS header and cannot read anything.
func allowCORS(h http.Header, origin string) {
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
	h.Add("Vary", "Origin")
}

// isPreflight reports a browser's CORS preflight: an OPTIONS that asks
// which method the real request may use.
func isPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
}

// answerPreflight answers an allowed origin's preflight. No token is asked
// for: browsers never send credentials on a preflight, and the real request
// that follows is checked as any other.
func answerPreflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Methods", corsAllowMethods)
	h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
	h.Set("Access-Control-Max-Age", corsMaxAge)
	// A public page allowed by --allow-origin calling a server on this
	// machine or network is a private-network request in Chromium, which
	// asks first.
	if strings.EqualFold(r.Header.Get("Access-Control-Request-Private-Network"), "true") {
		h.Set("Access-Control-Allow-Private-Network", "true")
	}
	w.WriteHeader(http.StatusNoContent)
}
