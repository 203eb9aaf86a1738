package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

const root = "../../.."

var servers = []string{"graphqlmcp", "hookmcp"}

// registrySchema is the registry's published schema (testdata/registry,
// draft-07, which jsonschema-go validates), resolved.
func registrySchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	raw, err := os.ReadFile("testdata/registry/server.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatalf("resolving the registry's schema: %v", err)
	}
	return resolved
}

func validate(t *testing.T, schema *jsonschema.Resolved, name string, raw []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := schema.Validate(doc); err != nil {
		t.Errorf("%s is not valid against the registry's schema: %v", name, err)
	}
	return doc
}

// TestServerJSON validates each committed server.json against the registry's
// schema, and checks it says what the server's bundle manifest says: the
// schema's own address, the name under the project's GitHub namespace, and
// the same environment variables, secret where the bundle's are sensitive.
func TestServerJSON(t *testing.T) {
	schema := registrySchema(t)
	var id struct {
		ID string `json:"$id"`
	}
	raw, _ := os.ReadFile("testdata/registry/server.schema.json")
	if err := json.Unmarshal(raw, &id); err != nil {
		t.Fatal(err)
	}
	for _, server := range servers {
		t.Run(server, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(root, server, "server.json"))
			if err != nil {
				t.Fatal(err)
			}
			doc := validate(t, schema, server+"/server.json", raw)
			if doc["$schema"] != id.ID {
				t.Errorf("$schema = %v, want the vendored schema's $id %s", doc["$schema"], id.ID)
			}
			if want := "io.github.mcpforge/" + server; doc["name"] != want {
				t.Errorf("name = %v, want %s", doc["name"], want)
			}
			secret := map[string]bool{}
			for _, v := range doc["packages"].([]any)[0].(map[string]any)["environmentVariables"].([]any) {
				v := v.(map[string]any)
				secret[v["name"].(string)] = v["isSecret"] == true
			}
			want := manifestEnv(t, server)
			if !equalKeys(secret, want) {
				t.Errorf("server.json's environment variables %v, the bundle manifest's %v", slices.Sorted(maps.Keys(secret)), slices.Sorted(maps.Keys(want)))
			}
			for name, sensitive := range want {
				if secret[name] != sensitive {
					t.Errorf("%s: isSecret %v in server.json, sensitive %v in the bundle manifest", name, secret[name], sensitive)
				}
			}
		})
	}
}

// TestFilled validates what the release workflow publishes: server.json
// filled in for a release, and refuses a version the registry would not take.
func TestFilled(t *testing.T) {
	schema := registrySchema(t)
	const sum = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, server := range servers {
		raw, err := os.ReadFile(filepath.Join(root, server, "server.json"))
		if err != nil {
			t.Fatal(err)
		}
		out, err := fill(raw, server, "1.2.3-rc.1", sum)
		if err != nil {
			t.Fatalf("%s: %v", server, err)
		}
		doc := validate(t, schema, server+" filled", out)
		pkg := doc["packages"].([]any)[0].(map[string]any)
		if doc["version"] != "1.2.3-rc.1" || pkg["version"] != "1.2.3-rc.1" || pkg["fileSha256"] != sum {
			t.Errorf("%s filled: version %v, package version %v, sha %v", server, doc["version"], pkg["version"], pkg["fileSha256"])
		}
		want := "https://github.com/mcpforge/servers/releases/download/" + server + "/v1.2.3-rc.1/" + server + "_1.2.3-rc.1.mcpb"
		if pkg["identifier"] != want {
			t.Errorf("%s identifier = %v, want %s", server, pkg["identifier"], want)
		}
		for _, bad := range []string{"v1.2.3", "latest", "^1.2.3", "1.x", ""} {
			if _, err := fill(raw, server, bad, sum); err == nil || !strings.Contains(err.Error(), "-version must be") {
				t.Errorf("fill(%q) = %v, want the -version rule", bad, err)
			}
		}
	}
}

// TestSchemaRejects shows the vendored schema is in force: documents the
// registry refuses fail here too.
func TestSchemaRejects(t *testing.T) {
	schema := registrySchema(t)
	raw, err := os.ReadFile(filepath.Join(root, "graphqlmcp", "server.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, field, value string }{
		{"a name without a namespace", "name", "graphqlmcp"},
		{"a description over 100 characters", "description", strings.Repeat("x", 101)},
	} {
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		doc[tc.field] = tc.value
		if err := schema.Validate(doc); err == nil {
			t.Errorf("%s: valid, want the schema to refuse it", tc.name)
		}
	}
	var doc map[string]any
	json.Unmarshal(raw, &doc)
	doc["packages"].([]any)[0].(map[string]any)["version"] = "latest"
	if err := schema.Validate(doc); err == nil {
		t.Error(`package version "latest": valid, want the schema to refuse it`)
	}
}

// manifestEnv reads the environment variables the server's MCP Bundle
// manifest sets, each with whether its user_config field is sensitive.
func manifestEnv(t *testing.T, server string) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, server, "mcpb", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var manifest struct {
		Server struct {
			MCPConfig struct {
				Env map[string]string `json:"env"`
			} `json:"mcp_config"`
		} `json:"server"`
		UserConfig map[string]struct {
			Sensitive bool `json:"sensitive"`
		} `json:"user_config"`
	}
	if err := json.Unmarshal(raw, &manifest); err != nil {
		t.Fatal(err)
	}
	env := map[string]bool{}
	for name, value := range manifest.Server.MCPConfig.Env {
		key, ok := strings.CutPrefix(value, "${user_config.")
		key, ok2 := strings.CutSuffix(key, "}")
		if !ok || !ok2 {
			t.Fatalf("%s/mcpb/manifest.json: env %s = %q, want ${user_config.<field>}", server, name, value)
		}
		field, found := manifest.UserConfig[key]
		if !found {
			t.Fatalf("%s/mcpb/manifest.json: env %s names user_config.%s, which is not defined", server, name, key)
		}
		env[name] = field.Sensitive
	}
	return env
}

func equalKeys(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}
