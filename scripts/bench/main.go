// Command bench measures both servers from outside, as a user's assistant
// meets them, on loopback with no network: start-up to the initialize
// answer, --version, idle memory, the latency a call adds over a plain HTTP
// request to the same upstream, and concurrent calls against a slow
// upstream. It prints a table and writes the figures as JSON. Run it from a
// clone:
//
//	go run ./scripts/bench                 # the full run
//	go run ./scripts/bench -quick          # a few iterations, as CI runs it
//
// docs/benchmarks.md says what each figure means and gives the latest ones.
// Nothing here asserts a timing: a figure is reported, never judged.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/scripts/internal/loopback"
)

func main() {
	quick := flag.Bool("quick", false, "a few iterations of each measure, to check the suite runs (CI)")
	out := flag.String("json", ".cache/bench/latest.json", "where to write the figures as JSON")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := run(ctx, *quick, *out); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// sizes are the iteration counts of a run.
type sizes struct {
	starts  int // start-ups per server
	calls   int // calls per latency measure
	clients int // Streamable HTTP clients at once
	total   int // calls they make in all
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

func run(ctx context.Context, quick bool, jsonPath string) error {
	n := sizes{starts: 20, calls: 2000, clients: 50, total: 20000}
	if quick {
		n = sizes{starts: 3, calls: 50, clients: 5, total: 200}
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
	b := &bench{procs: &loopback.Procs{Bin: bin}, sizes: n}
	defer b.procs.StopAll()
	if err := b.graphql(ctx); err != nil {
		return fmt.Errorf("graphqlmcp: %w", err)
	}
	if err := b.hooks(ctx); err != nil {
		return fmt.Errorf("hookmcp: %w", err)
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

type bench struct {
	procs   *loopback.Procs
	sizes   sizes
	figures []Figure
}

func (b *bench) add(server, name string, value float64, unit, note string) {
	b.figures = append(b.figures, Figure{Server: server, Name: name, Value: value, Unit: unit, Note: note})
	fmt.Fprintf(os.Stderr, "  %s %s: %s %s\n", server, name, number(value), unit)
}

// server is one stdio session with a server binary.
type server struct {
	session *mcp.ClientSession
	cmd     *exec.Cmd
}

// connect starts a server over stdio and returns once it answered
// initialize, with how long that took from the process's start.
func (b *bench) connect(ctx context.Context, name string, env []string, args ...string) (*server, time.Duration, error) {
	cmd := exec.Command(filepath.Join(b.procs.Bin, name), args...)
	cmd.Env = append(os.Environ(), env...)
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpforge-bench", Version: "v1"}, nil)
	start := time.Now()
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, 0, err
	}
	return &server{session: session, cmd: cmd}, time.Since(start), nil
}

func (s *server) close() { s.session.Close() }

// callOK calls a tool and makes a tool error an error.
func callOK(ctx context.Context, session *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err == nil && res.IsError {
		err = fmt.Errorf("%s: tool error: %s", tool, text(res))
	}
	return res, err
}

// measured starts a server for the measures of one session: its start-ups
// and --version first, then one session whose idle RSS it records.
func (b *bench) measured(ctx context.Context, name string, env []string, args ...string) (*server, error) {
	if err := b.startup(ctx, name, env, args...); err != nil {
		return nil, err
	}
	s, _, err := b.connect(ctx, name, env, args...)
	if err != nil {
		return nil, err
	}
	rss, err := b.idleRSS(ctx, s)
	if err != nil {
		s.close()
		return nil, err
	}
	b.add(name, "idle RSS", rss, "MiB", "after initialize and tools/list")
	return s, nil
}

// startup measures process start to the initialize answer, the median of
// the run's start-ups, and --version's whole-process wall and CPU time.
func (b *bench) startup(ctx context.Context, name string, env []string, args ...string) error {
	var times []time.Duration
	for range b.sizes.starts {
		s, took, err := b.connect(ctx, name, env, args...)
		if err != nil {
			return err
		}
		times = append(times, took)
		s.close()
	}
	b.add(name, "start-up to initialize (median)", ms(median(times)), "ms", fmt.Sprintf("%d starts", len(times)))
	var wall, cpu []time.Duration
	for range b.sizes.starts {
		cmd := exec.CommandContext(ctx, filepath.Join(b.procs.Bin, name), "--version")
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("--version: %w", err)
		}
		wall = append(wall, time.Since(start))
		cpu = append(cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	}
	b.add(name, "--version wall (median)", ms(median(wall)), "ms", "")
	b.add(name, "--version CPU (median)", ms(median(cpu)), "ms", "user + system")
	return nil
}

// idleRSS is the server's resident memory after initialize and tools/list.
func (b *bench) idleRSS(ctx context.Context, s *server) (float64, error) {
	if _, err := s.session.ListTools(ctx, nil); err != nil {
		return 0, err
	}
	return rssMiB(s.cmd.Process.Pid)
}

// latency measures calls through the session against the same request
// made straight to the upstream, and records both and the difference.
func (b *bench) latency(ctx context.Context, name string, s *server, tool string, args map[string]any, direct func() error) error {
	call := func() error {
		_, err := callOK(ctx, s.session, tool, args)
		return err
	}
	// Warm both paths: connections, caches.
	for range 20 {
		if err := call(); err != nil {
			return err
		}
		if err := direct(); err != nil {
			return err
		}
	}
	viaMCP, err := timeEach(b.sizes.calls, call)
	if err != nil {
		return err
	}
	plain, err := timeEach(b.sizes.calls, direct)
	if err != nil {
		return err
	}
	calls := fmt.Sprintf("%d calls", b.sizes.calls)
	b.add(name, tool+" p50", us(percentile(viaMCP, 50)), "µs", calls)
	b.add(name, tool+" p99", us(percentile(viaMCP, 99)), "µs", calls)
	b.add(name, "plain HTTP p50", us(percentile(plain, 50)), "µs", calls)
	b.add(name, "plain HTTP p99", us(percentile(plain, 99)), "µs", calls)
	b.add(name, "added latency p50", us(percentile(viaMCP, 50)-percentile(plain, 50)), "µs", tool+" p50 − plain HTTP p50")
	return nil
}

func (b *bench) graphql(ctx context.Context) error {
	fmt.Fprintln(os.Stderr, "graphqlmcp:")
	api, _, err := b.procs.Start("samplegraphql", "-listen", "127.0.0.1:0")
	if err != nil {
		return err
	}
	s, err := b.measured(ctx, "graphqlmcp", nil, "--endpoint", api)
	if err != nil {
		return err
	}
	defer s.close()
	query := `{ hero { name } }`
	body, _ := json.Marshal(map[string]any{"query": query})
	if err := b.latency(ctx, "graphqlmcp", s, "graphql_query", map[string]any{"query": query}, func() error {
		return post(ctx, api, body)
	}); err != nil {
		return err
	}
	if err := b.concurrency(ctx, api, query); err != nil {
		return err
	}
	return b.httpClients(ctx, api, query)
}

// httpClients serves graphqlmcp over Streamable HTTP and has many clients
// call it at once: throughput, latency, failures, and the server's memory
// before and after.
func (b *bench) httpClients(ctx context.Context, api, query string) error {
	endpoint, proc, err := b.procs.Start("graphqlmcp", "--endpoint", api, "--transport", "http", "--listen", "127.0.0.1:0")
	if err != nil {
		return err
	}
	pid := proc.Pid
	transport := &http.Transport{MaxIdleConnsPerHost: b.sizes.clients}
	sessions := make([]*mcp.ClientSession, b.sizes.clients)
	for i := range sessions {
		client := mcp.NewClient(&mcp.Implementation{Name: "mcpforge-bench-http", Version: "v1"}, nil)
		session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: transport}}, nil)
		if err != nil {
			return fmt.Errorf("HTTP client %d: %w", i, err)
		}
		defer session.Close()
		sessions[i] = session
	}
	// One call first: the schema is fetched and cached before the measure.
	if _, err := callOK(ctx, sessions[0], "graphql_query", map[string]any{"query": query}); err != nil {
		return err
	}
	before, err := rssMiB(pid)
	if err != nil {
		return err
	}
	perClient := b.sizes.total / b.sizes.clients
	times := make([][]time.Duration, len(sessions))
	var failures atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for i, session := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perClient {
				began := time.Now()
				if _, err := callOK(ctx, session, "graphql_query", map[string]any{"query": query}); err != nil {
					failures.Add(1)
					continue
				}
				times[i] = append(times[i], time.Since(began))
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	after, err := rssMiB(pid)
	if err != nil {
		return err
	}
	all := slices.Concat(times...)
	label := fmt.Sprintf("%d clients, %d calls", len(sessions), perClient*len(sessions))
	b.add("graphqlmcp", "HTTP calls/s", float64(perClient*len(sessions))/wall.Seconds(), "calls/s", label)
	b.add("graphqlmcp", "HTTP call p50", us(percentile(all, 50)), "µs", label)
	b.add("graphqlmcp", "HTTP call p99", us(percentile(all, 99)), "µs", label)
	b.add("graphqlmcp", "HTTP failures", float64(failures.Load()), "calls", label)
	b.add("graphqlmcp", "HTTP RSS before the calls", before, "MiB", "schema cached, clients connected")
	b.add("graphqlmcp", "HTTP RSS after the calls", after, "MiB", label)
	return nil
}

// concurrency sends 16 calls at once on one stdio session to an upstream
// that answers each in 100 ms: the ideal is 100 ms in all.
func (b *bench) concurrency(ctx context.Context, api, query string) error {
	target, err := url.Parse(api)
	if err != nil {
		return err
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	slow := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(100 * time.Millisecond)
		proxy.ServeHTTP(w, r)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go slow.Serve(ln)
	defer slow.Close()
	slowURL := "http://" + ln.Addr().String() + target.Path
	// The schema is fetched once, before the measure: a session's first
	// call introspects.
	s, _, err := b.connect(ctx, "graphqlmcp", nil, "--endpoint", slowURL)
	if err != nil {
		return err
	}
	defer s.close()
	if _, err := callOK(ctx, s.session, "graphql_query", map[string]any{"query": query}); err != nil {
		return err
	}
	const inFlight = 16
	rounds := 5
	if b.sizes.calls < 100 {
		rounds = 1
	}
	var walls []time.Duration
	for range rounds {
		start := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, inFlight)
		for range inFlight {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := callOK(ctx, s.session, "graphql_query", map[string]any{"query": query})
				errs <- err
			}()
		}
		wg.Wait()
		walls = append(walls, time.Since(start))
		close(errs)
		for err := range errs {
			if err != nil {
				return err
			}
		}
	}
	b.add("graphqlmcp", "16 concurrent 100 ms calls (median wall)", ms(median(walls)), "ms", fmt.Sprintf("one stdio session, %d rounds; ideal 100 ms", rounds))
	return nil
}

func (b *bench) hooks(ctx context.Context) error {
	fmt.Fprintln(os.Stderr, "hookmcp:")
	api, _, err := b.procs.Start("fakehooksvc", "-listen", "127.0.0.1:0")
	if err != nil {
		return err
	}
	s, err := b.measured(ctx, "hookmcp", []string{"HOOKSVC_API_URL=" + api})
	if err != nil {
		return err
	}
	defer s.close()
	created, err := callOK(ctx, s.session, "create_token", map[string]any{})
	if err != nil {
		return err
	}
	var token struct {
		Token struct {
			UUID string `json:"uuid"`
		} `json:"token"`
	}
	raw, _ := json.Marshal(created.StructuredContent)
	if err := json.Unmarshal(raw, &token); err != nil || token.Token.UUID == "" {
		return fmt.Errorf("create_token gave no uuid: %s", raw)
	}
	id := token.Token.UUID
	return b.latency(ctx, "hookmcp", s, "get_token", map[string]any{"token_id": id}, func() error {
		return get(ctx, api+"/token/"+id)
	})
}

var plainClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

func post(ctx context.Context, url string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(string(body)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	return do(req)
}

func get(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	return do(req)
}

func do(req *http.Request) error {
	resp, err := plainClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: HTTP %d", req.Method, req.URL, resp.StatusCode)
	}
	return nil
}

// text is a result's text content.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
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

// rssMiB reads a process's resident set size from /proc.
func rssMiB(pid int) (float64, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("reading the RSS (Linux /proc only): %w", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				return 0, err
			}
			return float64(kb) / 1024, nil
		}
	}
	return 0, errors.New("no VmRSS in /proc status")
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
}
