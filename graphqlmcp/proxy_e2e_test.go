package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// forwardProxy is an HTTP forward proxy on loopback that answers every
// request with the Star Wars API, whatever host it names, and records the
// host it was asked for and the Authorization that came with it.
type forwardProxy struct {
	mu    sync.Mutex
	asked []string
}

func (p *forwardProxy) start(t *testing.T) string {
	api := testservers.Starwars()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.asked = append(p.asked, r.URL.Host+" auth="+r.Header.Get("Authorization"))
		p.mu.Unlock()
		api.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (p *forwardProxy) hosts() map[string]bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	seen := map[string]bool{}
	for _, asked := range p.asked {
		seen[asked] = true
	}
	return seen
}

// withProxy starts the binary with HTTP_PROXY set to proxy and no other
// proxy variable.
func withProxy(t *testing.T, proxy string, args ...string) *mcp.ClientSession {
	cmd := exec.Command(binary, args...)
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); !strings.Contains(strings.ToLower(name), "proxy") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "HTTP_PROXY="+proxy, `GRAPHQL_HEADERS={"Authorization":"Bearer proxy-secret-77"}`)
	return mcptest.ConnectClient(t, &mcp.CommandTransport{Command: cmd})
}

func query(t *testing.T, session *mcp.ClientSession, endpoint string) *mcp.CallToolResult {
	t.Helper()
	args := map[string]any{"query": "{ hero { name } }"}
	if endpoint != "" {
		args["endpoint"] = endpoint
	}
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "graphql_query", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestProxyFromEnvironment: the built binary with HTTP_PROXY set (which Go
// reads once per process, so only a process of its own shows it). The
// default endpoint goes through the proxy with the startup headers; a
// per-call endpoint whose name does not resolve on this machine, or
// resolves to a metadata address, never reaches the proxy; a look-alike of
// the default's host reaches it under its own (xn--) name without the
// startup headers, and a spelling the transport maps to the default's host
// is sent as that host.
func TestProxyFromEnvironment(t *testing.T) {
	var proxy forwardProxy
	proxyURL := proxy.start(t)

	session := withProxy(t, proxyURL, "--endpoint", "http://api.example/graphql")
	if res := query(t, session, ""); res.IsError || !strings.Contains(mcptest.Text(res), "R2-D2") {
		t.Fatalf("the default endpoint through the proxy: %s", mcptest.Text(res))
	}
	for _, endpoint := range []string{"http://169.254.169.254.nip.io/latest/meta-data/", "http://unresolvable.invalid/graphql"} {
		res := query(t, session, endpoint)
		host := strings.Split(endpoint, "/")[2]
		if text := mcptest.Text(res); !res.IsError || !strings.Contains(text, host) || !strings.Contains(text, "refused") && !strings.Contains(text, "does not resolve on this machine") {
			t.Errorf("endpoint %s: isError=%v %s; want refused before the proxy", endpoint, res.IsError, text)
		}
	}
	if res := query(t, session, "http://\uff41\uff50\uff49.example/graphql"); res.IsError {
		t.Errorf("a fullwidth spelling of the default's host: %s", mcptest.Text(res))
	}
	session.Close()

	// With the look-alike's own name allowed, it is sent through the
	// proxy unresolved, as the operator's own names are.
	session = withProxy(t, proxyURL, "--endpoint", "http://api.example/graphql", "--allow-endpoint", "http://xn--api-bec.example/")
	if res := query(t, session, "http://ap\u0130.example/graphql"); res.IsError {
		t.Errorf("the allowed look-alike: %s", mcptest.Text(res))
	}
	session.Close()

	asked := proxy.hosts()
	want := map[string]bool{"api.example auth=Bearer proxy-secret-77": true, "xn--api-bec.example auth=": true}
	for seen := range asked {
		if !want[seen] {
			t.Errorf("the proxy was asked for %s", seen)
		}
	}
	for seen := range want {
		if !asked[seen] {
			t.Errorf("the proxy was never asked for %s; it was asked for %v", seen, asked)
		}
	}
}
