// Package regularfile reads the files an operator names (--schema,
// --operations) that reloads read again, whatever was put at the path
// since: only a regular file is read, and only up to a bound.
package regularfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// NotRegularError says the path holds something other than a regular file.
type NotRegularError struct{ Kind string }

func (e *NotRegularError) Error() string { return "is not a regular file (it is " + e.Kind + ")" }

// TooBigError says the file holds more than the caller's bound.
type TooBigError struct{ Limit int64 }

func (e *TooBigError) Error() string { return fmt.Sprintf("is over %d bytes", e.Limit) }

// Read reads the regular file at path, refusing one over limit bytes by its
// size before reading it. The file is opened without waiting and told apart
// by what was opened, not by a look at the path first: a named pipe opened
// for reading waits for a writer, which would hang a start or every reload
// after, and one swapped in between a look and the open would still hang.
// A device or a growing file is refused by its kind or read up to the bound.
// Errors are the reason alone (a *NotRegularError, a *TooBigError, or
// "cannot be read: …"): the caller names the file.
func Read(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("cannot be read: %v", reason(err))
	}
	defer f.Close()
	info, err := f.Stat()
	switch {
	case err != nil:
		return nil, fmt.Errorf("cannot be read: %v", reason(err))
	case !info.Mode().IsRegular():
		return nil, &NotRegularError{Kind: kind(info.Mode())}
	case info.Size() > limit:
		return nil, &TooBigError{Limit: limit}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("cannot be read: %v", reason(err))
	}
	if int64(len(data)) > limit {
		return nil, &TooBigError{Limit: limit}
	}
	return data, nil
}

// reason drops the path a *fs.PathError repeats.
func reason(err error) error {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return pathErr.Err
	}
	return err
}

// kind names what a path that is not a regular file holds.
func kind(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a folder"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a file"
}
