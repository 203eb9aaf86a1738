// Package workflow holds the release workflow to the rules a workflow that
// can write releases and mint an OIDC token must keep.
package workflow

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

type step struct {
	Name string            `json:"name"`
	Uses string            `json:"uses"`
	Run  string            `json:"run"`
	With map[string]any    `json:"with"`
	Env  map[string]string `json:"env"`
}

type workflow struct {
	Permissions map[string]string `json:"permissions"`
	Jobs        map[string]struct {
		Permissions map[string]string `json:"permissions"`
		Steps       []step            `json:"steps"`
	} `json:"jobs"`
}

// TestReleaseWorkflow: every action pinned by a full commit SHA (a tag can
// be moved to other code, which would then run with contents: write), no
// expression expanded into a run: script (a tag name or a title would be
// pasted into bash), the checkout's token not left in .git/config for
// every later step, no Actions cache restored into a release build (a
// cache another workflow wrote), and the workflow's default permissions
// read-only, the job asking for what it uses.
func TestReleaseWorkflow(t *testing.T) {
	raw, err := os.ReadFile("../../../.github/workflows/release.yml")
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	if err := yaml.Unmarshal(raw, &w); err != nil {
		t.Fatal(err)
	}
	if len(w.Permissions) != 1 || w.Permissions["contents"] != "read" {
		t.Errorf("workflow permissions = %v, want only contents: read (the job names what it needs)", w.Permissions)
	}
	pinned := regexp.MustCompile(`^[\w.-]+/[\w.-]+@[0-9a-f]{40}$`)
	steps := 0
	for name, job := range w.Jobs {
		for k, v := range job.Permissions {
			if v == "write" && k != "contents" && k != "id-token" {
				t.Errorf("job %s: %s: write, which no step needs", name, k)
			}
		}
		for _, s := range job.Steps {
			steps++
			if s.Uses != "" && !pinned.MatchString(s.Uses) {
				t.Errorf("job %s: uses %s: pin it by its full commit SHA (the tag in a comment)", name, s.Uses)
			}
			if strings.Contains(s.Run, "${{") {
				t.Errorf("job %s, step %q: an expression in run: is pasted into the script; pass it through env:", name, s.Name)
			}
			if strings.HasPrefix(s.Uses, "actions/checkout@") && s.With["persist-credentials"] != false {
				t.Errorf("job %s: actions/checkout without persist-credentials: false leaves the token in .git/config", name)
			}
			if strings.HasPrefix(s.Uses, "actions/setup-go@") && s.With["cache"] != false {
				t.Errorf("job %s: actions/setup-go restores an Actions cache into the release build; set cache: false", name)
			}
		}
	}
	if steps == 0 {
		t.Fatal("no steps read from release.yml")
	}
}
