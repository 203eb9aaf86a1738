//go:build !race

package upstream

// raceSlowdown: see incremental_race_on_test.go.
const raceSlowdown = 1
