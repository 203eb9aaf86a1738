package app

import (
	"runtime/debug"
	"strings"
)

// BuildVersion reports the module version of the running binary ("v0.3.1"
// after go install ...@v0.3.1, "(devel)" in a checkout build) and, when the
// build recorded it, the commit it was built from.
func BuildVersion() (version, commit string) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)", ""
	}
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
		// A pseudo-version (v0.0.0-20261121224859-0123456789ab) ends in the commit.
		if i := strings.LastIndexByte(version, '-'); i > 0 && len(version)-i-1 == 12 {
			commit = version[i+1:]
		}
	}
	return version, commit
}

// versionText is what --version prints after the name: "version (commit)".
func versionText() string {
	version, commit := BuildVersion()
	if commit == "" {
		commit = "commit unknown"
	}
	return version + " (" + commit + ")"
}

// UserAgent is the User-Agent header a server sends upstream.
func UserAgent(name string) string {
	version, _ := BuildVersion()
	return name + "/" + strings.TrimPrefix(version, "v") + " (+https://github.com/mcpforge/servers)"
}
