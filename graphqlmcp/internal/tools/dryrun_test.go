package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graph-gophers/graphql-go/example/starwars"

	"github.com/mcpforge/servers/graphqlmcp/internal/config"
	"github.com/mcpforge/servers/graphqlmcp/internal/schema"
	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// dryRunSDL has a mutation and lists sized by arguments and not.
const dryRunSDL = `type Query { users(first: Int): [User] tags: [String] }
type User { id: ID name: String friends(first: Int = 4): [User] }
type Mutation { deleteUser(id: ID!): Boolean }`

// withSchemaFile is cfg reading sdl as --schema does, so that nothing,
// not even introspection, needs the endpoint.
func withSchemaFile(t *testing.T, cfg config.Config, sdl string) config.Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "schema.graphql")
	if err := os.WriteFile(path, []byte(sdl), 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	if cfg.Schema, err = schema.Load(path, time.Now()); err != nil {
		t.Fatal(err)
	}
	cfg.Validate = true
	return cfg
}

// TestDryRunSendsNothing: with --schema, a dry run reaches the endpoint not
// at all, and gives the verdict, the price with its costliest lists, the
// headers and the body; the same call without dryRun sends that body byte
// for byte.
func TestDryRunSendsNothing(t *testing.T) {
	srv, rec := testservers.Start(t, testservers.Starwars())
	cfg := withSchemaFile(t, testConfig(t, srv.URL), starwars.Schema)
	cfg.Headers = map[string]string{"Authorization": "Bearer dry-run-secret-1"}
	h := connect(t, cfg, nil)
	args := map[string]any{
		"query":     "# a comment, not sent\nquery Hero($ep: Episode) { hero(episode: $ep) { name friends { name } } } query Other { hero { id } }",
		"variables": map[string]any{"ep": "EMPIRE"}, "operationName": "Hero", "dryRun": true,
	}
	res := h.call(t, "graphql_query", args)
	if res.IsError {
		t.Fatalf("dry run refused: %s", mcptest.Text(res))
	}
	if n := rec.Count(); n != 0 {
		t.Fatalf("a dry run with --schema sent %d requests, want none", n)
	}
	out := mcptest.Structured(t, res)
	if out["dryRun"] != true || out["verdict"] != "would be sent" || out["operation"] != "query Hero" || out["complexity"] != float64(10) || out["maxComplexity"] != float64(100) {
		t.Errorf("structured: %v", out)
	}
	costliest, _ := out["costliest"].([]any)
	if len(costliest) != 1 || costliest[0].(map[string]any)["path"] != "hero.friends" || costliest[0].(map[string]any)["sizedBy"] != "assumed: the field takes no size argument" {
		t.Errorf("costliest: %v", out["costliest"])
	}
	headers := strings.Join(toStrings(out["headers"]), "\n")
	if !strings.Contains(headers, "Authorization: (value not shown)") || !strings.Contains(headers, "Content-Type: application/json") {
		t.Errorf("headers: %s", headers)
	}
	text := mcptest.Text(res)
	for _, want := range []string{"Dry run: nothing was sent.", "would send query Hero to " + srv.URL, "it matches the schema of", "Its price is 10 of the ceiling of 100",
		"hero.friends ×10 (assumed: the field takes no size argument) = 10 items"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "dry-run-secret-1") {
		t.Errorf("the text shows a startup header's value:\n%s", text)
	}
	body, _ := out["body"].(string)
	if last := mcptest.LastText(res); last != body {
		t.Errorf("the last block is not the body:\n%s\nbody: %s", last, body)
	}

	delete(args, "dryRun")
	if res := h.call(t, "graphql_query", args); res.IsError || !strings.Contains(mcptest.Text(res), "Luke Skywalker") {
		t.Fatalf("the call itself: %s", mcptest.Text(res))
	}
	if sent := rec.Requests(); len(sent) != 1 || string(sent[0].Body) != body {
		t.Errorf("the call sent a body other than the dry run's:\nsent: %s\nshown: %s", sent[0].Body, body)
	}
}

func toStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, len(list))
	for i, item := range list {
		out[i], _ = item.(string)
	}
	return out
}

// TestDryRunIntrospects: without --schema, a dry run asks the endpoint for
// its schema (a schema lookup, as graphql_introspect makes), and sends no
// operation.
func TestDryRunIntrospects(t *testing.T) {
	srv, rec := testservers.Start(t, testservers.Starwars())
	res := connect(t, validating(t, srv.URL), nil).call(t, "graphql_query", map[string]any{"query": "{ hero { name } }", "dryRun": true})
	if res.IsError {
		t.Fatalf("dry run refused: %s", mcptest.Text(res))
	}
	if rec.Introspections() == 0 || rec.Operations() != 0 {
		t.Errorf("%d introspections and %d operations sent, want some and none", rec.Introspections(), rec.Operations())
	}
}

