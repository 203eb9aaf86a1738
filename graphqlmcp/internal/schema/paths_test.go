package schema

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// issueSDL is the shape of issue 28's example: an Issue is reached from a
// repository by its owner and name, then a page of its issues.
const issueSDL = `
type Query {
  repository(owner: String!, name: String!, followRenames: Boolean = true): Repository
  viewerName: String
}
type Repository {
  name: String!
  issues(first: Int, after: String, last: Int, states: [String!]): IssueConnection!
}
type IssueConnection {
  nodes: [Issue]
  totalCount: Int!
}
type Issue {
  title: String!
  comments(first: Int): [IssueComment!]!
}
type IssueComment {
  body: String!
  issue: Issue!
}
`

// searchLines returns the block of a search answer that starts with line:
// the line and the path lines under it.
func searchBlock(t *testing.T, text, line string) []string {
	t.Helper()
	lines := strings.Split(text, "\n")
	i := slices.Index(lines, line)
	if i < 0 {
		t.Fatalf("no line %q in:\n%s", line, text)
	}
	block := []string{line}
	for _, l := range lines[i+1:] {
		if !strings.HasPrefix(l, "  path: ") {
			break
		}
		block = append(block, strings.TrimPrefix(l, "  path: "))
	}
	return block
}

func wantBlock(t *testing.T, text, line string, paths ...string) {
	t.Helper()
	if got := searchBlock(t, text, line)[1:]; !slices.Equal(got, paths) {
		t.Errorf("under %q: paths\n  %s\nwant\n  %s", line, strings.Join(got, "\n  "), strings.Join(paths, "\n  "))
	}
}

// TestSearchPathIssueExample: the issue's own example. A type's path names
// each field on the way with the arguments a query must give (owner!,
// name!) and the one that sizes a page (first), not the others (after,
// followRenames); a field's path ends with the field; a root's field has
// none.
func TestSearchPathIssueExample(t *testing.T) {
	text, truncated := fromSDL(t, issueSDL).View(false).Search("issue", MaxViewBytes)
	if truncated {
		t.Errorf("truncated:\n%s", text)
	}
	wantBlock(t, text, "type Issue",
		"Query.repository(owner!, name!) -> Repository.issues(first) -> IssueConnection.nodes -> Issue")
	wantBlock(t, text, "IssueComment.issue: Issue!",
		"Query.repository(owner!, name!) -> Repository.issues(first) -> IssueConnection.nodes -> Issue.comments(first) -> IssueComment.issue")
	wantBlock(t, text, "Repository.issues(first: Int, after: String, last: Int, states: [String!]): IssueConnection!",
		"Query.repository(owner!, name!) -> Repository.issues(first)")
	text, _ = fromSDL(t, issueSDL).View(false).Search("repository", MaxViewBytes)
	wantBlock(t, text, "Query.repository(owner: String!, name: String!, followRenames: Boolean = true): Repository")
	wantBlock(t, text, "type Repository", "Query.repository(owner!, name!) -> Repository")
	if !strings.Contains(text, pathLegend) {
		t.Errorf("no legend:\n%s", text)
	}
}

// TestSearchPathsThroughAbstractTypes: a path may pass through an interface
// or a union, by a fragment on one of its possible types, said as
// "Node (on Issue)". Of shortest paths, the one with fewer required
// arguments comes first, then by name; paths through the same types by
// other fields (node, nodes) are shown once; and when the paths shown all
// go by fragments, the shortest by fields alone is shown too.
func TestSearchPathsThroughAbstractTypes(t *testing.T) {
	s := fromSDL(t, `
type Query {
  node(id: ID!): Node
  nodes(ids: [ID!]!): [Node]!
  search(query: String!, first: Int): [SearchResult!]!
  viewer: User!
  byPath(owner: String!, path: String!): Node
}
interface Node { id: ID! }
union SearchResult = Issue | User
type User implements Node {
  id: ID!
  repos(first: Int): [Repo!]!
}
type Repo implements Node {
  id: ID!
  issue(number: Int!): Issue
}
type Issue implements Node {
  id: ID!
  title: String
}
`)
	text, _ := s.View(false).Search("Issue", MaxViewBytes)
	wantBlock(t, text, "type Issue",
		"Query.node(id!) -> Node (on Issue)",
		"Query.search(query!, first) -> SearchResult (on Issue)",
		"Query.viewer -> User.repos(first) -> Repo.issue(number!) -> Issue")
	// User: by viewer in one step, no fragment needed.
	text, _ = s.View(false).Search("User", MaxViewBytes)
	wantBlock(t, text, "type User", "Query.viewer -> User")
	// A field of an interface: the path to the interface.
	text, _ = s.View(false).Search("id", MaxViewBytes)
	// Query.byPath and Query.nodes go through the same types as Query.node.
	wantBlock(t, text, "Node.id: ID!", "Query.node(id!) -> Node.id")
}

