// Command bench measures both servers from outside, as a user's assistant
// meets them, on loopback with no network, side by side with the npm GraphQL
// MCP server mcp-graphql: start-up to the initialize answer, --version, idle
// memory, the latency a call adds over a plain HTTP request to the same
// upstream, concurrent calls, GitHub's public schema, parsing and scoring
// throughput (the go test benchmarks of graphqlmcp/internal/complexity), and
// hookmcp's resource over 10,000 requests and wait_for_request's wake-up.
// It prints a table and writes the figures as JSON. Run it from a clone:
//
//	go run ./scripts/bench                 # the full run
//	go run ./scripts/bench -quick          # a few iterations, as CI runs it
//
// What it needs besides the repository's programs (Node, mcp-graphql,
// GitHub's schema) scripts/bench/deps.sh installs, pinned, under .cache/.
// docs/benchmarks.md says what each figure means and gives the latest ones.
// Nothing here asserts a timing: a figure is reported, never judged.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpforge/servers/scripts/internal/loopback"
)

func main() {
	quick := flag.Bool("quick", false, "a few iterations of each measure, to check the suite runs (CI)")
	out := flag.String("json", ".cache/bench/latest.json", "where to write the figures as JSON")
	only := flag.String("only", "", "run one group of measures: graphql, github, scoring or hooks (default all)")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := run(ctx, *quick, *only, *out); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// sizes are the iteration counts of a run.
type sizes struct {
	starts   int // start-ups per server
	calls    int // calls per latency measure
	rounds   int // rounds of the 16 concurrent calls, cold schema reads, wake-ups
	clients  int // Streamable HTTP clients at once
	total    int // calls they make in all
	captures int // requests the resource measure's token holds
	// resourceRounds are the rounds of the resource measure, each two
	// bare reads between two plain fetches and two reads by the SDK.
	resourceRounds int
	benchtime      string // go test -benchtime of the inner benchmarks
}

// Figure is one measured value.
type Figure struct {
	Server string  `json:"server"`
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	Unit   string  `json:"unit"`
	Note   string  `json:"note,omitempty"`
}

// Report is what a run writes.
type Report struct {
	When    string   `json:"when"`
	Machine string   `json:"machine"`
	Quick   bool     `json:"quick"`
	Figures []Figure `json:"figures"`
}

// deps are the programs and files scripts/bench/deps.sh installs.
type deps struct {
	node, peer, githubSchema string
}

func run(ctx context.Context, quick bool, only, jsonPath string) error {
	if only != "" && !slices.Contains([]string{"graphql", "github", "scoring", "hooks"}, only) {
		return fmt.Errorf("-only %q names no group of measures; use graphql, github, scoring or hooks", only)
	}
	n := sizes{starts: 20, calls: 2000, rounds: 5, clients: 50, total: 20000, captures: 10000, resourceRounds: 7, benchtime: "2s"}
	if quick {
		n = sizes{starts: 3, calls: 50, rounds: 1, clients: 5, total: 200, captures: 300, resourceRounds: 1, benchtime: "1x"}
	}
	bin, err := os.MkdirTemp("", "mcpforge-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(bin)
	fmt.Fprintln(os.Stderr, "Building graphqlmcp, hookmcp, the sample GraphQL API and the capture-API fake ...")
	root, err := loopback.Build(ctx, bin, "go run ./scripts/bench")
	if err != nil {
		return err
	}
	floor := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(bin, "sdkfloor"), "./scripts/bench/sdkfloor")
	floor.Dir, floor.Stdout, floor.Stderr = root, os.Stderr, os.Stderr
	if err := floor.Run(); err != nil {
		return fmt.Errorf("go build ./scripts/bench/sdkfloor: %w", err)
	}
	fmt.Fprintln(os.Stderr, "Installing Node, mcp-graphql and GitHub's schema (scripts/bench/deps.sh) ...")
	d, err := installDeps(ctx, root)
	if err != nil {
		return err
	}
	b := &bench{procs: &loopback.Procs{Bin: bin}, sizes: n, deps: d, root: root}
	defer b.procs.StopAll()
	groups := []struct {
		name, flag string
		run        func(context.Context) error
	}{
		{"the Go SDK's floor", "graphql", b.sdkFloor},
		{"graphqlmcp and mcp-graphql", "graphql", b.graphql},
		{"GitHub's schema", "github", b.githubSchema},
		{"parsing and scoring", "scoring", b.scoring},
		{"hookmcp", "hooks", b.hooks},
	}
	for _, measure := range groups {
		if only != "" && only != measure.flag {
			continue
		}
		if err := measure.run(ctx); err != nil {
			return fmt.Errorf("%s: %w", measure.name, err)
		}
	}
	report := Report{When: time.Now().UTC().Format(time.RFC3339), Machine: machine(), Quick: quick, Figures: b.figures}
	b.print(os.Stdout, report)
	if !filepath.IsAbs(jsonPath) {
		jsonPath = filepath.Join(root, jsonPath)
	}
	if err := os.MkdirAll(filepath.Dir(jsonPath), 0o755); err != nil {
		return err
	}
	data, _ := json.MarshalIndent(report, "", "  ")
	if err := os.WriteFile(jsonPath, append(data, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(os.Stdout, "\nFigures written to", jsonPath)
	return nil
}

// installDeps runs scripts/bench/deps.sh and reads the paths it prints.
func installDeps(ctx context.Context, root string) (deps, error) {
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(root, "scripts", "bench", "deps.sh"))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return deps{}, fmt.Errorf("scripts/bench/deps.sh: %w", err)
	}
	values := map[string]string{}
	lines := bufio.NewScanner(bytes.NewReader(out))
	for lines.Scan() {
		if key, value, ok := strings.Cut(lines.Text(), "="); ok {
			values[key] = value
		}
	}
	d := deps{node: values["NODE"], peer: values["PEER"], githubSchema: values["GITHUB_SCHEMA"]}
	if d.node == "" || d.peer == "" || d.githubSchema == "" {
		return deps{}, fmt.Errorf("scripts/bench/deps.sh printed %q, want NODE, PEER and GITHUB_SCHEMA", out)
	}
	return d, nil
}

type bench struct {
	procs   *loopback.Procs
	sizes   sizes
	deps    deps
	root    string
	figures []Figure
}

func (b *bench) add(server, name string, value float64, unit, note string) {
	b.figures = append(b.figures, Figure{Server: server, Name: name, Value: value, Unit: unit, Note: note})
	fmt.Fprintf(os.Stderr, "  %s %s: %s %s\n", server, name, number(value), unit)
}

func timeEach(n int, f func() error) ([]time.Duration, error) {
	out := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if err := f(); err != nil {
			return nil, err
		}
		out = append(out, time.Since(start))
	}
	return out, nil
}

