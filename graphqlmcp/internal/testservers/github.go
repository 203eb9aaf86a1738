package testservers

import (
	"os"
	"path/filepath"
	"testing"
)

// GitHubIntrospection is GitHub's public introspection result, from the
// folder GITHUB_SCHEMA_DIR names (scripts/github-schema installs the npm
// package @octokit/graphql-schema, pinned, and sets it). The test or
// benchmark is skipped when it is not set.
func GitHubIntrospection(tb testing.TB) []byte {
	tb.Helper()
	dir := os.Getenv("GITHUB_SCHEMA_DIR")
	if dir == "" {
		tb.Skip("GITHUB_SCHEMA_DIR is not set; scripts/github-schema sets it")
	}
	introspection, err := os.ReadFile(filepath.Join(dir, "schema.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return introspection
}
