package tools

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcpforge/servers/graphqlmcp/internal/complexity"
)

// overCeiling is the refusal of an operation priced over --maxComplexity:
// what it costs, where the cost comes from, which sizes were assumed rather
// than asked for, and only the advice that can bring it down. Its length is
// bounded: at most five lists, each path and argument name cut short.
func overCeiling(score complexity.Result, ceiling int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "query complexity %d is over the ceiling of %d (--maxComplexity), so it was not sent: it can return %d list items. Costliest lists: ", score.Score, ceiling, score.Score)
	// What the lists shown have in common decides the advice.
	var sized, unsized, assumedNone, counted bool
	var unsetArgument, listArgument, saidAssumed string
	for i, c := range score.Costliest {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s ×%d", c.Path, c.Size)
		switch c.Sizing {
		case complexity.SizeGiven:
			sized = true
		case complexity.SizeDefault:
			sized = true
			fmt.Fprintf(&b, " (the default of %s)", shortName(c.Argument))
		case complexity.SizeListLength:
			listArgument = cmp.Or(listArgument, shortName(c.Argument))
			fmt.Fprintf(&b, " (the values given to %s)", shortName(c.Argument))
		case complexity.SizeSchemaCount:
			counted = true
			b.WriteString(" (counted in the schema)")
		case complexity.SizeAssumed:
			why := "the field takes no size argument"
			if c.Argument == "" {
				assumedNone = true
			} else {
				unsized = true
				unsetArgument = cmp.Or(unsetArgument, shortName(c.Argument))
				why = "no " + shortName(c.Argument) + " given"
			}
			b.WriteString(" assumed")
			if why != saidAssumed { // said once for a run of lists assumed alike
				fmt.Fprintf(&b, " (%s)", why)
				saidAssumed = why
			}
		}
		fmt.Fprintf(&b, " = %d items", c.Items)
	}
	var ways []string
	if sized {
		ways = append(ways, "lower first/last/limit arguments")
	}
	if unsized {
		ways = append(ways, fmt.Sprintf("give a small %s to the lists whose size was assumed", unsetArgument))
	}
	if listArgument != "" {
		ways = append(ways, fmt.Sprintf("pass fewer values to %s", listArgument))
	}
	if counted {
		ways = append(ways, "read the schema with graphql_introspect instead of __schema or __type")
	}
	if assumedNone {
		// No argument can make these lists smaller: only selecting less can.
		ways = append(ways, "select fewer of the lists that take no size argument (or fewer fields and lists nested inside them)")
	}
	if sized || unsized {
		ways = append(ways, "select fewer lists inside paginated ones")
	}
	ways = append(ways, "split it into several queries")
	b.WriteString(". To shrink it, ")
	b.WriteString(strings.Join(ways[:len(ways)-1], ", "))
	b.WriteString(", or " + ways[len(ways)-1] + ".")
	if assumedNone || unsized {
		fmt.Fprintf(&b, " An assumed size of %d may be more than the list holds; if it is, whoever runs graphqlmcp can raise --maxComplexity above %d.", complexity.AssumedListSize, ceiling)
	}
	return errors.New(b.String())
}

// maxNameBytes bounds an argument name shown in the refusal: it may come
// from the endpoint's schema, or from the query when there is none.
const maxNameBytes = 60

func shortName(name string) string {
	if len(name) <= maxNameBytes {
		return name
	}
	cut := maxNameBytes
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + "…"
}
