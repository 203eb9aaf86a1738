package operations

import (
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
	var b strings.Builder
	for _, path := range paths {
		info, err := os.Stat(path)
		if err != nil {
			fmt.Fprintf(&b, "%s: absent\n", path)
			continue
		}
		if !info.IsDir() {
			fmt.Fprintf(&b, "%s %d %d\n", path, info.Size(), info.ModTime().UnixNano())
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
				fmt.Fprintf(&b, "%s %d %d\n", p, info.Size(), info.ModTime().UnixNano())
			}
			return nil
		})
	}
	return b.String()
}
