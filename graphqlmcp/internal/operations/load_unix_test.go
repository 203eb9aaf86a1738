//go:build unix

package operations

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadRefusesFilesThatAreNotFiles: a named pipe (or a device) named
// like an operation file, in a folder or named itself, is refused with a
// problem naming it; reading it would wait for a writer forever and hang
// the start, or a reload.
func TestLoadRefusesFilesThatAreNotFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ok.graphql"), []byte("query Ok { __typename }"), 0o600); err != nil {
		t.Fatal(err)
	}
	pipe := filepath.Join(dir, "pipe.graphql")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, paths := range [][]string{{dir}, {pipe}} {
		done := make(chan error, 1)
		go func() {
			_, err := Load(paths)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "pipe.graphql") || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("Load(%v) = %v, want a problem saying pipe.graphql is not a regular file", paths, err)
			}
		case <-time.After(10 * time.Second): // a safety net: the bug hangs
			t.Fatalf("Load(%v) hangs on a named pipe", paths)
		}
	}
}

// TestLoadFollowsALinkedFolder: a folder named through a symbolic link
// (ops -> /srv/ops) is read as the folder, its files placed under the
// name given, and the poll sees its files change.
func TestLoadFollowsALinkedFolder(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.MkdirAll(real, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "ok.graphql"), []byte("query Ok { __typename }"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "ops")
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("symlink: %v", err)
	}
	ops, err := Load([]string{link})
	if err != nil || len(ops) != 1 || ops[0].File != filepath.Join(link, "ok.graphql") {
		t.Fatalf("Load(%s) = %v, %v; want operation Ok placed in %s", link, ops, err, filepath.Join(link, "ok.graphql"))
	}
	if fp := Fingerprint([]string{link}); !strings.Contains(fp, "ok.graphql") {
		t.Errorf("Fingerprint(%s) = %q, want it to see ok.graphql", link, fp)
	}
}

// TestLoadReadsAFileOnce: a file named twice, through a link and by its
// own path, is one set of tools, not two operations of the same name.
func TestLoadReadsAFileOnce(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.MkdirAll(real, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "ok.graphql"), []byte("query Ok { __typename }"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "ops")
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("symlink: %v", err)
	}
	ops, err := Load([]string{link, real})
	if err != nil || len(ops) != 1 {
		t.Errorf("Load(%s, %s) = %v, %v; want operation Ok once", link, real, ops, err)
	}
}
