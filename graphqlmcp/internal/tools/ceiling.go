package tools

import (
	"errors"
	"fmt"
	"slices"
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
	// What the lists shown have in common decides the advice, which names
	// the arguments that size them.
	var given, defaulted, unset, listArguments names
	var assumedNone, counted bool
	var saidAssumed string
	for i, c := range score.Costliest {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s ×%d", c.Path, c.Size)
		argument := shortName(c.Argument)
		switch c.Sizing {
		case complexity.SizeGiven:
			if c.Size > 1 { // a list of one item has no smaller size that helps
				given.add(argument)
			}
		case complexity.SizeDefault:
			if c.Size > 1 {
				defaulted.add(argument)
			}
			fmt.Fprintf(&b, " (the default of %s)", argument)
		case complexity.SizeListLength:
			listArguments.add(argument)
			fmt.Fprintf(&b, " (the values given to %s)", argument)
		case complexity.SizeSchemaCount:
			counted = true
			b.WriteString(" (counted in the schema)")
		case complexity.SizeAssumed:
			why := "the field takes no size argument"
			if c.Argument == "" {
				assumedNone = true
			} else {
				unset.add(argument)
				why = "no " + argument + " given"
			}
			b.WriteString(" assumed")
			if why != saidAssumed { // said once for a run of lists assumed alike
				fmt.Fprintf(&b, " (%s)", why)
				saidAssumed = why
			}
		}
		fmt.Fprintf(&b, " = %d %s", c.Items, plural(c.Items, "item", "items"))
	}
	var ways []string
	if len(given) > 0 {
		ways = append(ways, "give "+given.String()+" a smaller value")
	}
	if len(defaulted) > 0 {
		ways = append(ways, "give "+defaulted.String()+" a value below its default")
	}
	if len(unset) > 0 {
		ways = append(ways, fmt.Sprintf("give a small %s to the lists whose size was assumed", unset))
	}
	if len(listArguments) > 0 {
		ways = append(ways, fmt.Sprintf("pass fewer values to %s", listArguments))
	}
	if counted {
		ways = append(ways, "read the schema with graphql_introspect instead of __schema or __type")
	}
	if assumedNone {
		// No argument can make these lists smaller: only selecting less can.
		ways = append(ways, "select fewer of the lists that take no size argument (or fewer fields and lists nested inside them)")
	}
	if len(given)+len(defaulted)+len(unset) > 0 {
		ways = append(ways, "select fewer lists inside paginated ones")
	}
	if len(ways) == 0 {
		// Lists of one item each, many of them: only fewer lists help.
		ways = append(ways, "select fewer lists")
	}
	ways = append(ways, "split it into several queries")
	b.WriteString(". To shrink it, ")
	b.WriteString(strings.Join(ways[:len(ways)-1], ", "))
	b.WriteString(", or " + ways[len(ways)-1] + ".")
	if assumedNone || len(unset) > 0 {
		fmt.Fprintf(&b, " An assumed size of %d may be more than the list holds; if it is, whoever runs graphqlmcp can raise --maxComplexity above %d.", complexity.AssumedListSize, ceiling)
	}
	return errors.New(b.String())
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// names are argument names in the order the refusal meets them, each
// once: at most five, one per list shown.
type names []string

func (n *names) add(name string) {
	if name != "" && !slices.Contains(*n, name) {
		*n = append(*n, name)
	}
}

func (n names) String() string { return strings.Join(n, " or ") }

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
