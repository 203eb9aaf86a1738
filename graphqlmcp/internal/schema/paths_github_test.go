package schema

import (
	"strings"
	"testing"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
)

func githubSchema(tb testing.TB) *Schema {
	tb.Helper()
	r, err := ParseResult(testservers.GitHubIntrospection(tb))
	if err != nil {
		tb.Fatal(err)
	}
	s, err := New(r)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// TestSearchGitHub: search on GitHub's public schema (about 1,600 types)
// finds names by word parts and gives the ways there from Query, and from
// Mutation for what only a mutation returns, within the budget alone and
// beside types. scripts/github-schema runs it (GITHUB_SCHEMA_DIR).
func TestSearchGitHub(t *testing.T) {
	s := githubSchema(t)
	v := s.View(false)
	search := func(term string) string {
		t.Helper()
		text, _ := v.Search(term, MaxViewBytes)
		return text
	}
	text := search("Issue")
	wantBlock(t, text, "type Issue",
		"Query.node(id!) -> Node (on Issue)",
		"Query.resource(url!) -> UniformResourceLocatable (on Issue)",
		"Query.repository(owner!, name!) -> Repository.issue(number!) -> Issue")
	wantBlock(t, text, "Repository.issue(number: Int!): Issue", "Query.repository(owner!, name!) -> Repository.issue(number!)")
	wantBlock(t, text, "type CreateIssuePayload", "Mutation.createIssue(input!) -> CreateIssuePayload")
	if first := strings.SplitN(text, "\n", 4)[2]; first != "type Issue" {
		t.Errorf("the exact type is not first: %q", first)
	}
	// The example, as the path to IssueConnection.nodes.
	text = search("IssueConnection")
	wantBlock(t, text, "type IssueConnection",
		"Query.viewer -> User.issues(first) -> IssueConnection",
		"Query.repository(owner!, name!) -> Repository.issues(first) -> IssueConnection")

	// Word parts: camelCase, several words, snake_case.
	for _, term := range []string{"pullRequest", "review comment", "pull_request_review_comment", "PULL REQUEST REVIEW COMMENT"} {
		text := search(term)
		block := searchBlock(t, text, "type PullRequestReviewComment")
		if len(block) < 3 || block[1] != "Query.node(id!) -> Node (on PullRequestReviewComment)" || !strings.HasPrefix(block[len(block)-1], "Query.repository(owner!, name!) -> Repository.pullRequest(number!) -> ") {
			t.Errorf("%q: %q", term, block)
		}
		if len(text) > MaxViewBytes {
			t.Errorf("%q: %d bytes", term, len(text))
		}
	}
	if text := search("pull_request_review_comment"); strings.SplitN(text, "\n", 4)[2] != "type PullRequestReviewComment" {
		t.Errorf("exact by words, not first:\n%.500s", text)
	}
	// Only deprecated fields lead to IssueTimelineConnection.
	wantBlock(t, search("IssueTimelineConnection"), "type IssueTimelineConnection",
		"none: only deprecated fields lead from Query or Mutation to IssueTimelineConnection; includeDeprecated: true shows them")
	// An interface no field returns: as the nearest of its objects.
	block := searchBlock(t, search("RequirableByPullRequest"), "interface RequirableByPullRequest")
	if len(block) != 4 || block[1] != "Query.node(id!) -> Node (on CheckRun) (as RequirableByPullRequest)" {
		t.Errorf("RequirableByPullRequest: %q", block)
	}
	// A union no field returns, in either view.
	for _, all := range []bool{false, true} {
		text, _ := s.View(all).Search("OrganizationOrUser", MaxViewBytes)
		wantBlock(t, text, "union OrganizationOrUser", "none: no field from Query or Mutation leads to OrganizationOrUser")
	}

	// The broadest words stay within the budget, alone and beside types.
	for _, term := range []string{"e", "node", "id"} {
		for _, budget := range []int{MaxViewBytes, MaxViewBytes / 2} {
			if text, truncated := v.Search(term, budget); len(text) > budget || !truncated {
				t.Errorf("%q in %d: %d bytes, truncated %v", term, budget, len(text), truncated)
			}
		}
	}
}
