package tools

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/mcpforge/servers/graphqlmcp/internal/complexity"
	"github.com/mcpforge/servers/graphqlmcp/internal/operation"
	"github.com/mcpforge/servers/graphqlmcp/internal/schema"
	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestGitHubSchema proves graphql_introspect on GitHub's public schema
// (about 1.2 MB of SDL): the overview fits the size limit, types and search
// work, and the introspection result converts to SDL that loads and keeps
// every type, field and argument. (The package's own schema.graphql is not
// the reference: it is of another build and defines one field twice.)
// The schema comes from the npm package @octokit/graphql-schema, which
// scripts/github-schema installs (pinned) and points GITHUB_SCHEMA_DIR at.
func TestGitHubSchema(t *testing.T) {
	introspection := testservers.GitHubIntrospection(t)
	result, err := schema.ParseResult(introspection)
	if err != nil {
		t.Fatal(err)
	}
	converted, err := schema.New(result)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("conversion keeps every type, field and argument", func(t *testing.T) {
		// The SDL must load, and must hold what the introspection result
		// holds, read here straight from its JSON.
		all := converted.View(true)
		if diff := cmp.Diff(introspectedShape(t, introspection), shape(loadSDL(t, all.SDL))); diff != "" {
			t.Errorf("converted schema (-introspection +converted SDL):\n%s", diff)
		}
		// The default view hides deprecated members yet stays a valid
		// schema (gqlparser checks interfaces, empty types and defaults).
		current := converted.View(false)
		loadSDL(t, current.SDL)
		t.Logf("GitHub schema: %d types, SDL %d bytes; default view %d bytes, %d deprecated members hidden",
			converted.TypeCount(), len(all.SDL), len(current.SDL), current.Hidden)
	})

	t.Run("calibrations of the price", func(t *testing.T) {
		githubCalibrations(t, converted)
	})

	body := append(append([]byte(`{"data":`), introspection...), '}')
	srv, rec := testservers.Start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	h := connect(t, testConfig(t, srv.URL), nil)

	res := h.call(t, "graphql_introspect", map[string]any{})
	out := mcptest.Structured(t, res)
	if res.IsError || out["view"] != "overview" {
		t.Fatalf("view = %v: %.300s", out["view"], mcptest.Text(res))
	}
	t.Logf("overview: %d bytes (limit %d); full SDL %d bytes", len(mcptest.Text(res)), schema.MaxViewBytes, int(out["sdlBytes"].(float64)))
	if len(mcptest.Text(res)) > schema.MaxViewBytes {
		t.Errorf("overview is %d bytes, over the %d limit", len(mcptest.Text(res)), schema.MaxViewBytes)
	}
	for _, want := range []string{"type Query {", "  repository(", "type Mutation {", "  createIssue(input: CreateIssueInput!): CreateIssuePayload", "OBJECT (", "INPUT_OBJECT ("} {
		if !strings.Contains(mcptest.Text(res), want) {
			t.Errorf("overview lacks %q", want)
		}
	}

	res = h.call(t, "graphql_introspect", map[string]any{"types": []any{"Repository"}})
	if !strings.Contains(mcptest.Text(res), "type Repository implements") || mcptest.Structured(t, res)["cached"] != true {
		t.Errorf("types view: %.300s", mcptest.Text(res))
	}
	res = h.call(t, "graphql_introspect", map[string]any{"search": "pullRequest"})
	if !strings.Contains(mcptest.Text(res), "Repository.pullRequest(number: Int!): PullRequest") {
		t.Errorf("search view: %.500s", mcptest.Text(res))
	}
	if len(mcptest.Text(res)) > schema.MaxViewBytes {
		t.Errorf("search view is %d bytes", len(mcptest.Text(res)))
	}
	if rec.Count() != 1 {
		t.Errorf("the schema was fetched %d times, want once (then cached)", rec.Count())
	}
}

