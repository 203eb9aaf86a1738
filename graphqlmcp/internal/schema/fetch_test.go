package schema

import "testing"

// TestPersistedOnlyReadsWordsNotNames: a refusal is read as persisted-only
// by its words and its code, not by the names it quotes; an apostrophe is
// not a quote.
func TestPersistedOnlyReadsWordsNotNames(t *testing.T) {
	for _, tt := range []struct {
		message, code string
		want          bool
	}{
		{"PersistedQueryOnly", "", true},
		{"Only persisted operations are allowed.", "", true},
		{"Persisted query 'abc123' not found", "", true},
		{"Server can't run it: persisted queries only, that's policy", "", true},
		{"Operation rejected", `"QUERY_NOT_IN_SAFELIST"`, true},
		{`Cannot query field "__schema" on type "Query". Did you mean "persistedQueries"?`, "", false},
		{"Field 'persistedQuery' in type 'Query' is undefined @[persistedQuery]", "", false},
		{"The field `persistedOperations` does not exist", `"GRAPHQL_VALIDATION_FAILED"`, false},
		{`unterminated "persisted`, "", true},
	} {
		if got := persistedOnly([]refusalError{{Message: tt.message, Code: tt.code}}); got != tt.want {
			t.Errorf("persistedOnly(%q, %s) = %v, want %v", tt.message, tt.code, got, tt.want)
		}
	}
}