// TestSearchPathsToAnInterfaceNoFieldReturns: an interface no field
// returns is reached as the nearest of its objects, said as "(as
// Starrable)", and so are its fields; from Query, though a mutation
// returns it.
func TestSearchPathsToAnInterfaceNoFieldReturns(t *testing.T) {
	s := fromSDL(t, `
type Query { repository(owner: String!, name: String!): Repository, topic(name: String!): Topic, viewer: User }
type User { starred(first: Int): [Repository!]! }
interface Starrable { stargazerCount: Int!, stargazers(first: Int, after: String): [User!]! }
type Repository implements Starrable { stargazerCount: Int!, stargazers(first: Int, after: String): [User!]! }
type Topic implements Starrable { stargazerCount: Int!, stargazers(first: Int, after: String): [User!]! }
type Mutation { addStar(id: ID!): AddStarPayload }
type AddStarPayload { starrable: Starrable }
`)
	text, _ := s.View(false).Search("starrable", MaxViewBytes)
	wantBlock(t, text, "interface Starrable", "Query.topic(name!) -> Topic (as Starrable)")
	text, _ = s.View(false).Search("stargazerCount", MaxViewBytes)
	wantBlock(t, text, "Starrable.stargazerCount: Int!", "Query.topic(name!) -> Topic (as Starrable) -> Starrable.stargazerCount")
}

// TestSearchPathsUnreachable: a type no field leads to from a root is said
// to be so; one only deprecated fields lead to says that includeDeprecated
// shows the way, and with it, shows the way.
func TestSearchPathsUnreachable(t *testing.T) {
	s := fromSDL(t, `
type Query { a: A, old: Old @deprecated }
type A { n: Int }
type Orphan { a: A }
type Old { n: Int }
`)
	text, _ := s.View(false).Search("orphan", MaxViewBytes)
	wantBlock(t, text, "type Orphan", "none: no field from Query leads to Orphan")
	text, _ = s.View(false).Search("old", MaxViewBytes)
	wantBlock(t, text, "type Old", "none: only deprecated fields lead from Query to Old; includeDeprecated: true shows them")
	text, _ = s.View(true).Search("old", MaxViewBytes)
	wantBlock(t, text, "type Old", "Query.old -> Old")
}

// TestSearchPathsFromMutation: a type only a mutation returns gets its path
// from Mutation (only a subscription, from Subscription); one a query
// reaches gets no mutation path, however short.
func TestSearchPathsFromMutation(t *testing.T) {
	s := fromSDL(t, `
type Query { repo(name: String!): Repo }
type Repo { issues(first: Int): [Issue!]! }
type Issue { title: String }
type Mutation { createIssue(input: CreateIssueInput!): CreateIssuePayload }
input CreateIssueInput { title: String! }
type CreateIssuePayload { issue: Issue }
type Subscription { issueEvents(repo: String!): IssueEvent }
type IssueEvent { issue: Issue }
`)
	text, _ := s.View(false).Search("issue", MaxViewBytes)
	wantBlock(t, text, "type CreateIssuePayload", "Mutation.createIssue(input!) -> CreateIssuePayload")
	wantBlock(t, text, "CreateIssuePayload.issue: Issue", "Mutation.createIssue(input!) -> CreateIssuePayload.issue")
	wantBlock(t, text, "type Issue", "Query.repo(name!) -> Repo.issues(first) -> Issue")
	// Then from Subscription, for what only a subscription returns.
	wantBlock(t, text, "type IssueEvent", "Subscription.issueEvents(repo!) -> IssueEvent")
	wantBlock(t, text, "input CreateIssueInput")
	wantBlock(t, text, "Mutation.createIssue(input: CreateIssueInput!): CreateIssuePayload")
	// Fields a query reaches come before those only a mutation returns.
	if strings.Index(text, "type Issue\n") > strings.Index(text, "type CreateIssuePayload\n") {
		t.Errorf("the mutation's payload comes first:\n%s", text)
	}
}

// TestSearchPathsCycles: types that lead to each other (and to themselves)
// are each reached once, by their shortest path.
func TestSearchPathsCycles(t *testing.T) {
	s := fromSDL(t, `
type Query { a: A }
type A { self: A, b: B, a: A }
type B { a: A, c: C }
type C { b: B, a: A }
`)
	text, _ := s.View(false).Search("c", MaxViewBytes)
	wantBlock(t, text, "type C", "Query.a -> A.b -> B.c -> C")
	wantBlock(t, text, "B.c: C", "Query.a -> A.b -> B.c")
}

