package mcptest

import (
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
