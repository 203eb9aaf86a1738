package app

import (
	"path"
	"runtime/debug"
	"strings"
)

// linkVersion and linkCommit are stamped by the release build (GoReleaser,
// scripts/release/goreleaser.yaml) with the linker's -X flag:
//
//	-X github.com/mcpforge/servers/shared/app.linkVersion=v0.3.1
//	-X github.com/mcpforge/servers/shared/app.linkCommit=<full commit>
//
// A release binary is built in the workspace, where go.work maps shared to
// ./shared and the build info says "(devel)"; only the release pipeline knows
// the tag. They are package variables because -X can set nothing else, and
// nothing assigns them at run time. Empty in every other build, where the
// build info is all there is.
var linkVersion, linkCommit string

// buildStamp is what the linker stamped, read once and passed down, so that
// tests describe any stamp without touching the variables above.
type buildStamp struct{ version, commit string }

func linkStamp() buildStamp { return buildStamp{version: linkVersion, commit: linkCommit} }

// buildVersion reports the version of the running binary ("v0.3.1" after go
// install ...@v0.3.1 or in a release archive, "(devel)" in a checkout build)
// and the commit it was built from, or "" when the build did not record one.
func buildVersion() (version, commit string) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = &debug.BuildInfo{Main: debug.Module{Version: "(unknown)"}}
	}
	return describeStampedBuild(info, linkStamp())
}

func describeBuild(info *debug.BuildInfo) (version, commit string) {
	return describeStampedBuild(info, buildStamp{})
}

// describeStampedBuild prefers each stamped value to the build info's: a
// stamp is set on purpose by the release build, and the build info of a
// workspace build knows no version.
func describeStampedBuild(info *debug.BuildInfo, stamp buildStamp) (version, commit string) {
	version = info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	dirty := false
	for _, setting := range info.Settings {
		switch setting.Key {
		case "vcs.revision":
			commit = setting.Value
		case "vcs.modified":
			dirty = setting.Value == "true"
		}
	}
	if commit != "" && dirty {
		commit += "-dirty"
	}
	if commit == "" {
		// go install ...@<commit> builds a pseudo-version that ends in the
		// commit: v0.0.0-20261121224859-0123456789ab.
		base, _, _ := strings.Cut(version, "+")
		if i := strings.LastIndexByte(base, '-'); i > 0 && len(base)-i-1 == 12 {
			commit = base[i+1:]
		}
	}
	if stamp.version != "" {
		version = stamp.version
	}
	if stamp.commit != "" {
		commit = stamp.commit
	}
	return version, commit
}

// versionText is what --version prints after the name: the version and the
// commit. A build from the module proxy of a tagged release records no
// commit; the release tag names it.
func versionText() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = &debug.BuildInfo{Main: debug.Module{Version: "(unknown)"}}
	}
	return describeStampedVersion(info, linkStamp())
}

func describeVersion(info *debug.BuildInfo) string {
	return describeStampedVersion(info, buildStamp{})
}

func describeStampedVersion(info *debug.BuildInfo, stamp buildStamp) string {
	version, commit := describeStampedBuild(info, stamp)
	switch {
	case commit != "":
		return version + " (commit " + commit + ")"
	case version == "(unknown)":
		return version + " (commit unknown)"
	case version != "(devel)":
		// Tags of a module in a subdirectory carry its path: graphqlmcp/v0.3.1.
		return version + " (the commit tagged " + path.Base(info.Main.Path) + "/" + version + ")"
	default:
		return version + " (no commit recorded: built outside git or with -buildvcs=false)"
	}
}

// userAgent is the User-Agent header a server sends upstream.
func userAgent(name string) string {
	version, _ := buildVersion()
	return name + "/" + strings.TrimPrefix(version, "v") + " (+https://github.com/mcpforge/servers)"
}
