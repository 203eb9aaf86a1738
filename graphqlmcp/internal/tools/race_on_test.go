//go:build race

package tools

// raceSlowdown is how much slower the race detector makes the code under
// test: a bound on a call's real time is this many times looser under it,
// so that it still catches a call that runs away (the unbounded documents
// took 30 s) without failing on a busy machine's scheduling.
const raceSlowdown = 10
