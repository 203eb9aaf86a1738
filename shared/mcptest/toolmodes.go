package mcptest

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolMode is what tools/list must be under one mode of the operator's
// tool filter (--read-only, --tools, --exclude-tools and their mixes).
type ToolMode struct {
	// Name names the mode's golden files, testdata/modes/<Name>.txt and
	// testdata/modes/<Name>/.
	Name string
	// Want are the tool names listed, in order.
	Want []string
	// Changed names the tools the mode shows otherwise than the default
	// list does; their goldens are testdata/modes/<Name>/<tool>.json.
	Changed []string
}

// CheckToolMode holds session's tools/list to mode, with goldens under the
// test's testdata (as TestToolSchemas holds the default list): the names
// are mode.Want, each tool is as testdata/<tool>.json shows it unless
// mode.Changed names it, and the list's size is in
// testdata/modes/<mode>.txt and within budget, the default list's: a filter
// that only drops tools never costs more. update rewrites the goldens of
// the changed tools and the size.
func CheckToolMode(t *testing.T, session *mcp.ClientSession, mode ToolMode, update bool, budget ListSize) {
	t.Helper()
	list, err := session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		// A tool the mode leaves as it is must match its own golden file,
		// which only the default mode's test writes.
		path, write := filepath.Join("testdata", tool.Name+".json"), false
		if slices.Contains(mode.Changed, tool.Name) {
			path, write = filepath.Join("testdata", "modes", mode.Name, tool.Name+".json"), update
		}
		if diff := toolGoldenDiff(t, tool, path, write); diff != "" {
			t.Errorf("%s: %s differs from tools/list (-golden +got):\n%s", mode.Name, path, diff)
		}
	}
	if diff := cmp.Diff(mode.Want, names); diff != "" {
		t.Fatalf("%s: tools/list names (-want +got):\n%s", mode.Name, diff)
	}
	CheckToolListSize(t, session, filepath.Join("testdata", "modes", mode.Name+".txt"), update, budget)
}
