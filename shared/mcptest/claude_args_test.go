package mcptest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseClaudeAdd holds parseClaudeAdd to what Claude Code 2.1.330 does
// with each line (TestDocClients runs the docs' lines in it): the lines the
// docs had before issue 23, which Claude Code refused or read wrongly, are
// refused here too, with the fix.
func TestParseClaudeAdd(t *testing.T) {
	good := map[string]claudeAdd{
		`hooks --transport stdio --env HOOKSVC_API_KEY=k -- hookmcp`:                        {name: "hooks", transport: "stdio", target: "hookmcp", args: []string{}, env: []string{"HOOKSVC_API_KEY=k"}},
		`hooks-offline --env HOOKSVC_API_URL=http://127.0.0.1:8089 -- hookmcp --timeout 5s`: {name: "hooks-offline", transport: "stdio", target: "hookmcp", args: []string{"--timeout", "5s"}, env: []string{"HOOKSVC_API_URL=http://127.0.0.1:8089"}},
		`g --transport http --scope user https://h/mcp --header "Authorization: Bearer x"`:  {name: "g", transport: "http", target: "https://h/mcp", args: []string{}, headers: []string{"Authorization: Bearer x"}},
		`--transport http g https://h/mcp`:                                                  {name: "g", transport: "http", target: "https://h/mcp", args: []string{}},
		`g -e A=1 B=2 -s user -- graphqlmcp -e http://x`:                                    {name: "g", transport: "stdio", target: "graphqlmcp", args: []string{"-e", "http://x"}, env: []string{"A=1", "B=2"}},
	}
	for line, want := range good {
		got, err := parseClaudeAdd(shellWords(t, line))
		if err != nil {
			t.Errorf("%s: %v", line, err)
			continue
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(claudeAdd{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", line, diff)
		}
	}
	bad := map[string]string{
		`--transport stdio --env HOOKSVC_API_KEY=k hooks -- hookmcp`:                                        `--env takes "hooks" as a variable`,
		`--transport http --scope user --header "Authorization: Bearer x" g https://h/mcp`:                  `--header takes "g" as a header`,
		`g --transport http --header "Authorization: Bearer x" https://h/mcp`:                               `want <name> and a command or URL`,
		`--transport stdio --env 'GRAPHQL_HEADERS={"Authorization": "x"}' github -- graphqlmcp -e http://x`: `--env takes "github" as a variable`,
		`g --transport http https://h/mcp extra`:                                                            `--transport http takes <name> <url>`,
		`g --bogus x -- hookmcp`:                                                                            `unknown option --bogus`,
	}
	for line, want := range bad {
		_, err := parseClaudeAdd(shellWords(t, line))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", line, err, want)
		}
	}
}

// problems collects what the docs' scanners report.
type problems []string

func (p *problems) Helper() {}
func (p *problems) Errorf(format string, args ...any) {
	*p = append(*p, fmt.Sprintf(format, args...))
}

// TestDocLinesRefuses: a page with lines no test can run, or that a client
// would read wrongly, is refused line by line; the lines it can run are
// found and tied to their server.
func TestDocLinesRefuses(t *testing.T) {
	page := filepath.Join(t.TempDir(), "page.md")
	text := "```sh\n" +
		"claude mcp add --transport stdio --env K=v hooks -- hookmcp\n" + // line 2: the name swallowed
		"claude mcp add hooks --env K=v -- hookmcp\n" +
		"hookmcp --transport http --listen 127.0.0.1:8082\n" +
		"npx -y @modelcontextprotocol/inspector@2.12.0 --cli --transport http --server-url http://127.0.0.1:8082/mcp --method tools/list\n" +
		"npx -y @modelcontextprotocol/inspector@2.12.0 --cli --transport http --server-url http://127.0.0.1:9999/mcp --method tools/list\n" + // line 6: nobody serves it
		"curl http://127.0.0.1:8082/healthz\n" + // line 7: no test runs curl
		"claude mcp add remote --transport http http://127.0.0.1:8082/mcp\n" + // line 8: no stdio entry names it
		"```\n\n```json\n" +
		`{"mcpServers": {"hooks": {"command": "npx", "args": ["-y", "mcp-remote@latest", "http://127.0.0.1:8082/mcp"]}}}` + "\n```\n" // line 11
	if err := os.WriteFile(page, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var got problems
	lines := docLines(&got, []string{"graphqlmcp", "hookmcp"}, page)
	wants := []string{
		`page.md:2: claude mcp add --transport stdio --env K=v hooks -- hookmcp` + "\nClaude Code would not read this line as meant: --env takes \"hooks\" as a variable",
		`page.md:6: `,
		`page.md:7: curl http://127.0.0.1:8082/healthz` + "\nno test knows how to run this line",
		`page.md:11, server hooks: npx ["-y" "mcp-remote@latest" "http://127.0.0.1:8082/mcp"]: the tests run mcp-remote@0.15.1 only`,
		`page.md:8: no stdio entry in the docs names remote`,
	}
	for _, want := range wants {
		found := false
		for _, p := range got {
			found = found || strings.Contains(p, "/"+want)
		}
		if !found {
			t.Errorf("no problem reported as %q; got:\n%s", want, strings.Join(got, "\n"))
		}
	}
	if len(got) != len(wants) {
		t.Errorf("%d problems, want %d:\n%s", len(got), len(wants), strings.Join(got, "\n"))
	}
	var kept []string
	for _, line := range lines {
		kept = append(kept, filepath.Base(line.Where)+" "+line.Client+" "+line.Server)
	}
	want := []string{"page.md:3 claude hookmcp", "page.md:5 inspector hookmcp", "page.md:6 inspector ", "page.md:8 claude "}
	if diff := cmp.Diff(want, kept); diff != "" {
		t.Errorf("lines found (-want +got):\n%s", diff)
	}
}

// TestDocMessagePattern: a quoted message matches the text sent literally
// but for "…", and anchored it must start the text, so a prefix the docs
// leave out is caught.
func TestDocMessagePattern(t *testing.T) {
	cases := []struct {
		message, text  string
		anchored, want bool
	}{
		{"introspection of https://… failed: …. The endpoint", "introspection of http://127.0.0.1:1/x failed: no. The endpoint", true, true},
		{"introspection of https://… failed: …", "introspection failed: introspection of http://h failed: no", true, false},
		{"introspection of https://… failed: …", "introspection failed: introspection of http://h failed: no", false, true},
		{"so it was not scored or sent; …", "so it was not priced or sent; flatten it", false, false},
		{"a (b) [c] $d", "a (b) [c] $d and more", true, true},
	}
	for _, c := range cases {
		if got := docMessagePattern(c.message, c.anchored).MatchString(c.text); got != c.want {
			t.Errorf("%q anchored=%v on %q: %v, want %v", c.message, c.anchored, c.text, got, c.want)
		}
	}
}
