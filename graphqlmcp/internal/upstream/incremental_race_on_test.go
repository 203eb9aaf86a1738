//go:build race

package upstream

// raceSlowdown is how much slower the race detector makes the code under
// test: a bound on real time is this many times looser under it.
const raceSlowdown = 10
