package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// browserPage connects to the MCP server with the official TypeScript SDK's
// client (bundled by scripts/e2e as mcp-client.js), calls graphql_query,
// and posts what happened to /result on its own origin.
const browserPage = `<!doctype html>
<meta charset="utf-8">
<title>MCP from a web page</title>
<script src="/mcp-client.js"></script>
<script type="module">
const report = (outcome) => fetch('/result', { method: 'POST', body: JSON.stringify(outcome) });
try {
  const { Client, StreamableHTTPClientTransport } = window.MCP;
  const transport = new StreamableHTTPClientTransport(new URL(%q), {
    requestInit: { headers: { Authorization: 'Bearer ' + %q } },
  });
  const client = new Client({ name: 'browser-page', version: '1.0.0' });
  await client.connect(transport);
  const result = await client.callTool({ name: 'graphql_query', arguments: { query: '{ hero { name } }' } });
  await report({ ok: true, text: result.content.map((c) => c.text).join('\n') });
} catch (error) {
  await report({ ok: false, error: String(error && error.message || error) });
}
</script>
`

// TestBrowser: in headless Chromium (Debian's, pinned, installed by
// scripts/browser-deps.sh), a page from an origin the server allows
// (--allow-origin) connects with the official TypeScript client, through
// CORS preflights and a bearer token, and calls a tool; the same page from
// another origin is refused, and so is the page from a local origin
// (http://localhost:port, as any local dev server or app serves) that
// --allow-origin does not list. The first two origins are names Chromium
// maps to loopback, so neither is a local origin to the server.
func TestBrowser(t *testing.T) {
	browser, bundle := os.Getenv("MCP_BROWSER"), os.Getenv("MCP_TS_BUNDLE")
	if browser == "" || bundle == "" {
		t.Skip("MCP_BROWSER and MCP_TS_BUNDLE are not set; scripts/e2e installs Chromium and the TypeScript client bundle and sets them")
	}
	script, err := os.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}

	// The pages' server: one port, told apart by the Host a page was
	// loaded from.
	pageListener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(pageListener.Addr().String())
	allowed, refused, local := "http://app.test:"+port, "http://other.test:"+port, "http://localhost:"+port

	const token = "browser-test-token-0123456789"
	upstream, _ := testservers.Start(t, testservers.Starwars())
	cmd := exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "-e", upstream.URL,
		"--allow-origin", allowed, "--http-token", token)
	endpoint := mcptest.StartHTTP(t, cmd)

	results := make(chan map[string]any, 1)
	pages := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, browserPage, endpoint, token)
		case "/mcp-client.js":
			w.Header().Set("Content-Type", "text/javascript")
			w.Write(script)
		case "/result":
			var outcome map[string]any
			data, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			if err := json.Unmarshal(data, &outcome); err != nil {
				outcome = map[string]any{"ok": false, "error": "unreadable result: " + string(data)}
			}
			outcome["origin"] = "http://" + r.Host
			results <- outcome
		default:
			http.NotFound(w, r)
		}
	}))
	pages.Listener = pageListener
	pages.Start()
	defer pages.Close()

	visit := func(origin string) map[string]any {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		log := &mcptest.SyncBuffer{}
		chromium := exec.CommandContext(ctx, browser,
			"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--user-data-dir="+t.TempDir(),
			"--host-resolver-rules=MAP app.test 127.0.0.1, MAP other.test 127.0.0.1",
			origin+"/")
		chromium.Stdout, chromium.Stderr = log, log
		if err := chromium.Start(); err != nil {
			t.Fatal(err)
		}
		// Chromium runs until it is stopped, once the page has reported.
		defer func() { cancel(); chromium.Wait() }()
		select {
		case outcome := <-results:
			return outcome
		case <-time.After(60 * time.Second):
			t.Fatalf("the page at %s reported nothing; Chromium said:\n%s", origin, log.String())
			return nil
		}
	}

	if got := visit(allowed); got["ok"] != true || got["origin"] != allowed || !strings.Contains(fmt.Sprint(got["text"]), `"R2-D2"`) {
		t.Errorf("the page from the allowed origin %s: %v", allowed, got)
	}
	for _, origin := range []string{refused, local} {
		if got := visit(origin); got["ok"] != false || got["origin"] != origin || !strings.Contains(fmt.Sprint(got["error"]), "Failed to fetch") {
			t.Errorf("the page from %s, which the server does not allow: %v, want a failed fetch", origin, got)
		}
	}
	mcptest.Stop(t, cmd)
}
