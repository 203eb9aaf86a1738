package upstream

import (
	"strings"
	"testing"
	"time"
)

// TestTimeoutAdvice: a timeout under the ceiling is advised to grow, up to
// the ceiling, through the knob the purpose has; one at the ceiling is not,
// and the advice is what else can be done.
func TestTimeoutAdvice(t *testing.T) {
	tests := []struct {
		purpose Purpose
		after   time.Duration
		want    string
	}{
		{ForQuery, time.Second, "Pass a larger timeout (in milliseconds, up to 600000), or ask for less"},
		{ForQuery, MaxTimeout, "600000 ms is the most allowed: ask for less: fewer fields, or fewer items"},
		{ForSchema, time.Second, "graphql_query's timeout argument (which bounds its schema fetch too), or --timeout (GRAPHQL_TIMEOUT)"},
		{ForSchema, MaxTimeout, "600000 ms is the most allowed; the endpoint is too slow to describe its schema: give graphqlmcp the schema from a file with --schema"},
	}
	for _, tt := range tests {
		if got := timeoutAdvice(tt.purpose, tt.after); !strings.Contains(got, tt.want) {
			t.Errorf("timeoutAdvice(%d, %v) = %q, want %q in it", tt.purpose, tt.after, got, tt.want)
		}
	}
}
