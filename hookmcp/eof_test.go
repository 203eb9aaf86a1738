package main

import (
	"testing"

	"github.com/mcpforge/servers/shared/mcptest"
)

// TestEndOfInputAnswersAll runs `printf '<initialize>\n<initialized>\n<ping>\n<tools/list>\n' | hookmcp`
// 40 times: every run must print the three answers and exit cleanly.
func TestEndOfInputAnswersAll(t *testing.T) {
	mcptest.CheckEndOfInputAnswersAll(t, binary, 40)
}