// TestDryRunVerdicts: each check a call meets before sending meets a dry
// run too, with the same refusal, and nothing is sent; a mutation the
// guard refuses is still checked and priced.
func TestDryRunVerdicts(t *testing.T) {
	tests := []struct {
		name   string
		args   map[string]any
		adjust func(*config.Config)
		isErr  bool
		want   []string
	}{
		{name: "costliest lists and where their sizes come from", args: map[string]any{"query": "{ users(first: 5) { friends { id } } tags }"},
			want: []string{"Its price is 35 of the ceiling of 100", "users ×5 (the value given to first) = 25 items", "users.friends ×4 (the default of first) = 20 items", "tags ×10 (assumed: the field takes no size argument)"}},
		{name: "mutation the guard refuses, checked and priced", args: map[string]any{"query": `mutation Del { deleteUser(id: "1") }`}, isErr: true,
			want: []string{"dry run, nothing was sent: operation Del is a mutation", "pass allowMutations: true", "Apart from that, it matches the schema of", "Its price is 1 of the ceiling of 100 (--maxComplexity): it can return 1 list item."}},
		{name: "mutation refused by --mutations never, checked and priced", args: map[string]any{"query": `mutation Del { deleteUser(id: 1) { id } }`, "allowMutations": true},
			adjust: func(c *config.Config) { c.Mutations = config.MutationsNever }, isErr: true,
			want: []string{"query does not match the schema", "deleteUser"}},
		{name: "mutation allowed", args: map[string]any{"query": `mutation Del { deleteUser(id: "1") }`, "allowMutations": true},
			want: []string{"would send mutation Del to", "(a mutation, which allowMutations: true lets run)"}},
		{name: "over the ceiling", args: map[string]any{"query": "{ users(first: 101) { id } }"}, isErr: true,
			want: []string{"query complexity 101 is over the ceiling of 100", "users ×101 = 101 items"}},
		{name: "not in the schema", args: map[string]any{"query": "{ users { nmae } }"}, isErr: true, want: []string{`Did you mean "name"?`}},
		{name: "variables that do not fit", args: map[string]any{"query": "query($n: Int) { users(first: $n) { id } }", "variables": map[string]any{"n": "ten"}}, isErr: true,
			want: []string{"variables do not match the operation's variable definitions"}},
		{name: "subscription", args: map[string]any{"query": "subscription S { ticks }"}, isErr: true, want: []string{"S is a subscription"}},
		{name: "variables given as a string", args: map[string]any{"query": "query($n: Int) { users(first: $n) { id } }", "variables": `{"n": 3}`},
			want: []string{"Its price is 3 of", stringVariablesNote}},
		{name: "unchecked with --validate=false", args: map[string]any{"query": "{ users(first: 2) { nmae } }"}, adjust: func(c *config.Config) { c.Validate = false },
			want: []string{"it was not checked against the schema (--validate=false)", "Its price is 2 of"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, rec := testservers.Start(t, testservers.Introspection(dryRunSDL))
			cfg := withSchemaFile(t, testConfig(t, srv.URL), dryRunSDL)
			if tt.adjust != nil {
				tt.adjust(&cfg)
			}
			tt.args["dryRun"] = true
			res := connect(t, cfg, nil).call(t, "graphql_query", tt.args)
			if res.IsError != tt.isErr {
				t.Errorf("isError = %v, want %v", res.IsError, tt.isErr)
			}
			for _, want := range tt.want {
				if !strings.Contains(mcptest.Text(res), want) {
					t.Errorf("text lacks %q:\n%s", want, mcptest.Text(res))
				}
			}
			if n := rec.Count(); n != 0 {
				t.Errorf("a dry run sent %d requests, want none", n)
			}
		})
	}
}

// TestDryRunDoesNotConfirm: a dry run of a mutation never asks the user to
// confirm it (nothing is sent to confirm): under --confirm-mutations
// require, with a client that cannot be asked (no elicitation), the dry
// run answers, where the call itself would be refused.
func TestDryRunDoesNotConfirm(t *testing.T) {
	srv, rec := testservers.Start(t, testservers.Introspection(dryRunSDL))
	cfg := withSchemaFile(t, testConfig(t, srv.URL), dryRunSDL)
	cfg.ConfirmMutations = "require"
	res := connect(t, cfg, nil).call(t, "graphql_query", map[string]any{"query": `mutation Del { deleteUser(id: "1") }`, "allowMutations": true, "dryRun": true})
	if res.IsError || !strings.Contains(mcptest.Text(res), "would send mutation Del") || rec.Count() != 0 {
		t.Errorf("isError=%v, %d requests: %s", res.IsError, rec.Count(), mcptest.Text(res))
	}
}
