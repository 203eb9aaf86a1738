//go:build unix

package app

import "syscall"

// descriptorLimit is the process's limit of open files (its soft limit,
// which Go raises to the hard one at start-up).
func descriptorLimit() (uint64, bool) {
	var limit syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &limit); err != nil {
		return 0, false
	}
	return uint64(limit.Cur), true
}