// introspectedShape is shape computed from raw introspection JSON, with no
// code shared with the converter.
func introspectedShape(t *testing.T, data []byte) map[string]string {
	t.Helper()
	type ref struct {
		Kind   string `json:"kind"`
		Name   string `json:"name"`
		OfType *ref   `json:"ofType"`
	}
	var render func(r *ref) string
	render = func(r *ref) string {
		switch r.Kind {
		case "NON_NULL":
			return render(r.OfType) + "!"
		case "LIST":
			return "[" + render(r.OfType) + "]"
		}
		return r.Name
	}
	type value struct {
		Name         string  `json:"name"`
		Type         ref     `json:"type"`
		DefaultValue *string `json:"defaultValue"`
	}
	var doc struct {
		Schema struct {
			Types []struct {
				Kind          string  `json:"kind"`
				Name          string  `json:"name"`
				Interfaces    []ref   `json:"interfaces"`
				PossibleTypes []ref   `json:"possibleTypes"`
				InputFields   []value `json:"inputFields"`
				EnumValues    []struct {
					Name string `json:"name"`
				} `json:"enumValues"`
				Fields []struct {
					Name string  `json:"name"`
					Args []value `json:"args"`
					Type ref     `json:"type"`
				} `json:"fields"`
			} `json:"types"`
		} `json:"__schema"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{"OBJECT": "OBJECT", "INTERFACE": "INTERFACE", "UNION": "UNION", "ENUM": "ENUM", "INPUT_OBJECT": "INPUT_OBJECT", "SCALAR": "SCALAR"}
	out := map[string]string{}
	for _, typ := range doc.Schema.Types {
		switch typ.Name {
		case "String", "Int", "Float", "Boolean", "ID":
			continue
		}
		if strings.HasPrefix(typ.Name, "__") {
			continue
		}
		var parts, interfaces, members []string
		for _, f := range typ.Fields {
			var args []string
			for _, a := range f.Args {
				arg := a.Name + ": " + render(&a.Type)
				if a.DefaultValue != nil {
					arg += " = " + normalizeLiteral(t, *a.DefaultValue)
				}
				args = append(args, arg)
			}
			parts = append(parts, f.Name+"("+strings.Join(args, ", ")+"): "+render(&f.Type))
		}
		for _, f := range typ.InputFields {
			field := f.Name + "(): " + render(&f.Type)
			if f.DefaultValue != nil {
				field += " = " + normalizeLiteral(t, *f.DefaultValue)
			}
			parts = append(parts, field)
		}
		for _, v := range typ.EnumValues {
			parts = append(parts, "enum "+v.Name)
		}
		for _, i := range typ.Interfaces {
			interfaces = append(interfaces, i.Name)
		}
		if typ.Kind == "UNION" {
			for _, p := range typ.PossibleTypes {
				members = append(members, p.Name)
			}
		}
		sort.Strings(parts)
		sort.Strings(interfaces)
		sort.Strings(members)
		out[typ.Name] = fmt.Sprintf("%s implements %v members %v {%s}", kinds[typ.Kind], interfaces, members, strings.Join(parts, "; "))
	}
	return out
}

// normalizeLiteral renders a GraphQL literal the way gqlparser prints it.
func normalizeLiteral(t *testing.T, literal string) string {
	t.Helper()
	doc, err := parser.ParseQuery(&ast.Source{Input: "query($v: Int = " + literal + ") { f }"})
	if err != nil {
		t.Fatalf("default value %q: %v", literal, err)
	}
	return doc.Operations[0].VariableDefinitions[0].DefaultValue.String()
}

// githubCalibrations prices the operations the complexity rule is
// calibrated on (docs/graphqlmcp.md, Complexity), each valid against
// GitHub's schema, and checks the score and whether it is under the default
// ceiling of 100.
func githubCalibrations(t *testing.T, s *schema.Schema) {
	checker, err := s.Validator()
	if err != nil {
		t.Fatal(err)
	}
	repo := `repository(owner: "o", name: "n")`
	for _, tt := range []struct {
		query string
		vars  map[string]any
		want  int
	}{
		{"{ viewer { login name } }", nil, 1},
		{"{ viewer { repositories(first: 100) { nodes { name } } } }", nil, 100},
		{"{ " + repo + " { issues(first: 25) { totalCount pageInfo { hasNextPage endCursor } edges { node { number title createdAt author { login } } } } } }", nil, 25},
		{"{ " + repo + " { issues(first: 100) { totalCount } } }", nil, 100},
		{"{ " + repo + " { issues(first: 50) { nodes { comments(first: 20) { nodes { body } } } } } }", nil, 1050},
		{`{ search(query: "x", type: REPOSITORY, first: 20) { nodes { ... on Repository { languages(first: 10) { nodes { name } } } } } }`, nil, 220},
		{"query($n: Int = 50) { viewer { repositories(first: $n) { nodes { name } } } }", nil, 50},
		{"query($n: Int = 50) { viewer { repositories(first: $n) { nodes { name } } } }", map[string]any{"n": 101}, 101},
	} {
		chosen, err := operation.Choose(tt.query, "")
		if err != nil {
			t.Fatal(err)
		}
		if errs, _ := checkRules(defaultRules(), checker, chosen.Sent); len(errs) > 0 {
			t.Errorf("%s is not valid on GitHub's schema: %v", tt.query, errs)
			continue
		}
		got, err := complexity.Score(chosen.Doc, chosen.Op, tt.vars, checker)
		if err != nil || got.Score != tt.want {
			t.Errorf("%s %v: score %d, %v; want %d", tt.query, tt.vars, got.Score, err, tt.want)
		}
	}
}
