package mcptest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The official npm clients the end-to-end tests drive the servers with.
// scripts/e2e installs them, pinned, with the Node 22 they need on PATH, and
// sets these variables to their launchers; without them the tests skip, and
// scripts/e2e fails when a test it runs was skipped.
const (
	inspectorEnv   = "MCP_INSPECTOR"   // @modelcontextprotocol/inspector's mcp-inspector
	conformanceEnv = "MCP_CONFORMANCE" // @modelcontextprotocol/conformance's conformance
)

// Inspector runs the MCP Inspector's CLI mode, one process per request, as a
// user would from a shell.
type Inspector struct {
	launcher string
	home     string // a scratch HOME: the Inspector keeps a catalog and storage there
}

// NewInspector finds the Inspector scripts/e2e installed, or skips the test.
func NewInspector(t *testing.T) *Inspector {
	t.Helper()
	launcher := os.Getenv(inspectorEnv)
	if launcher == "" {
		t.Skipf("%s is not set; scripts/e2e installs the MCP Inspector and runs this test", inspectorEnv)
	}
	return &Inspector{launcher: launcher, home: t.TempDir()}
}

// Target is how the Inspector reaches a server: the arguments that name it.
type Target []string

// StdioTarget has the Inspector start command with args over stdio, with env
// (KEY=VALUE) as the server's only variables besides the Inspector's defaults.
func StdioTarget(env []string, command string, args ...string) Target {
	var target Target
	for _, kv := range env {
		target = append(target, "-e", kv)
	}
	return append(append(target, "--", command), args...)
}

// HTTPTarget has the Inspector reach a server over Streamable HTTP at url.
func HTTPTarget(url string) Target {
	return Target{"--transport", "http", "--server-url", url}
}

// Run makes one request (args such as "--method", "tools/list") and returns
// the result member of the Inspector's JSON output, and its stderr. A failed
// request (nonzero exit) fails the test.
func (in *Inspector) Run(t *testing.T, target Target, args ...string) (json.RawMessage, string) {
	t.Helper()
	result, stderr, err := in.try(target, args...)
	if err != nil {
		t.Fatalf("mcp-inspector %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return result, stderr
}

// RunFailing makes a request that must fail (nonzero exit) and returns its
// stderr, where the Inspector writes the error.
func (in *Inspector) RunFailing(t *testing.T, target Target, args ...string) string {
	t.Helper()
	result, stderr, err := in.try(target, args...)
	if err == nil {
		t.Fatalf("mcp-inspector %s succeeded, want an error: %s", strings.Join(args, " "), result)
	}
	return stderr
}

func (in *Inspector) try(target Target, args ...string) (json.RawMessage, string, error) {
	// Options come first; a stdio target ends with "--" and the command.
	argv := append([]string{"--cli", "--format", "json", "--connect-timeout", "30000"}, args...)
	argv = append(argv, target...)
	cmd := exec.Command(in.launcher, argv...)
	cmd.Env = append(os.Environ(), "HOME="+in.home, "MCP_CATALOG_PATH="+filepath.Join(in.home, "catalog.json"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == inspectorToolIsError {
		err = nil // a tool result with isError set is still a result
	}
	if err != nil {
		return stdout.Bytes(), stderr.String(), err
	}
	var out struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || out.Result == nil {
		return stdout.Bytes(), stderr.String(), fmt.Errorf("stdout holds no JSON result: %.300s", stdout.Bytes())
	}
	return out.Result, stderr.String(), nil
}

// inspectorToolIsError is the Inspector CLI's exit code for a tools/call
// whose result has isError set; it still prints the result on stdout.
const inspectorToolIsError = 5

// CallTool calls a tool through the Inspector and decodes its result.
func (in *Inspector) CallTool(t *testing.T, target Target, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	argJSON, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := in.Run(t, target, "--method", "tools/call", "--tool-name", tool, "--tool-args-json", string(argJSON))
	var res mcp.CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("%s: decoding the Inspector's result: %v\n%s", tool, err, raw)
	}
	return &res
}

// CheckStrictTools lists the tools with the Inspector's --strict schema check,
// which reports schemas some clients reject, and requires the exact tool
// names and no problem at all: no error and no warning.
func (in *Inspector) CheckStrictTools(t *testing.T, target Target, want []string) {
	t.Helper()
	raw, stderr := in.Run(t, target, "--method", "tools/list", "--strict")
	var list mcp.ListToolsResult
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatalf("decoding tools/list: %v\n%s", err, raw)
	}
	checkNames(t, list.Tools, want)
	if strings.Contains(stderr, "Path:") || strings.Contains(stderr, "Issue:") {
		t.Errorf("the Inspector's strict schema check found problems:\n%s", stderr)
	}
}

// Conformance runs the official conformance suite's server scenarios, all of
// them, against a server over Streamable HTTP at url. baseline is the
// checked-in YAML list of the scenarios that cannot apply to the server, each
// with its reason as a comment; the suite fails on any other failure and on
// any baseline entry that passes. The scenarios any server with tools must
// pass may never be put in the baseline.
func Conformance(t *testing.T, url, baseline string) {
	t.Helper()
	suite := os.Getenv(conformanceEnv)
	if suite == "" {
		t.Skipf("%s is not set; scripts/e2e installs the conformance suite and runs this test", conformanceEnv)
	}
	expected := readBaseline(t, baseline)
	for _, name := range mustPassConformance {
		if _, ok := expected[name]; ok {
			t.Errorf("%s lists %s, which every server must pass", baseline, name)
		}
	}
	for name, reason := range expected {
		if reason == "" {
			t.Errorf("%s lists %s without a reason (a comment after it)", baseline, name)
		}
	}
	cmd := exec.Command(suite, "server", "--suite", "all", "--url", url, "--expected-failures", baseline, "-o", t.TempDir())
	out, err := cmd.CombinedOutput()
	summary := string(out)
	if i := strings.Index(summary, "=== SUMMARY ==="); i >= 0 {
		summary = summary[i:]
	}
	t.Logf("conformance suite:\n%s", summary)
	if err != nil {
		t.Errorf("conformance suite: %v (failures outside the baseline, or baseline entries that now pass)", err)
	}
	for _, name := range mustPassConformance {
		if !regexp.MustCompile(`(?m)^✓ ` + regexp.QuoteMeta(name) + `: [1-9]\d* passed, 0 failed`).MatchString(summary) {
			t.Errorf("scenario %s did not pass", name)
		}
	}
}

// mustPassConformance are the scenarios that apply to every server with
// tools, whatever its tools are.
var mustPassConformance = []string{"server-initialize", "ping", "tools-list", "dns-rebinding-protection", "logging-set-level", "resources-list", "prompts-list"}

// readBaseline reads the conformance suite's expected-failures file, a YAML
// list under "server:", as scenario name → the comment that gives its reason.
func readBaseline(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries := map[string]string{}
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		item, ok := strings.CutPrefix(strings.TrimSpace(lines.Text()), "- ")
		if !ok {
			continue
		}
		name, reason, _ := strings.Cut(item, "#")
		entries[strings.TrimSpace(name)] = strings.TrimSpace(reason)
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	if len(entries) == 0 {
		t.Fatalf("%s lists no scenario", path)
	}
	return entries
}
