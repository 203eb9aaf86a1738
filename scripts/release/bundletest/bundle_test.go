// Package bundletest checks the MCP Bundles scripts/release/check packs with
// the official CLI: what is inside, and that the server starts as the
// bundle's host starts it.
package bundletest

import (
	"archive/zip"
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const root = "../../.."

// resolved is what the host runs: @anthropic-ai/mcpb's getMcpConfigForManifest
// for the unpacked bundle and the user's settings (resolve-config.mjs).
type resolved struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

type manifest struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Tools   []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// TestBundle reads $MCPB_CHECK_DIR, which scripts/release/check fills for
// each server with SERVER.mcpb (packed by scripts/release/bundle),
// SERVER/ (it unpacked by `mcpb unpack`), SERVER.defaults.json and
// SERVER.settings.json (the host's command for the least and for full
// settings), and SERVER.version (what --version must print).
func TestBundle(t *testing.T) {
	dir := os.Getenv("MCPB_CHECK_DIR")
	if dir == "" {
		t.Skip("MCPB_CHECK_DIR is unset: run scripts/release/check, which packs the bundles")
	}
	for _, server := range []string{"graphqlmcp", "hookmcp"} {
		t.Run(server, func(t *testing.T) {
			want := readManifest(t, filepath.Join(root, server, "mcpb", "manifest.json"))
			checkArchive(t, filepath.Join(dir, server+".mcpb"), server)

			unpacked := filepath.Join(dir, server)
			got := readManifest(t, filepath.Join(unpacked, "manifest.json"))
			if got.Name != want.Name || !slices.Equal(toolNames(got), toolNames(want)) {
				t.Errorf("the bundle's manifest says %s with tools %v; %s/mcpb/manifest.json says %s with %v", got.Name, toolNames(got), server, want.Name, toolNames(want))
			}

			// With the least settings every environment variable still gets
			// a value: an optional field without a default would reach the
			// server as the literal text ${user_config.name}.
			defaults := readResolved(t, filepath.Join(dir, server+".defaults.json"))
			for name, value := range defaults.Env {
				if strings.Contains(value, "${") {
					t.Errorf("with default settings the host sets %s=%q: give its user_config field a default", name, value)
				}
			}

			run := readResolved(t, filepath.Join(dir, server+".settings.json"))
			if want := filepath.Join(unpacked, "server", server); run.Command != want {
				t.Errorf("the host runs %q, want the bundled binary %s", run.Command, want)
			}
			version, err := os.ReadFile(filepath.Join(dir, server+".version"))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a safety net only
			defer cancel()
			out, err := exec.CommandContext(ctx, run.Command, "--version").CombinedOutput()
			if err != nil || strings.TrimSpace(string(out)) != strings.TrimSpace(string(version)) {
				t.Errorf("%s --version: %q, %v; want %q", run.Command, out, err, strings.TrimSpace(string(version)))
			}

			cmd := exec.CommandContext(ctx, run.Command, run.Args...)
			cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()}
			for name, value := range run.Env {
				cmd.Env = append(cmd.Env, name+"="+value)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			client := mcp.NewClient(&mcp.Implementation{Name: "bundle-host", Version: "1"}, nil)
			session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatalf("starting %s as the host does: %v\nstderr: %s", server, err, stderr.String())
			}
			defer session.Close()
			tools, err := session.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("tools/list: %v\nstderr: %s", err, stderr.String())
			}
			var listed []string
			for _, tool := range tools.Tools {
				listed = append(listed, tool.Name)
			}
			slices.Sort(listed)
			if named := toolNames(want); !slices.Equal(listed, named) {
				t.Errorf("the server lists tools %v; the manifest names %v (keep manifest.json's tools in step)", listed, named)
			}
			if info := session.InitializeResult().ServerInfo; info.Name != server {
				t.Errorf("serverInfo.name = %q, want %q", info.Name, server)
			}
			for name, value := range run.Env {
				if strings.HasSuffix(name, "_HEADERS") || strings.HasSuffix(name, "_API_KEY") {
					if value != "" && strings.Contains(stderr.String(), value) {
						t.Errorf("the secret in %s appears in the server's log", name)
					}
				}
			}
		})
	}
}

// checkArchive opens the packed bundle (a zip) and checks it holds the
// manifest, the binary (executable), the README and the licence.
func checkArchive(t *testing.T, path, server string) {
	t.Helper()
	archive, err := zip.OpenReader(path)
	if err != nil {
		t.Fatalf("opening the bundle: %v", err)
	}
	defer archive.Close()
	files := map[string]*zip.File{}
	for _, f := range archive.File {
		files[f.Name] = f
	}
	for _, name := range []string{"manifest.json", "server/" + server, "README.md", "LICENSE"} {
		if files[name] == nil {
			t.Errorf("%s lacks %s; it holds %v", filepath.Base(path), name, slices.Sorted(maps.Keys(files)))
		}
	}
	if f := files["server/"+server]; f != nil && f.Mode()&0o111 == 0 {
		t.Errorf("server/%s is packed without its executable bit (%v)", server, f.Mode())
	}
}

func readManifest(t *testing.T, path string) manifest {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func readResolved(t *testing.T, path string) resolved {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r resolved
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

func toolNames(m manifest) []string {
	var names []string
	for _, tool := range m.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}