func median(d []time.Duration) time.Duration { return percentile(d, 50) }

// percentile is the nearest-rank percentile p of d.
func percentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	sorted := slices.Clone(d)
	slices.Sort(sorted)
	rank := (p*len(sorted) + 99) / 100
	return sorted[max(rank-1, 0)]
}

// number writes a figure with the digits that mean something.
func number(v float64) string {
	switch {
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 100 || v <= -100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10 || v <= -10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
func mib(bytes int) float64      { return float64(bytes) / (1 << 20) }

// rssMiB reads a process's resident set size from /proc.
func rssMiB(pid int) (float64, error) { return procStatus(pid, "VmRSS") }

// peakRSSMiB reads a process's peak resident set size from /proc.
func peakRSSMiB(pid int) (float64, error) { return procStatus(pid, "VmHWM") }

// procStatus reads one kB field of /proc/<pid>/status, in MiB.
func procStatus(pid int, field string) (float64, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("reading %s (Linux /proc only): %w", field, err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				return 0, err
			}
			return float64(kb) / 1024, nil
		}
	}
	return 0, errors.New("no " + field + " in /proc status")
}

// cpuTime is the CPU time (user + system) a running process has used, from
// /proc/<pid>/stat, in clock ticks of 10 ms.
func cpuTime(pid int) (time.Duration, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("reading CPU time (Linux /proc only): %w", err)
	}
	// The fields after the command's name, which is in parentheses.
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	fields := strings.Fields(string(stat[end+1:]))
	if len(fields) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	user, err1 := strconv.ParseInt(fields[11], 10, 64)
	system, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(user+system) * 10 * time.Millisecond, nil
}

// machine describes where the figures were taken.
func machine() string {
	model := "unknown CPU"
	if info, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(info), "\n") {
			if rest, ok := strings.CutPrefix(line, "model name"); ok {
				model = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), ":"))
				break
			}
		}
	}
	return fmt.Sprintf("%s/%s, %d CPUs (%s), %s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), model, runtime.Version())
}

// print writes the figures, then graphqlmcp's against the peer's where both
// have one.
func (b *bench) print(w io.Writer, r Report) {
	fmt.Fprintf(w, "\nMachine: %s\n", r.Machine)
	if r.Quick {
		fmt.Fprintln(w, "Quick run: a few iterations each; the figures only show the suite runs.")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "server\tfigure\tvalue\tnote")
	for _, f := range r.Figures {
		fmt.Fprintf(tw, "%s\t%s\t%s %s\t%s\n", f.Server, f.Name, number(f.Value), f.Unit, f.Note)
	}
	tw.Flush()
	fmt.Fprintf(w, "\ngraphqlmcp against %s, the same measures in the same run (lower is better for each):\n", peerName)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "figure\tgraphqlmcp\t%s\t%s ÷ graphqlmcp\n", peerName, peerName)
	for _, c := range compare(r.Figures) {
		fmt.Fprintf(tw, "%s\t%s %s\t%s %s\t%s\n", c.name, number(c.ours), c.unit, number(c.peer), c.unit, c.ratio())
	}
	tw.Flush()
}

// comparison is one figure both graphqlmcp and the peer have.
type comparison struct {
	name, unit string
	ours, peer float64
}

func (c comparison) ratio() string {
	if c.ours <= 0 {
		return "-"
	}
	return number(c.peer / c.ours)
}

func compare(figures []Figure) []comparison {
	peer := map[string]Figure{}
	for _, f := range figures {
		if f.Server == peerName {
			peer[f.Name] = f
		}
	}
	var out []comparison
	for _, f := range figures {
		// The plain requests go to the same upstream: not a server's figure.
		if p, ok := peer[f.Name]; ok && f.Server == "graphqlmcp" && p.Unit == f.Unit && !strings.HasPrefix(f.Name, "plain ") {
			out = append(out, comparison{name: f.Name, unit: f.Unit, ours: f.Value, peer: p.Value})
		}
	}
	return out
}
