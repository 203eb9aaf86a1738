package schema

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestSchemaAgainstGraphQLJS proves the SDL graphql_introspect prints with
// graphql-js, the reference implementation, for GitHub's public schema and
// for testdata/synthetic.graphql (built to hit every hard case), in both
// views: graphql-js builds and validates each, the whole view has no
// breaking or dangerous change against graphql-js's own print of the same
// introspection answer (either way), and descriptions, default values,
// deprecation reasons, @oneOf and directives are equal; the default view
// lacks deprecated members only (scripts/graphql-js/check.mjs). The whole
// view printed from synthetic.graphql itself (--schema), from synthetic.json
// and from GitHub's answer is graphql-js's printSchema of each, byte for
// byte.
// scripts/github-schema installs graphql-js and Node (pinned) and runs it.
func TestSchemaAgainstGraphQLJS(t *testing.T) {
	graphqlJS, check, github := os.Getenv("GRAPHQL_JS_DIR"), os.Getenv("GRAPHQL_JS_CHECK"), os.Getenv("GITHUB_SCHEMA_DIR")
	if graphqlJS == "" || check == "" || github == "" {
		t.Skip("GRAPHQL_JS_DIR, GRAPHQL_JS_CHECK and GITHUB_SCHEMA_DIR are not set; scripts/github-schema runs this test")
	}
	node := func(t *testing.T, args ...string) []byte {
		t.Helper()
		cmd := exec.Command("node", append([]string{check}, args...)...)
		cmd.Env = append(os.Environ(), "GRAPHQL_JS_DIR="+graphqlJS)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node %v: %v\n%s", args, err, stderr.String())
		}
		return out
	}

	t.Run("synthetic.json is graphql-js's introspection of synthetic.graphql", func(t *testing.T) {
		want := node(t, "introspect", filepath.Join("testdata", "synthetic.graphql"))
		if *update {
			if err := os.WriteFile(filepath.Join("testdata", "synthetic.json"), want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := readFile(t, filepath.Join("testdata", "synthetic.json")); !bytes.Equal(got, want) {
			t.Error("testdata/synthetic.json is not what graphql-js makes of synthetic.graphql; run with -update")
		}
	})

	// Both routes: graphqlmcp's print of an SDL file (--schema) and of an
	// introspection answer is graphql-js's print of the same, byte for byte
	// (defaults coerced, empty descriptions kept).
	const printSchema = `const { createRequire } = require('node:module');
const g = createRequire(require('node:path').join(process.env.GRAPHQL_JS_DIR, 'package.json'))('graphql');
const text = require('node:fs').readFileSync(process.argv[1], 'utf8');
const json = process.argv[1].endsWith('.json') ? JSON.parse(text) : null;
const schema = json ? g.buildClientSchema(json.data ?? json) : g.buildSchema(text);
process.stdout.write(g.printSchema(schema) + '\n');`
	for name, path := range map[string]string{
		"synthetic.graphql": filepath.Join("testdata", "synthetic.graphql"),
		"synthetic.json":    filepath.Join("testdata", "synthetic.json"),
		"GitHub":            filepath.Join(github, "schema.json"),
	} {
		t.Run(name+" prints as graphql-js prints it", func(t *testing.T) {
			cmd := exec.Command("node", "-e", printSchema, path)
			cmd.Env = append(os.Environ(), "GRAPHQL_JS_DIR="+graphqlJS)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			want, err := cmd.Output()
			if err != nil {
				t.Fatalf("node: %v\n%s", err, stderr.String())
			}
			s, err := Load(path, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), s.View(true).SDL); diff != "" {
				t.Errorf("(-graphql-js +graphqlmcp):\n%s", diff)
			}
		})
	}

	t.Run("generated defaults print as graphql-js prints them", func(t *testing.T) { testDefaultsAgainstGraphQLJS(t, graphqlJS) })

	for name, file := range map[string]string{
		"synthetic": filepath.Join("testdata", "synthetic.json"),
		"GitHub":    filepath.Join(github, "schema.json"),
	} {
		t.Run(name, func(t *testing.T) {
			s := mustSchema(t, readFile(t, file))
			dir := t.TempDir()
			all, current := filepath.Join(dir, "all.graphql"), filepath.Join(dir, "current.graphql")
			writeFile(t, all, s.View(true).SDL)
			writeFile(t, current, s.View(false).SDL)
			var report struct {
				Problems []string `json:"problems"`
			}
			if err := json.Unmarshal(node(t, "check", file, all, current), &report); err != nil {
				t.Fatal(err)
			}
			for i, problem := range report.Problems {
				if i == 50 {
					t.Errorf("… and %d more", len(report.Problems)-50)
					break
				}
				t.Error(problem)
			}
			t.Logf("%s: graphql-js finds no problem in either view (%d and %d bytes of SDL, %d deprecated members hidden)",
				name, len(s.View(true).SDL), len(s.View(false).SDL), s.View(false).Hidden)
		})
	}
}

func mustSchema(t *testing.T, introspection []byte) *Schema {
	t.Helper()
	r, err := ParseResult(introspection)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(r)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
