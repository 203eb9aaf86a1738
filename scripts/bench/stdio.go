package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// launch is how to start one server over stdio.
type launch struct {
	server string   // the name its figures carry
	path   string   // the program
	args   []string // its arguments
	env    []string // added to this process's environment
	// version is whether it has a --version flag to measure.
	version bool
}

func (l launch) command() *exec.Cmd {
	cmd := exec.Command(l.path, l.args...)
	cmd.Env = append(os.Environ(), l.env...)
	return cmd
}

// session is one stdio session with a server process.
type session struct {
	*mcp.ClientSession
	cmd *exec.Cmd
}

// connect starts a server over stdio and returns once it answered
// initialize, with how long that took from the process's start.
func connect(ctx context.Context, l launch) (*session, time.Duration, error) {
	cmd := l.command()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpforge-bench", Version: "v1"}, nil)
	start := time.Now()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("starting %s: %w", l.server, err)
	}
	return &session{ClientSession: cs, cmd: cmd}, time.Since(start), nil
}

func (s *session) pid() int { return s.cmd.Process.Pid }

// callOK calls a tool and makes a tool error an error.
func callOK(ctx context.Context, s *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err == nil && res.IsError {
		err = fmt.Errorf("%s: tool error: %.300s", tool, text(res))
	}
	return res, err
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

// measured starts a server for the measures of one session: its start-ups
// and --version first, then one session whose idle RSS it records.
func (b *bench) measured(ctx context.Context, l launch) (*session, error) {
	if err := b.startup(ctx, l); err != nil {
		return nil, err
	}
	if l.version {
		if err := b.version(ctx, l); err != nil {
			return nil, err
		}
	}
	s, _, err := connect(ctx, l)
	if err != nil {
		return nil, err
	}
	list, err := s.ListTools(ctx, nil)
	if err != nil {
		s.Close()
		return nil, err
	}
	// What the tool list costs every session in the model's context: its
	// compact JSON, as graphqlmcp's and hookmcp's TestToolListSize count it.
	var listJSON bytes.Buffer
	enc := json.NewEncoder(&listJSON)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(list); err != nil {
		s.Close()
		return nil, err
	}
	b.add(l.server, "tools/list size", float64(listJSON.Len()-1)/1000, "KB", fmt.Sprintf("%d tools, compact JSON", len(list.Tools)))
	rss, err := rssMiB(s.pid())
	if err != nil {
		s.Close()
		return nil, err
	}
	// Most of it is the binary's own pages, which the start touches
	// nearly all of: the file-backed part grows with the binary's size.
	file, err := procStatus(s.pid(), "RssFile")
	if err != nil {
		s.Close()
		return nil, err
	}
	b.add(l.server, "idle RSS", rss, "MiB", fmt.Sprintf("after initialize and tools/list; %.1f MiB of it the binary's pages (RssFile)", file))
	return s, nil
}

// startup measures process start to the initialize answer, the median of
// the run's start-ups.
func (b *bench) startup(ctx context.Context, l launch) error {
	var times []time.Duration
	for range b.sizes.starts {
		s, took, err := connect(ctx, l)
		if err != nil {
			return err
		}
		times = append(times, took)
		s.Close()
	}
	b.add(l.server, "start-up to initialize (median)", ms(median(times)), "ms", fmt.Sprintf("%d starts", len(times)))
	return nil
}

// version measures `<server> --version`: its whole-process wall and CPU
// time.
func (b *bench) version(ctx context.Context, l launch) error {
	var wall, cpu []time.Duration
	for range b.sizes.starts {
		cmd := exec.CommandContext(ctx, l.path, "--version")
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("--version: %w", err)
		}
		wall = append(wall, time.Since(start))
		cpu = append(cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	}
	b.add(l.server, "--version wall (median)", ms(median(wall)), "ms", "")
	b.add(l.server, "--version CPU (median)", ms(median(cpu)), "ms", "user + system")
	return nil
}

// latency measures calls through the session against the same request
// made straight to the upstream, and records both and the difference. With
// no upstream (direct nil) the whole call is what the MCP layer adds.
func (b *bench) latency(ctx context.Context, server string, s *session, tool string, args map[string]any, direct func() error) error {
	call := func() error {
		_, err := callOK(ctx, s.ClientSession, tool, args)
		return err
	}
	if direct == nil {
		direct = func() error { return nil }
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
	cpuBefore, err := cpuTime(s.pid())
	if err != nil {
		return err
	}
	viaMCP, err := timeEach(b.sizes.calls, call)
	if err != nil {
		return err
	}
	cpuAfter, err := cpuTime(s.pid())
	if err != nil {
		return err
	}
	plain, err := timeEach(b.sizes.calls, direct)
	if err != nil {
		return err
	}
	calls := fmt.Sprintf("%d calls of %s", b.sizes.calls, tool)
	b.add(server, "call p50", us(percentile(viaMCP, 50)), "µs", calls)
	b.add(server, "call p99", us(percentile(viaMCP, 99)), "µs", calls)
	added := "call p50 − plain HTTP p50"
	if server == "sdkfloor" {
		added = "no upstream: the whole call"
	} else {
		b.add(server, "plain HTTP p50", us(percentile(plain, 50)), "µs", fmt.Sprintf("%d requests", b.sizes.calls))
		b.add(server, "plain HTTP p99", us(percentile(plain, 99)), "µs", fmt.Sprintf("%d requests", b.sizes.calls))
	}
	b.add(server, "added latency p50", us(percentile(viaMCP, 50)-percentile(plain, 50)), "µs", added)
	b.add(server, "server CPU per call", us((cpuAfter-cpuBefore)/time.Duration(b.sizes.calls)), "µs", "the server process's user + system time over the calls (10 ms ticks)")
	return nil
}

var plainClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// fetch sends one request with a plain HTTP client and reads the whole
// answer, which must be 200; it returns the answer's size.
func fetch(ctx context.Context, method, url, body string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := plainClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return n, err
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		return n, fmt.Errorf("%s %s: HTTP %d", method, url, resp.StatusCode)
	}
	return n, nil
}

// sdkFloor measures sdkfloor, the least server the Go SDK makes: start-up,
// --version, idle RSS, and a call that does nothing, as the servers'
// figures are taken.
func (b *bench) sdkFloor(ctx context.Context) error {
	fmt.Fprintln(os.Stderr, "the Go SDK's floor (scripts/bench/sdkfloor):")
	l := launch{server: "sdkfloor", path: filepath.Join(b.procs.Bin, "sdkfloor"), version: true}
	s, err := b.measured(ctx, l)
	if err != nil {
		return err
	}
	defer s.Close()
	return b.latency(ctx, l.server, s, "echo", map[string]any{"query": smallQuery}, nil)
}
