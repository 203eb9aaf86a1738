package schema

import (
	"runtime"
	"testing"
)

// BenchmarkBuildPaths indexes the paths of GitHub's schema (default view):
// the work of a schema's first search, once per schema and view. It reports
// the bytes the index keeps (retained-B), beside what Weight counts for it
// (counted-B, which must not be less) and the schema's SDL.
func BenchmarkBuildPaths(b *testing.B) {
	s := githubSchema(b)
	v := s.View(false)
	var kept *pathIndex
	for b.Loop() {
		kept = v.buildPaths()
	}
	var before, after runtime.MemStats
	kept = nil
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept = v.buildPaths()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc)-float64(before.HeapAlloc), "retained-B")
	b.ReportMetric(float64(s.pathWeight/2), "counted-B")
	b.ReportMetric(float64(len(v.SDL)), "sdl-B")
	runtime.KeepAlive(kept)
}

// BenchmarkSearchGitHub is one search of GitHub's schema, its paths
// already indexed.
func BenchmarkSearchGitHub(b *testing.B) {
	v := githubSchema(b).View(false)
	v.paths()
	for b.Loop() {
		v.Search("pullRequest", MaxViewBytes)
	}
}
