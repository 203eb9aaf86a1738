package main

import (
	"os/exec"
	"testing"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestConformance20260728 runs the pre-release conformance suite's protocol
// 2026-07-28 scenarios against the built binary over Streamable HTTP; the
// pinned release suite (TestConformance) has scenarios only up to 2025-11-25.
// testdata/conformance-2026-07-28-baseline.yml lists the checks expected to
// fail, each with its reason; any other failing check fails the test.
func TestConformance20260728(t *testing.T) {
	srv, _ := testservers.Start(t, testservers.Starwars())
	cmd := exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "-e", srv.URL)
	url := mcptest.StartHTTP(t, cmd)
	mcptest.Conformance20260728(t, url, "testdata/conformance-2026-07-28-baseline.yml")
	mcptest.Stop(t, cmd)
}
