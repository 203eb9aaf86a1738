package app

import (
	"path"
	"runtime/debug"
	"strings"
)

// buildVersion reports the module version of the running binary ("v0.3.1"
// after go install ...@v0.3.1, "(devel)" in a checkout build) and the commit
// it was built from, or "" when the build did not record one.
func buildVersion() (version, commit string) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)", ""
	}
	return describeBuild(info)
}

func describeBuild(info *debug.BuildInfo) (version, commit string) {
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
	return version, commit
}

// versionText is what --version prints after the name: the module version
// and the commit. A build from the module proxy of a tagged release records
// no commit; the release tag names it.
func versionText() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown) (commit unknown)"
	}
	return describeVersion(info)
}

func describeVersion(info *debug.BuildInfo) string {
	version, commit := describeBuild(info)
	switch {
	case commit != "":
		return version + " (commit " + commit + ")"
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
