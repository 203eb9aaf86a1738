//go:build unix

package regularfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestRead: what an operator may put at a path a reload reads again. A
// named pipe is refused at once (a plain open would wait for a writer: the
// test's safety net catches a hang), a device and a folder by their kind, a
// file over the bound by its size, unread.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	fifo, zero, big, ok := filepath.Join(dir, "fifo"), filepath.Join(dir, "zero"), filepath.Join(dir, "big"), filepath.Join(dir, "ok")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ok, []byte("type Query { a: Int }"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()

	for _, tc := range []struct {
		path, kind string
		tooBig     bool
	}{
		{path: fifo, kind: "a named pipe"},
		{path: zero, kind: "a device"},
		{path: dir, kind: "a folder"},
		{path: big, tooBig: true},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := Read(tc.path, 1<<20)
			done <- err
		}()
		select {
		case err := <-done:
			var notRegular *NotRegularError
			var tooBig *TooBigError
			switch {
			case tc.tooBig && !errors.As(err, &tooBig):
				t.Errorf("%s: %v; want a *TooBigError", filepath.Base(tc.path), err)
			case !tc.tooBig && (!errors.As(err, &notRegular) || notRegular.Kind != tc.kind):
				t.Errorf("%s: %v; want it refused as %s", filepath.Base(tc.path), err, tc.kind)
			}
		case <-time.After(20 * time.Second): // a safety net: Read hangs
			t.Fatalf("%s: Read still waits after 20 s", filepath.Base(tc.path))
		}
	}
	if data, err := Read(ok, 1<<20); err != nil || string(data) != "type Query { a: Int }" {
		t.Errorf("a regular file: %q, %v", data, err)
	}
	if _, err := Read(ok, 4); !errors.As(err, new(*TooBigError)) {
		t.Errorf("a regular file over the bound: %v; want a *TooBigError", err)
	}
	if _, err := Read(filepath.Join(dir, "missing"), 1<<20); err == nil || err.Error() != "cannot be read: no such file or directory" {
		t.Errorf("a missing file: %v; want the reason alone, without the path", err)
	}
}
