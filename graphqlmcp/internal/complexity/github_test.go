package complexity

import (
	"testing"

	"github.com/vektah/gqlparser/v2/validator"

	"github.com/mcpforge/servers/graphqlmcp/internal/operation"
	"github.com/mcpforge/servers/graphqlmcp/internal/schema"
	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
)

// TestGitHubPublishedNodeCounts: the two calls GitHub's documentation
// ("Rate limits and query limits for the GraphQL API", Calculating nodes
// in a call) works through are priced at the node counts it gives, on
// GitHub's own schema, which scripts/github-schema installs (pinned) and
// points GITHUB_SCHEMA_DIR at.
func TestGitHubPublishedNodeCounts(t *testing.T) {
	result, err := schema.ParseResult(testservers.GitHubIntrospection(t))
	if err != nil {
		t.Fatal(err)
	}
	converted, err := schema.New(result)
	if err != nil {
		t.Fatal(err)
	}
	github, err := converted.Validator()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		query string
		want  int
	}{
		{
			"simple query: 50 repositories + 50 x 10 issues",
			`query { viewer { repositories(first: 50) { edges { repository:node { name issues(first: 10) { totalCount edges { node { title bodyHTML } } } } } } } }`,
			550,
		},
		{
			"complex query: 50 repositories, 1,000 pull requests, 10,000 of their comments, 1,000 issues, 10,000 of their comments, 10 followers",
			`query { viewer { repositories(first: 50) { edges { repository:node { name
			  pullRequests(first: 20) { edges { pullRequest:node { title comments(first: 10) { edges { comment:node { bodyHTML } } } } } }
			  issues(first: 20) { totalCount edges { issue:node { title bodyHTML comments(first: 10) { edges { comment:node { bodyHTML } } } } } } } } }
			  followers(first: 10) { edges { follower:node { login } } } } }`,
			22060,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			chosen, err := operation.Choose(tt.query, "")
			if err != nil {
				t.Fatal(err)
			}
			if errs := validator.ValidateWithRules(github, chosen.Sent, nil); len(errs) > 0 {
				t.Fatalf("not valid on GitHub's schema: %v", errs)
			}
			got, err := Score(chosen.Doc, chosen.Op, nil, github)
			if err != nil || got.Score != tt.want {
				t.Errorf("score = %d, %v; want GitHub's %d", got.Score, err, tt.want)
			}
		})
	}
}
