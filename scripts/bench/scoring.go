package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// benchLine is one line of go test -bench -benchmem output, such as
// "BenchmarkParse/bytes=14818-2  2367  586854 ns/op  25.25 MB/s  329792 B/op  4581 allocs/op".
var benchLine = regexp.MustCompile(`^Benchmark(\w+)/bytes=(\d+)-\d+\s+\d+\s+[\d.]+ ns/op\s+([\d.]+) MB/s\s+(\d+) B/op`)

// scoring runs graphqlmcp/internal/complexity's go test benchmarks (parse,
// score, and the whole pre-send path with validation) and records each
// stage's throughput on the largest dense query and on the 1 MiB one, with
// the bytes allocated per byte of query at each size: constant when memory
// grows linearly.
func (b *bench) scoring(ctx context.Context) error {
	fmt.Fprintln(os.Stderr, "parsing and scoring (go test -bench ./graphqlmcp/internal/complexity):")
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", ".", "-benchmem", "-benchtime", b.sizes.benchtime, "./graphqlmcp/internal/complexity")
	cmd.Dir = b.root
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go test -bench: %w\n%s", err, out)
	}
	type result struct {
		bytes        int
		mbs, perByte float64
	}
	stages := map[string][]result{}
	var order []string
	for _, line := range strings.Split(string(out), "\n") {
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		size, _ := strconv.Atoi(m[2])
		mbs, _ := strconv.ParseFloat(m[3], 64)
		allocated, _ := strconv.ParseFloat(m[4], 64)
		if _, seen := stages[m[1]]; !seen {
			order = append(order, m[1])
		}
		stages[m[1]] = append(stages[m[1]], result{bytes: size, mbs: mbs, perByte: allocated / float64(size)})
	}
	if len(order) != 3 {
		return fmt.Errorf("go test -bench gave %d stages, want Parse, Score and PreSend:\n%s", len(order), out)
	}
	what := map[string]string{"Parse": "parse and choose", "Score": "score", "PreSend": "parse, validate and score"}
	for _, stage := range order {
		results := stages[stage]
		var perByte []string
		for _, r := range results {
			perByte = append(perByte, fmt.Sprintf("%s at %d", number(r.perByte), r.bytes))
		}
		note := "allocated per byte of query: " + strings.Join(perByte, ", ")
		for _, r := range results[len(results)-2:] {
			b.add("graphqlmcp", fmt.Sprintf("%s, %d-byte query", what[stage], r.bytes), r.mbs, "MB/s", note)
		}
	}
	return nil
}
