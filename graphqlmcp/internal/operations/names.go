package operations

import (
	"strings"
	"unicode"
)

// ToolName is the snake_case of a GraphQL operation name: GetUser is
// get_user, fetchHTTPStatus is fetch_http_status, repo_Issues2 is
// repo_issues2. GraphQL names are ASCII letters, digits and _, so the
// result is a valid MCP tool name.
func ToolName(name string) string {
	runes := []rune(name)
	var b strings.Builder
	for i, r := range runes {
		if unicode.IsUpper(r) {
			prevLower := i > 0 && (unicode.IsLower(runes[i-1]) || unicode.IsDigit(runes[i-1]))
			nextLower := i > 0 && i+1 < len(runes) && unicode.IsUpper(runes[i-1]) && unicode.IsLower(runes[i+1])
			if (prevLower || nextLower) && !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	out := b.String()
	for strings.Contains(out, "__") {
		out = strings.ReplaceAll(out, "__", "_")
	}
	out = strings.Trim(out, "_")
	if out == "" {
		return "operation"
	}
	return out
}
