package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpforge/servers/graphqlmcp/internal/complexity"
)

// overCeiling is the refusal of an operation priced over --maxComplexity:
// what it costs, where the cost comes from and what would bring it down.
func overCeiling(score complexity.Result, ceiling int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "query complexity %d is over the ceiling of %d (--maxComplexity), so it was not sent: it can return %d list items. Costliest lists: ", score.Score, ceiling, score.Score)
	for i, c := range score.Costliest {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s ×%d = %d items", c.Path, c.Size, c.Items)
	}
	b.WriteString(". To shrink it, lower first/last/limit arguments, select fewer lists inside paginated ones, or split it into several queries.")
	return errors.New(b.String())
}
