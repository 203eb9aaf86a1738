//go:build unix

package schema

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadRefusesWhatIsNotAFile: --schema is read at start and again on
// every reload (SIGHUP, an edit a poll finds). A named pipe put in its
// place is refused at once, not waited on for a writer, which would hang
// the start, or every reload from then on; a device (a link to /dev/zero)
// is refused unread.
func TestLoadRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo, zero := filepath.Join(dir, "fifo.graphql"), filepath.Join(dir, "zero.graphql")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for path, kind := range map[string]string{fifo: "a named pipe", zero: "a device"} {
		done := make(chan error, 1)
		go func() {
			_, err := Load(path, time.Time{})
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "is not a regular file (it is "+kind+")") {
				t.Errorf("%s: %v; want it refused as %s", filepath.Base(path), err, kind)
			}
		case <-time.After(20 * time.Second): // a safety net: Load hangs
			t.Fatalf("%s: Load still waits after 20 s", filepath.Base(path))
		}
	}
}

// TestLoadRefusesBigFileUnread: a file over the bound is refused by its
// size, without reading it: a file that grows (a log written to the
// path) would otherwise be read up to the bound at every poll.
func TestLoadRefusesBigFileUnread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.graphql")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = Load(path, time.Time{})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "is over 64 MiB") {
		t.Errorf("Load of 1 GiB: %v; want it refused as over 64 MiB", err)
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 1<<20 {
		t.Errorf("Load of a file over the bound allocated %d bytes; want it refused unread", allocated)
	}
}
