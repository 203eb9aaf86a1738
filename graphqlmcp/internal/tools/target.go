package tools

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/httpx"
)

// target resolves a call's endpoint and headers into a request skeleton,
// with the startup headers where they apply and nothing forwarded.
func (h *handlers) target(endpoint string, callHeaders map[string]string, timeout time.Duration) (upstream.Request, error) {
	return h.targetAs(forwarded{}, endpoint, callHeaders, timeout)
}

// targetAs is target for the caller who: the headers its HTTP request
// forwards (--forward-header) go over the startup headers of the same
// name, to the default endpoint's origin only. --headers-any-origin does
// not widen that: a forwarded header is each caller's own credential, and
// a per-call endpoint elsewhere is the model's choice.
func (h *handlers) targetAs(who forwarded, endpoint string, callHeaders map[string]string, timeout time.Duration) (upstream.Request, error) {
	target, err := h.policy.Resolve(endpoint)
	if err != nil {
		return upstream.Request{}, err
	}
	if err := upstream.CheckHeaders(callHeaders); err != nil {
		return upstream.Request{}, fmt.Errorf("headers: %v", err)
	}
	var startup map[string]string
	if target.StartupHeaders {
		startup = h.cfg.Headers
	}
	forward := upstream.NotForwarding
	if !target.StartupHeaders {
		forward = upstream.StartupWithheld
	}
	if who.overHTTP && httpx.SameOrigin(target.URL, h.cfg.Endpoint) {
		switch {
		case len(h.cfg.ForwardHeaders) == 0:
			forward = upstream.ForwardingOff
		case len(who.headers) == 0:
			forward = upstream.ForwardedNone
		default:
			forward = upstream.Forwarded
		}
	}
	if forward == upstream.Forwarded {
		for name := range callHeaders {
			if _, ok := who.headers[headerKey(name)]; ok {
				return upstream.Request{}, fmt.Errorf("headers: %s is forwarded from the HTTP request of your MCP client (--forward-header), and a call cannot replace it; remove it from headers", httpx.HeaderName(name))
			}
		}
		startup = over(startup, who.headers)
	}
	return upstream.Request{Target: target, Headers: upstream.Merge(startup, callHeaders), Timeout: timeout, Forward: forward}, nil
}

// forwarded is what one call's HTTP request forwards (--forward-header).
// The zero value forwards nothing: a call over stdio, or one whose request
// carries none of the headers named.
type forwarded struct {
	// overHTTP reports a call over Streamable HTTP, where
	// --forward-header applies, whether it forwards anything or not.
	overHTTP bool
	// headers are the values forwarded, by headerKey of their names.
	headers map[string]string
	// redactor holds the startup headers' secrets and the values
	// forwarded, for what this call hands back; zero when headers is.
	redactor upstream.Redactor
}

// extraOf is what the transport says of a call's request: its HTTP
// headers over Streamable HTTP, nil over stdio.
func extraOf(call *mcp.CallToolRequest) *mcp.RequestExtra {
	if call == nil {
		return nil
	}
	return call.Extra
}

// maxForwardedValue bounds a forwarded value: each call redacts every
// spelling of it (some twenty forms) from what it hands back, and a
// credential is far shorter.
const maxForwardedValue = 8 << 10

// forwardedFrom reads the headers --forward-header names from a call's
// HTTP request. Over stdio there is none, and nothing is forwarded: the
// process's own user is the only caller. A header the request gives more
// than once is refused: which value to send would be a guess.
func (h *handlers) forwardedFrom(extra *mcp.RequestExtra) (forwarded, error) {
	if extra == nil || extra.Header == nil {
		return forwarded{}, nil
	}
	who := forwarded{overHTTP: true}
	if len(h.cfg.ForwardHeaders) == 0 {
		return who, nil
	}
	for _, name := range h.cfg.ForwardHeaders {
		values := extra.Header.Values(name)
		switch {
		case len(values) == 0:
			continue
		case len(values) > 1:
			return forwarded{}, fmt.Errorf("the HTTP request of your MCP client gives the header %s %d times, and graphqlmcp forwards one value of it (--forward-header): configure the client to send it once", httpx.HeaderName(name), len(values))
		case len(values[0]) > maxForwardedValue:
			return forwarded{}, fmt.Errorf("the header %s of your MCP client's HTTP request is %d bytes, over the %d bytes graphqlmcp forwards (--forward-header): send a shorter credential", httpx.HeaderName(name), len(values[0]), maxForwardedValue)
		}
		if who.headers == nil {
			who.headers = map[string]string{}
		}
		who.headers[headerKey(name)] = values[0]
	}
	if who.headers == nil {
		return who, nil
	}
	who.redactor = upstream.NewRedactor(secretsOf(h.cfg.Headers, who.headers))
	return who, nil
}

// clean takes the forwarded values out of an error the call returns (an
// endpoint may echo a credential in an error page or an introspection
// failure), with the startup secrets, which are out already.
func (who forwarded) clean(err error) error {
	if err == nil || who.redactor.Empty() {
		return err
	}
	cleaned := who.redactor.String(err.Error())
	if cleaned == err.Error() {
		return err
	}
	// A protocol error (a resource not found) keeps its code.
	if rpc, ok := err.(*jsonrpc.Error); ok {
		copied := *rpc
		copied.Message = who.redactor.String(rpc.Message)
		copied.Data = nil // it may quote the same text
		return &copied
	}
	return errors.New(cleaned)
}

// clientAs is the client that sends who's request: it cleans the answer
// and its errors of the forwarded values too.
func (h *handlers) clientAs(who forwarded) *upstream.Client {
	if who.redactor.Empty() {
		return h.client
	}
	client := *h.client
	client.Redactor = who.redactor
	return &client
}

// redactorAs is what cleans a result of who's call.
func (h *handlers) redactorAs(who forwarded) upstream.Redactor {
	if who.redactor.Empty() {
		return h.client.Redactor
	}
	return who.redactor
}

// over is base with the headers of top in place of those of the same
// name, compared as upstream.Merge compares them.
func over(base, top map[string]string) map[string]string {
	merged := make(map[string]string, len(base)+len(top))
	for name, value := range base {
		if _, replaced := top[headerKey(name)]; !replaced {
			merged[name] = value
		}
	}
	for name, value := range top {
		merged[name] = value
	}
	return merged
}

// secretsOf is the headers a redactor learns the secrets of: the startup
// headers and the forwarded ones, a name of both kept twice (in two
// spellings of one name, so that NewRedactor judges both alike).
func secretsOf(startup, forwarded map[string]string) map[string]string {
	all := make(map[string]string, len(startup)+len(forwarded))
	for name, value := range startup {
		all[name] = value
	}
	for name, value := range forwarded {
		key := name
		for _, spelling := range []string{name, strings.ToLower(name), strings.ToUpper(name)} {
			if _, taken := all[spelling]; !taken {
				key = spelling
				break
			}
		}
		all[key] = value
	}
	return all
}

// headerKey is the name a header is compared by, as upstream compares
// them: canonical case, with _ read as - (servers that hand headers to
// code as CGI variables read both as _).
func headerKey(name string) string {
	return http.CanonicalHeaderKey(strings.ReplaceAll(name, "_", "-"))
}
