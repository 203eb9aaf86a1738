//go:build !unix

package app

// descriptorLimit is unknown here: maxConnections applies.
func descriptorLimit() (uint64, bool) { return 0, false }
