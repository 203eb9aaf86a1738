package operations

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWalkBounded: a folder of more than MaxEntries files and folders (an
// operator who names a repository's root) is refused at load, and the
// poll's walk stops at the same place instead of looking at all of them
// every few seconds.
func TestWalkBounded(t *testing.T) {
	dir := t.TempDir()
	for i := range MaxEntries {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("a%05d.txt", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	last := filepath.Join(dir, "zz.graphql")
	if err := os.WriteFile(last, []byte("query Last { __typename }"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load([]string{dir})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d files and folders", MaxEntries)) {
		t.Errorf("Load of a folder of %d entries = %v, want it refused", MaxEntries+2, err)
	}
	if fp := Fingerprint([]string{dir}); strings.Contains(fp, "zz.graphql") {
		t.Errorf("Fingerprint walked past %d entries: %q", MaxEntries, fp)
	}
}