// TestSearchRanks: exact names first, then those that start with the term,
// then those with all its words, then the rest; types before fields within
// a rank, the shorter name first, and the answer is the same every time.
func TestSearchRanks(t *testing.T) {
	s := fromSDL(t, `
type Query { pullRequest: PullRequest, pullRequests: [PullRequest], viewer: ReviewQueue }
type PullRequest { reviewComments: [PullRequestReviewComment], prComment: String, draftPullRequestReviewComment: String }
type PullRequestReviewComment { body: String }
type ReviewQueue { requestsPulled: Int, unpullrequested: Int }
enum Kind { PULL_REQUEST }
`)
	text, _ := s.View(false).Search("pullRequest", MaxViewBytes)
	var order []string
	for _, line := range strings.Split(text, "\n") {
		if line != "" && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "  ") {
			order = append(order, line)
		}
	}
	want := []string{
		"type PullRequest",                  // exact, a type
		"Query.pullRequest: PullRequest",    // exact, a field
		"Kind.PULL_REQUEST",                 // exact, an enum value
		"type PullRequestReviewComment",     // prefix, a type
		"Query.pullRequests: [PullRequest]", // prefix, a field
		"ReviewQueue.requestsPulled: Int",   // all words, the shorter
		"PullRequest.draftPullRequestReviewComment: String",
		"ReviewQueue.unpullrequested: Int", // in part
	}
	if !slices.Equal(order, want) {
		t.Errorf("order:\n  %s\nwant\n  %s", strings.Join(order, "\n  "), strings.Join(want, "\n  "))
	}
	again, _ := s.View(false).Search("pullRequest", MaxViewBytes)
	if again != text {
		t.Errorf("a second search answers otherwise")
	}
	// Several words find a name with all of them, in any order.
	text, _ = s.View(false).Search("review comment", MaxViewBytes)
	wantBlock(t, text, "type PullRequestReviewComment", "Query.pullRequest -> PullRequest.reviewComments -> PullRequestReviewComment")
	if !strings.HasPrefix(text, `# 3 names match "review comment":`) {
		t.Errorf("got:\n%s", text)
	}
	// When no name has them all, those with some of them, most first.
	text, _ = s.View(false).Search("review comment zebra", MaxViewBytes)
	if first := strings.SplitN(text, "\n", 4)[2]; first != "type PullRequestReviewComment" {
		t.Errorf("some words: first %q in:\n%s", first, text)
	}
}

// TestSearchPathsBounded: on a schema built to have more shortest paths to
// a type than can be counted (each of 60 layers doubles them) and a chain
// longer than a path is written, a search answers promptly within its
// budget: paths are compared a bounded number at a time, and a type too
// far is said to be so.
func TestSearchPathsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("type Query { l0a: L0, l0b: L0, chain: C0 }\n")
	const layers = 60
	for i := range layers {
		fmt.Fprintf(&b, "type L%d { a: L%d, b: L%d, x%d: Int }\n", i, i+1, i+1, i)
	}
	fmt.Fprintf(&b, "type L%d { target: Int }\n", layers)
	const chain = 40
	for i := range chain {
		fmt.Fprintf(&b, "type C%d { next: C%d }\n", i, i+1)
	}
	fmt.Fprintf(&b, "type C%d { end: Int }\n", chain)
	s := fromSDL(t, b.String())
	text, _ := s.View(false).Search("target", MaxViewBytes)
	block := searchBlock(t, text, "L60.target: Int")
	if len(block) != 2 || block[1] != "62 steps from Query, too many to write out" {
		t.Errorf("61 steps away: %q", block)
	}
	text, _ = s.View(false).Search("x20", MaxViewBytes)
	// Two distinct sequences of types do not exist: one path.
	wantBlock(t, text, "L20.x20: Int", "Query.l0a -> L0.a -> L1.a -> L2.a -> L3.a -> L4.a -> L5.a -> L6.a -> L7.a -> L8.a -> L9.a -> L10.a -> L11.a -> L12.a -> L13.a -> L14.a -> L15.a -> L16.a -> L17.a -> L18.a -> L19.a -> L20.x20")
	text, _ = s.View(false).Search("C", MaxViewBytes)
	if block := searchBlock(t, text, "type C40"); len(block) != 2 || block[1] != "41 steps from Query, too many to write out" {
		t.Errorf("C40: %q", block)
	}
}

