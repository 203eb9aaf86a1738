package operations

import "testing"

// TestToolName: operation names become snake_case tool names.
func TestToolName(t *testing.T) {
	for in, want := range map[string]string{
		"GetUser":           "get_user",
		"getUser":           "get_user",
		"fetchHTTPStatus":   "fetch_http_status",
		"HTTPStatus":        "http_status",
		"repo_Issues2":      "repo_issues2",
		"already_snake":     "already_snake",
		"_private":          "private",
		"RepositoryIssues":  "repository_issues",
		"search":            "search",
		"AddReaction":       "add_reaction",
		"issues2ByLabelURL": "issues2_by_label_url",
	} {
		if got := ToolName(in); got != want {
			t.Errorf("ToolName(%q) = %q, want %q", in, got, want)
		}
	}
}
