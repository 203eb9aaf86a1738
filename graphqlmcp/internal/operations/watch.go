package operations

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Fingerprint says what paths hold now, as cheaply as a poll can ask: the
// name, size and modification time of every file Load would read, so that
// a change is seen without reading the files.
func Fingerprint(paths []string) string {
	return eachFile(paths, func(_ string, info fs.FileInfo) string {
		return fmt.Sprintf("%d %d", info.Size(), info.ModTime().UnixNano())
	})
}

// Contents says what the files Load would read hold, by a hash of each: a
// file touched but not changed (only its time new) reads the same, so a
// reload can tell new operations from a touch.
func Contents(paths []string) string {
	return eachFile(paths, func(path string, _ fs.FileInfo) string {
		raw, err := readBounded(path, max(MaxFileBytes, MaxManifestBytes))
		if err != nil {
			return err.Error()
		}
		return fmt.Sprintf("%x", sha256.Sum256(raw))
	})
}

// eachFile is a line for every file Load would read, its path and what
// describe says of it, or that it is absent.
func eachFile(paths []string, describe func(path string, info fs.FileInfo) string) string {
	var b strings.Builder
	for _, path := range paths {
		info, err := os.Stat(path)
		if err != nil {
			fmt.Fprintf(&b, "%s: absent\n", path)
			continue
		}
		if !info.IsDir() {
			fmt.Fprintf(&b, "%s %s\n", path, describe(path, info))
			continue
		}
		seen, entries := 0, 0
		_ = walkFolder(path, func(p string, d fs.DirEntry, err error) error {
			// Past Load's bounds the folder is refused whatever it
			// holds: the walk stops where Load's does.
			if entries++; entries > MaxEntries+1 {
				return filepath.SkipAll
			}
			if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".graphql") || strings.HasSuffix(p, ".gql")) {
				return nil
			}
			if seen++; seen > MaxFiles+1 {
				return filepath.SkipAll
			}
			if info, err := d.Info(); err == nil {
				fmt.Fprintf(&b, "%s %s\n", p, describe(p, info))
			}
			return nil
		})
	}
	return b.String()
}
