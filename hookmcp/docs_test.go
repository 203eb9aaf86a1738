package main

import (
	"context"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

// toolNames are the tools tools/list gives, sorted.
var toolNames = []string{"create_token", "delete_request", "delete_requests", "delete_token", "get_latest_request", "get_request", "get_token", "list_requests", "replay_request", "send_test_request", "set_response", "update_token", "verify_signature", "wait_for_request"}

// TestToolListing checks what docs/clients.md says hookmcp offers.
func TestToolListing(t *testing.T) {
	mcptest.CheckToolListing(t, "../docs/clients.md", "hookmcp", toolNames)
}

// TestClientDocs checks the assistant configurations in README.md and docs/:
// every client's JSON block parses, and every configuration of hookmcp
// starts the built binary and answers tools/list.
func TestClientDocs(t *testing.T) {
	mcptest.CheckAllClientDocs(t, mcptest.DocServer{Name: "hookmcp", Binary: binary, EnvPrefix: "HOOKSVC_"})
}

// TestDocsNameRealTests: a test the docs name as proof of a claim must
// exist, or the claim is proved by nothing. Every Test, Fuzz or Benchmark
// name written in README.md or docs/*.md must be defined by a test file of
// the repository; a name written as a -run pattern ('^TestWhcli') need only
// begin one.
func TestDocsNameRealTests(t *testing.T) {
	defined := map[string]bool{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != ".." {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, "_test.go") {
			source, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)\w+)\(`).FindAllSubmatch(source, -1) {
				defined[string(m[1])] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile(`(\^?)\b((?:Test|Fuzz|Benchmark)[A-Z]\w*)`)
	for _, path := range append(docs, "../README.md") {
		doc, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range named.FindAllStringSubmatch(string(doc), -1) {
			pattern, name := m[1] == "^", m[2]
			if defined[name] || pattern && beginsADefined(defined, name) {
				continue
			}
			t.Errorf("%s names %s, which no test file defines", strings.TrimPrefix(path, "../"), name)
		}
	}
}

func beginsADefined(defined map[string]bool, prefix string) bool {
	for name := range defined {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// TestDocErrors drives the built binary into every situation the error table
// of docs/hookmcp.md lists, against the fake API (or a server that answers
// the status in question), and checks the message it quotes against the one
// sent, so the table says what a user will read.
func TestDocErrors(t *testing.T) {
	fake := fakehooksvc.New(fakehooksvc.Options{APIKeys: []string{apiKey}})
	api := httptest.NewServer(fake)
	t.Cleanup(api.Close)
	answer := func(status int, header, value, body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if header != "" {
				w.Header().Set(header, value)
			}
			w.WriteHeader(status)
			io.WriteString(w, body)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	t.Cleanup(hang.Close)

	start := func(t *testing.T, env ...string) *mcp.ClientSession {
		cmd := exec.Command(binary)
		cmd.Env = append(os.Environ(), env...)
		return mcptest.ConnectClient(t, &mcp.CommandTransport{Command: cmd})
	}
	session := start(t, "HOOKSVC_API_URL="+api.URL, "HOOKSVC_API_KEY="+apiKey)
	keyless := start(t, "HOOKSVC_API_URL="+api.URL)
	refused := start(t, "HOOKSVC_API_URL="+api.URL, "HOOKSVC_API_KEY=a-key-the-api-refuses")
	call := mcptest.ErrorText
	on := func(apiURL, tool string, args map[string]any, env ...string) func(*testing.T) string {
		return func(t *testing.T) string {
			return call(start(t, append(env, "HOOKSVC_API_URL="+apiURL)...), tool, args)(t)
		}
	}
	texts := func(fns ...func(*testing.T) string) func(*testing.T) []string {
		return func(t *testing.T) []string {
			var out []string
			for _, fn := range fns {
				out = append(out, fn(t))
			}
			return out
		}
	}
	created, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "create_token", Arguments: map[string]any{"alias": "taken-alias"}})
	if err != nil || created.IsError {
		t.Fatalf("create_token: %v %v", err, created)
	}
	token := mcptest.Structured(t, created)["token"].(map[string]any)["uuid"].(string)
	unknown := "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d"
	mcptest.CheckDocErrors(t, "../docs/hookmcp.md", map[string]func(*testing.T) []string{
		"no `token_id` and no `HOOKSVC_TOKEN_ID`": texts(call(session, "get_token", map[string]any{})),
		"an argument out of bounds":               texts(call(session, "create_token", map[string]any{"timeout": 31})),
		"`token_id` an alias":                     texts(call(session, "get_token", map[string]any{"token_id": "my-hook"})),
		"a date in another format":                texts(call(session, "list_requests", map[string]any{"token_id": token, "date_from": "2026-11-21T14:30"})),
		"unknown argument, wrong JSON type": texts(call(session, "get_token", map[string]any{"token": token}),
			call(session, "update_token", map[string]any{"token_id": token, "cors": "yes"})),
		"401, 403, or a redirect to the login page": texts(call(session, "get_token", map[string]any{"token_id": token, "api_key": "another-key-0123"}),
			call(keyless, "get_token", map[string]any{"token_id": token}),
			call(refused, "get_token", map[string]any{"token_id": token})),
		"404, 410":            texts(call(session, "get_token", map[string]any{"token_id": unknown})),
		"404 for one request": texts(call(session, "get_request", map[string]any{"token_id": token, "request_id": unknown})),
		"404 to `POST /token` (the base URL is not the API)": texts(on(answer(http.StatusNotFound, "", "", "not here"), "create_token", map[string]any{})),
		"422":                    texts(call(session, "create_token", map[string]any{"alias": "taken-alias"})),
		"429":                    texts(on(answer(http.StatusTooManyRequests, "Retry-After", "30", ""), "get_token", map[string]any{"token_id": unknown})),
		"5xx and other statuses": texts(on(answer(http.StatusServiceUnavailable, "", "", "down for maintenance"), "create_token", map[string]any{})),
		"network failure, timeout": texts(on(closed.URL, "get_token", map[string]any{"token_id": unknown}),
			on(hang.URL, "get_token", map[string]any{"token_id": unknown}, "HOOKSVC_TIMEOUT=1s")),
	})
}

// TestDocFlags: every flag --help lists has its row in docs/hookmcp.md's
// "Configuration" table, so a new flag cannot go undocumented.
func TestDocFlags(t *testing.T) {
	mcptest.CheckDocFlags(t, binary, "../docs/hookmcp.md", "## Configuration")
}

// TestSecurityDocListsEveryFuzzTarget: docs/security.md's Fuzzing section
// says what each fuzz target holds; one that scripts/fuzz runs and the
// section does not name is a guarantee no reader learns of.
func TestSecurityDocListsEveryFuzzTarget(t *testing.T) {
	doc, err := os.ReadFile("../docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("../scripts/fuzz")
	if err != nil {
		t.Fatal(err)
	}
	targets := regexp.MustCompile(`\bFuzz[A-Z]\w*`).FindAllString(string(script), -1)
	if len(targets) == 0 {
		t.Fatal("scripts/fuzz lists no fuzz target")
	}
	for _, target := range targets {
		if !strings.Contains(string(doc), "`"+target+"`") {
			t.Errorf("scripts/fuzz runs %s, which docs/security.md does not name", target)
		}
	}
}
