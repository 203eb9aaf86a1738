package schema

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitWords(t *testing.T) {
	for name, want := range map[string][]string{
		"PullRequestReviewComment": {"pull", "request", "review", "comment"},
		"pullRequest":              {"pull", "request"},
		"pull_request":             {"pull", "request"},
		"PULL_REQUEST_REVIEW":      {"pull", "request", "review"},
		"review comment":           {"review", "comment"},
		"  review-comment  ":       {"review", "comment"},
		"HTTPServer":               {"http", "server"},
		"URL":                      {"url"},
		"resourcePath":             {"resource", "path"},
		"sha256Hash":               {"sha", "256", "hash"},
		"__typename":               {"typename"},
		"_":                        nil,
		"":                         nil,
		"ÉtéCommentaire":           {"été", "commentaire"},
		"AB\xffcd":                 {"ab", "cd"}, // not UTF-8: a mark
		"ABC\xff":                  {"abc"},
		"\xe2\x82":                 nil,
	} {
		if got := splitWords(name); !slices.Equal(got, want) {
			t.Errorf("splitWords(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestMatchRanks: a name matches a term whole, by its start, by all the
// term's words, or in part, in that order of rank, whatever the case and
// word separators of either.
func TestMatchRanks(t *testing.T) {
	type want struct {
		rank int
		ok   bool
	}
	for _, c := range []struct {
		term, name string
		want
	}{
		{"pullRequest", "PullRequest", want{rankExact, true}},
		{"pull request", "pullRequest", want{rankExact, true}},
		{"PULL_REQUEST", "pullRequest", want{rankExact, true}},
		{"pullRequest", "PullRequestReviewComment", want{rankPrefix, true}},
		{"pull_request", "pullRequests", want{rankPrefix, true}},
		{"review comment", "PullRequestReviewComment", want{rankAllWords, true}},
		{"comment review", "PullRequestReviewComment", want{rankAllWords, true}},
		{"review comm", "addPullRequestReviewComment", want{rankAllWords, true}},
		{"request", "PullRequest", want{rankAllWords, true}},
		{"equest", "PullRequest", want{rankPartial, true}},
		{"requestreview", "PullRequestReview", want{rankPartial, true}},
		{"review comment", "IssueComment", want{0, false}},
		{"zzz", "PullRequest", want{0, false}},
		{"   ", "PullRequest", want{0, false}},
		{"_", "PullRequest", want{0, false}},
	} {
		rank, _, ok := newMatcher(c.term).match(c.name)
		if ok != c.ok || (ok && rank != c.rank) {
			t.Errorf("%q against %q: rank %d, ok %v; want rank %d, ok %v", c.term, c.name, rank, ok, c.rank, c.ok)
		}
	}
	// With someWords (set when no name has every word), a name with some
	// of them matches, in part, and says how many it lacks.
	m := newMatcher("review comment thread")
	m.someWords = true
	if rank, lacking, ok := m.match("IssueComment"); !ok || rank != rankPartial || lacking != 2 {
		t.Errorf("some words: rank %d, lacking %d, ok %v", rank, lacking, ok)
	}
	// Not by a word of a letter or two, which starts a word of nearly
	// every name.
	m = newMatcher("a id comment")
	m.someWords = true
	if _, _, ok := m.match("IssueId"); ok {
		t.Errorf("matched by short words alone")
	}
	if _, lacking, ok := m.match("IssueComment"); !ok || lacking != 2 {
		t.Errorf("a id comment against IssueComment: lacking %d, ok %v", lacking, ok)
	}
}

// TestSearchWordsBounded: a term of more than MaxSearchWords words is
// refused with the rule and the fix; past the check, only its first words
// are matched.
func TestSearchWordsBounded(t *testing.T) {
	if err := CheckSearch("one two three four five six seven eight"); err != nil {
		t.Errorf("8 words: %v", err)
	}
	err := CheckSearch("one two three four five six seven eight nine")
	if err == nil || err.Error() != `search has 9 words, more than the 8 a search matches: give the few words the name holds, such as "review comment"` {
		t.Errorf("9 words: %v", err)
	}
	m := newMatcher(strings.Repeat("review ", 10_000))
	if len(m.words) != MaxSearchWords || string(m.joined) != strings.Repeat("review", MaxSearchWords) {
		t.Errorf("%d words, %q", len(m.words), m.joined)
	}
}
