package tools

import (
	"strings"
	"testing"

	"github.com/mcpforge/servers/shared/mcptest"
)

// TestQueryTextIsNotEscaped: an endpoint's <, >, &, U+2028 and é reach a
// client that reads only text as they are, whether the endpoint wrote them
// as they are, escaped them (a Go server writes \u003c), or sent an answer
// graphqlmcp re-encodes (a member of the wrong shape dropped).
func TestQueryTextIsNotEscaped(t *testing.T) {
	const want = "<b>a & b</b> \u2028 é"
	for name, body := range map[string]string{
		"as they are":       `{"data":{"s":"` + want + `"}}`,
		"escaped":           `{"data":{"s":"\u003cb\u003ea \u0026 b\u003c\/b\u003e \u2028 \u00e9"}}`,
		"re-encoded":        `{"data":{"s":"` + want + `"},"extensions":"not an object"}`,
		"escaped, dropping": `{"data":{"s":"\u003cb\u003ea \u0026 b\u003c/b\u003e \u2028 \u00e9"},"extensions":7}`,
	} {
		t.Run(name, func(t *testing.T) {
			h := connect(t, testConfig(t, serveBody(t, body)), nil)
			res := h.call(t, "graphql_query", map[string]any{"query": "{ s }"})
			text := mcptest.Text(res)
			if res.IsError || !strings.Contains(text, `{"data":{"s":"`+want+`"}`) {
				t.Errorf("isError=%v, text lacks the answer as it is:\n%s", res.IsError, text)
			}
			for _, escape := range []string{`\u003c`, `\u003e`, `\u0026`, `\u2028`, `\u00e9`, `\/`} {
				if strings.Contains(text, escape) {
					t.Errorf("text holds %s:\n%s", escape, text)
				}
			}
		})
	}
}
