//go:build !race

package tools

// raceSlowdown: see race_on_test.go.
const raceSlowdown = 1
