package mcptest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// conformance20260728Scenarios are the pre-release suite's scenarios that
// exist only for protocol 2026-07-28 and apply to any server whatever its
// tools: the rest of its 2026-07-28 requirement set calls the suite's own
// fixture tools, prompts and resources (as in each server's testdata/conformance-baseline.yml)
// or the input-required extension, which the go-sdk does not implement.
var conformance20260728Scenarios = []string{"server-stateless", "caching", "http-header-validation", "sep-2164-resource-not-found"}

// Conformance20260728 runs each scenario of the pre-release conformance
// suite (scripts/e2e exports its path as MCP_CONFORMANCE_NEXT) against url
// and compares the checks that failed or warned, scenario/check-id, with
// baseline, a YAML list under "server:" whose entries each give their reason
// in a comment. The suite's own --expected-failures works per scenario, which
// would hide a new failing check inside a scenario that already has one.
func Conformance20260728(t *testing.T, url, baseline string) {
	t.Helper()
	suite := os.Getenv("MCP_CONFORMANCE_NEXT")
	if suite == "" {
		t.Skip("MCP_CONFORMANCE_NEXT is not set; scripts/e2e installs the pre-release conformance suite and runs this test")
	}
	expected := readConformanceNextBaseline(t, baseline)
	failed := map[string]string{}
	for _, scenario := range conformance20260728Scenarios {
		dir := t.TempDir()
		out, err := exec.Command(suite, "server", "--url", url, "--scenario", scenario, "--spec-version", "2026-07-28", "-o", dir).CombinedOutput()
		files, _ := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
		if len(files) != 1 {
			t.Fatalf("scenario %s wrote %d checks.json files (exit: %v):\n%s", scenario, len(files), err, out)
		}
		data, rerr := os.ReadFile(files[0])
		if rerr != nil {
			t.Fatal(rerr)
		}
		var checks []struct{ ID, Status, ErrorMessage string }
		if jerr := json.Unmarshal(data, &checks); jerr != nil {
			t.Fatalf("scenario %s: %s: %v", scenario, files[0], jerr)
		}
		passed := 0
		for _, c := range checks {
			switch c.Status {
			case "SUCCESS":
				passed++
			case "FAILURE", "WARNING":
				failed[scenario+"/"+c.ID] = c.Status + ": " + c.ErrorMessage
			}
		}
		if passed == 0 {
			t.Errorf("scenario %s passed no check:\n%s", scenario, out)
		}
		t.Logf("%s: %d of %d checks passed", scenario, passed, len(checks))
	}
	for name, why := range failed {
		if _, ok := expected[name]; !ok {
			t.Errorf("%s failed and is not in %s: %s", name, baseline, why)
		}
	}
	for name := range expected {
		if _, ok := failed[name]; !ok {
			t.Errorf("%s lists %s, which now passes: remove it", baseline, name)
		}
	}
}

// readConformanceNextBaseline reads a baseline: each "- scenario/check"
// line with its reason in a comment.
func readConformanceNextBaseline(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	entries := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		item, ok := strings.CutPrefix(strings.TrimSpace(line), "- ")
		if !ok {
			continue
		}
		name, reason, _ := strings.Cut(item, "#")
		if strings.TrimSpace(reason) == "" {
			t.Errorf("%s lists %s without a reason (a comment after it)", path, name)
		}
		entries[strings.TrimSpace(name)] = strings.TrimSpace(reason)
	}
	return entries
}