// TestSearchPathsWideSchema: a schema of 10,000 types, each leading to the
// next three, is indexed and searched, and the answer stays within the
// budget (the index is linear in the schema: a few integers per type and
// per field that returns one).
func TestSearchPathsWideSchema(t *testing.T) {
	var b strings.Builder
	const n = 10_000
	b.WriteString("type Query { t0: T0 }\n")
	for i := range n {
		fmt.Fprintf(&b, "type T%d { a: T%d, b: T%d, c: T%d, n: Int }\n", i, (i+1)%n, (i+7)%n, (i*31)%n)
	}
	s := fromSDL(t, b.String())
	text, truncated := s.View(false).Search("T", MaxViewBytes)
	if !truncated || len(text) > MaxViewBytes || !strings.Contains(text, "type T1\n  path: Query.t0 -> T0.a -> T1\n") {
		t.Errorf("truncated %v, %d bytes:\n%.1000s", truncated, len(text), text)
	}
	if w, edges := s.pathWeight/2, 3*n+1; w < 48*edges {
		t.Errorf("the path index is counted %d bytes, under its %d edges' share", w, edges)
	}
}

// TestSearchPathsFitTheBudget: when the paths do not all fit, each match
// keeps one; when even that does not fit, the last matches are left out,
// and a note says how many.
func TestSearchPathsFitTheBudget(t *testing.T) {
	var b strings.Builder
	b.WriteString("type Query { node(id: ID!): Node, deep(key: String!): Deep0 }\ninterface Node { id: ID! }\n")
	for i := range 8 {
		fmt.Fprintf(&b, "type Deep%d { next(first: Int): Deep%d }\n", i, i+1)
	}
	b.WriteString("type Deep8 {\n")
	for i := range 90 {
		fmt.Fprintf(&b, "  itemWithALongName%03d: Item%03d\n", i, i)
	}
	b.WriteString("}\n")
	for i := range 90 {
		fmt.Fprintf(&b, "type Item%03d implements Node { id: ID! }\n", i)
	}
	s := fromSDL(t, b.String())
	whole, truncated := s.View(false).Search("item", MaxViewBytes)
	if truncated || len(searchBlock(t, whole, "type Item007")) != 3 {
		t.Fatalf("truncated %v; Item007: %q", truncated, searchBlock(t, whole, "type Item007"))
	}
	budget := len(whole) * 3 / 4
	text, truncated := s.View(false).Search("item", budget)
	if !truncated || len(text) > budget {
		t.Errorf("truncated %v, %d bytes over %d", truncated, len(text), budget)
	}
	wantBlock(t, text, "type Item007", "Query.node(id!) -> Node (on Item007)")
	if !strings.Contains(text, "\n# One path each, to fit the limit; a narrower search shows up to three.\n") {
		t.Errorf("no note of the paths left out:\n%.600s", text)
	}
	budget = len(whole) / 4
	text, truncated = s.View(false).Search("item", budget)
	if !truncated || len(text) > budget || !strings.Contains(text, " more matches; use a longer word to narrow the search.\n") {
		t.Errorf("truncated %v, %d bytes over %d:\n%s", truncated, len(text), budget, text[max(0, len(text)-500):])
	}
	for _, budget := range []int{300, 1000} {
		if text, _ := s.View(false).Search("item", budget); len(text) > budget {
			t.Errorf("budget %d: %d bytes", budget, len(text))
		}
	}
}

// TestSearchPathsNameGivenTwice: an introspection answer that gives a type
// name twice (an endpoint's mistake) is indexed by its first definition and
// searched without failing.
func TestSearchPathsNameGivenTwice(t *testing.T) {
	r, err := ParseResult([]byte(`{"__schema": {"queryType": {"name": "Query"}, "types": [
		{"kind": "OBJECT", "name": "Query", "fields": [{"name": "x", "args": [], "type": {"kind": "OBJECT", "name": "X"}}], "interfaces": []},
		{"kind": "SCALAR", "name": "X"},
		{"kind": "OBJECT", "name": "X", "fields": [{"name": "y", "args": [], "type": {"kind": "OBJECT", "name": "Y"}}], "interfaces": []},
		{"kind": "OBJECT", "name": "X", "fields": [{"name": "z", "args": [], "type": {"kind": "SCALAR", "name": "String"}}], "interfaces": []},
		{"kind": "OBJECT", "name": "Y", "fields": [{"name": "n", "args": [], "type": {"kind": "SCALAR", "name": "String"}}], "interfaces": []},
		{"kind": "SCALAR", "name": "String"}
	], "directives": []}}`))
	if err != nil {
		t.Skipf("refused before any search: %v", err)
	}
	s, err := New(r)
	if err != nil {
		t.Skipf("refused before any search: %v", err)
	}
	text, _ := s.View(false).Search("y", MaxViewBytes)
	wantBlock(t, text, "type Y", "Query.x -> X.y -> Y")
}
