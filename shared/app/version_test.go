package app

import (
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// TestStampedVersion: the release build's stamp wins over the build info,
// each value on its own, and an empty stamp changes nothing.
func TestStampedVersion(t *testing.T) {
	const path = "github.com/mcpforge/servers/graphqlmcp"
	workspace := debug.BuildInfo{Main: debug.Module{Path: path, Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.modified", Value: "true"},
	}}
	noVCS := debug.BuildInfo{Main: debug.Module{Path: path, Version: "(devel)"}}
	for _, tc := range []struct {
		name  string
		info  debug.BuildInfo
		stamp buildStamp
		want  string
	}{
		{"release build in the workspace", workspace, buildStamp{"v0.3.1", "fedcba9876543210"}, "v0.3.1 (commit fedcba9876543210)"},
		{"release build without git", noVCS, buildStamp{"v0.3.1", "fedcba9876543210"}, "v0.3.1 (commit fedcba9876543210)"},
		{"version stamped alone keeps the build's commit", workspace, buildStamp{version: "v0.3.1"}, "v0.3.1 (commit 0123456789abcdef-dirty)"},
		{"commit stamped alone keeps the build's version", noVCS, buildStamp{commit: "fedcba9876543210"}, "(devel) (commit fedcba9876543210)"},
		{"no stamp", workspace, buildStamp{}, "(devel) (commit 0123456789abcdef-dirty)"},
	} {
		if got := describeStampedVersion(&tc.info, tc.stamp); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if version, commit := describeStampedBuild(&workspace, buildStamp{"v0.3.1", "fedcba9876543210"}); version != "v0.3.1" || commit != "fedcba9876543210" {
		t.Errorf("describeStampedBuild = %q, %q", version, commit)
	}
}

// TestLinkStampedVersion builds a program on app.Main with the linker flags
// scripts/release/goreleaser.yaml passes and checks what --version prints:
// a renamed variable would silently leave a release reading "(devel)".
func TestLinkStampedVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bin := filepath.Join(t.TempDir(), "versionmain")
	const pkg = "github.com/mcpforge/servers/shared/app"
	ldflags := "-X " + pkg + ".linkVersion=v9.8.7 -X " + pkg + ".linkCommit=0123456789abcdef0123456789abcdef01234567"
	build := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags, "-o", bin, "./testdata/versionmain")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("versionmain --version: %v\n%s", err, out)
	}
	const want = "versionmain version v9.8.7 (commit 0123456789abcdef0123456789abcdef01234567)"
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("--version printed %q, want %q", got, want)
	}
}
