package app

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v3"

	"github.com/mcpforge/servers/shared/mcptool"
)

// The operator's choice of tools: --tools, --exclude-tools and --read-only,
// read here, and checked against the tools a server has by
// CheckToolFilter once the server has registered them (the names are the
// server's, and graphqlmcp's saved operations are known only then).
//
// The rules, each a startup error when broken, so that what a client lists
// is what the operator meant:
//   - every name is a tool's or a group's (graphqlmcp's "operations"), with
//     close names suggested;
//   - a name is in --tools or in --exclude-tools, not both;
//   - --exclude-tools applies after --tools, so it may take tools out of a
//     group --tools names; but each name in --tools must leave at least one
//     tool listed (a tool --read-only or a group in --exclude-tools leaves
//     out is refused, not dropped in silence);
//   - at least one tool is listed.

// toolFilterFlags are the flags that choose the tools a server exposes.
// groupsHelp is Spec.ToolGroupsHelp: the server's own groups, so that one
// server's help does not speak of another's.
func toolFilterFlags(envPrefix, groupsHelp string) []cli.Flag {
	only, exclude := "offer only these tools, by name", "never offer these tools, by name"
	if groupsHelp != "" {
		only += " (" + groupsHelp + ")"
		exclude += " or group"
	}
	return []cli.Flag{
		&cli.StringSliceFlag{
			Name:    "tools",
			Usage:   only + "; repeat it or separate with commas",
			Sources: cli.EnvVars(envPrefix + "_TOOLS"),
		},
		&cli.StringSliceFlag{
			Name:    "exclude-tools",
			Usage:   exclude + ", applied after --tools; repeat it or separate with commas",
			Sources: cli.EnvVars(envPrefix + "_EXCLUDE_TOOLS"),
		},
		&cli.BoolFlag{
			Name:    "read-only",
			Usage:   "offer only the tools annotated read-only (graphqlmcp refuses every mutation, whatever --mutations says)",
			Sources: cli.EnvVars(envPrefix + "_READ_ONLY"),
		},
	}
}

// maxToolNameBytes bounds a name given to --tools or --exclude-tools: longer
// than any tool's, and a line of an error when quoted.
const maxToolNameBytes = 200

// toolFilterFrom reads the tool filter from the command line.
func toolFilterFrom(cmd *cli.Command) (mcptool.Filter, error) {
	only, err := toolNamesFrom(cmd, "tools")
	if err != nil {
		return mcptool.Filter{}, err
	}
	exclude, err := toolNamesFrom(cmd, "exclude-tools")
	if err != nil {
		return mcptool.Filter{}, err
	}
	for _, name := range exclude {
		if slices.Contains(only, name) {
			return mcptool.Filter{}, FlagErrorf("exclude-tools", "names %s, which --tools names too: a tool is offered or not; remove it from one of them", mcptool.Quote(name))
		}
	}
	return mcptool.Filter{Only: only, Exclude: exclude, ReadOnly: cmd.Bool("read-only")}, nil
}

// toolNamesFrom reads flag's names: repeated or comma-separated, spaces
// around each trimmed, empty entries and repeats dropped (so that an empty
// variable means the flag is not set).
func toolNamesFrom(cmd *cli.Command, flag string) ([]string, error) {
	var names []string
	for _, entry := range cmd.StringSlice(flag) {
		for _, name := range strings.Split(entry, ",") {
			name = strings.TrimSpace(name)
			switch {
			case name == "":
				continue
			case len(name) > maxToolNameBytes:
				return nil, FlagErrorf(flag, "must name tools, separated by commas; %s is %d bytes, longer than any tool's name", mcptool.QuoteUpTo(name, 40), len(name))
			case !utf8.ValidString(name) || strings.ContainsFunc(name, isControl):
				return nil, FlagErrorf(flag, "must name tools, separated by commas; %s is not a tool's name", mcptool.QuoteUpTo(name, 40))
			}
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	return names, nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// maxNamesShown is how many names a startup error lists: the tools a
// server has, or the unknown names given.
const maxNamesShown = 20

// ToolGroup is a group of tools a server defines, which the filter takes
// by name for all its tools, such as graphqlmcp's "operations".
type ToolGroup struct {
	Name string
	// Fill says how to start the server so that the group has tools, for
	// an error about an empty one: "load saved operations with --operations".
	Fill string
}

// CheckToolFilter checks f, the operator's choice, against offered, every
// tool a server has (listed or not), and the groups it defines (a group
// may be empty). Its errors are FlagErrors: they name the flag and its
// variable, the name at fault, why, and what to do. A server's New returns
// them.
func CheckToolFilter(f mcptool.Filter, offered []mcptool.Offered, defined ...ToolGroup) error {
	var groups []string
	fill := map[string]string{}
	for _, g := range defined {
		groups = append(groups, g.Name)
		fill[g.Name] = g.Fill
	}
	known := make([]string, 0, len(offered)+len(groups))
	for _, o := range offered {
		known = append(known, o.Name)
		for _, g := range o.Groups {
			if !slices.Contains(groups, g) {
				groups = append(groups, g)
			}
		}
	}
	known = append(known, groups...)
	for _, flag := range []struct {
		name  string
		names []string
	}{{"tools", f.Only}, {"exclude-tools", f.Exclude}} {
		if err := checkKnown(flag.name, flag.names, offered, groups, known); err != nil {
			return err
		}
	}
	for _, name := range f.Only {
		if err := checkListed(f, name, offered, groups, fill[name]); err != nil {
			return err
		}
	}
	for _, o := range offered {
		if f.Allows(o.Name, o.Groups, o.ReadOnly) {
			return nil
		}
	}
	if len(f.Exclude) == 0 {
		return FlagErrorf("read-only", "leaves no tool to offer: this server has no tool that only reads; drop --read-only")
	}
	fix := "exclude fewer tools"
	if f.ReadOnly {
		fix += ", or drop --read-only"
	}
	return FlagErrorf("exclude-tools", "leaves no tool to offer, and a server with no tools is of no use to a client: %s", fix)
}

// checkKnown refuses the first names of flag that are neither a tool's
// nor a group's, with the close names and the list of what there is.
func checkKnown(flag string, given []string, offered []mcptool.Offered, groups, known []string) error {
	var unknown []string
	for _, name := range given {
		if !slices.Contains(known, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	var b strings.Builder
	for i, name := range unknown {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more", len(unknown)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(mcptool.QuoteUpTo(name, 40) + " is not one")
		if close := suggest(name, known); len(close) > 0 {
			fmt.Fprintf(&b, " (did you mean %s?)", strings.Join(close, " or "))
		}
	}
	return FlagErrorf(flag, "must name this server's tools or groups: %s. It has %s", b.String(), inventory(offered, groups))
}

// inventory lists a server's tools and groups for an error, at most
// maxNamesShown of them.
func inventory(offered []mcptool.Offered, groups []string) string {
	names := make([]string, 0, len(offered))
	for _, o := range offered {
		names = append(names, o.Name)
	}
	text := strings.Join(names[:min(len(names), maxNamesShown)], ", ")
	if len(names) > maxNamesShown {
		text += fmt.Sprintf(" and %d more", len(names)-maxNamesShown)
	}
	for _, g := range groups {
		text += fmt.Sprintf("; the group %s has %s", g, members(offered, g))
	}
	return text
}

// members describes group g's tools in a few words.
func members(offered []mcptool.Offered, g string) string {
	n := 0
	for _, o := range offered {
		if slices.Contains(o.Groups, g) {
			n++
		}
	}
	switch n {
	case 0:
		return "no tools"
	case 1:
		return "1 tool"
	}
	return fmt.Sprintf("%d tools", n)
}

// checkListed refuses a name of --tools that leaves no tool listed: a tool
// that --read-only or a group in --exclude-tools leaves out, or a group
// whose every tool is left out (or that has none).
func checkListed(f mcptool.Filter, name string, offered []mcptool.Offered, groups []string, fill string) error {
	var covered []mcptool.Offered
	for _, o := range offered {
		if o.Name == name || slices.Contains(o.Groups, name) {
			covered = append(covered, o)
		}
	}
	for _, o := range covered {
		if f.Allows(o.Name, o.Groups, o.ReadOnly) {
			return nil
		}
	}
	isGroup := slices.Contains(groups, name) && !slices.ContainsFunc(offered, func(o mcptool.Offered) bool { return o.Name == name })
	switch {
	case isGroup && len(covered) == 0:
		if fill == "" {
			fill = "start the server with what makes its tools"
		}
		return FlagErrorf("tools", "names the group %s, which has no tools on this server as started: %s, or remove it", mcptool.Quote(name), fill)
	case isGroup && f.ReadOnly && !slices.ContainsFunc(covered, func(o mcptool.Offered) bool { return o.ReadOnly }):
		return FlagErrorf("tools", "names the group %s, whose tools all change data, and --read-only offers only tools that read; remove it from --tools, or drop --read-only", mcptool.Quote(name))
	case isGroup:
		which := "every tool in it"
		if f.ReadOnly {
			which = "every tool in it that --read-only keeps"
		}
		return FlagErrorf("tools", "names the group %s, and --exclude-tools leaves out %s; remove it from --tools, or exclude fewer", mcptool.Quote(name), which)
	case f.ReadOnly && !covered[0].ReadOnly:
		return FlagErrorf("tools", "names %s, which is not read-only (it changes or sends something), and --read-only offers only the tools that read; remove it from --tools, or drop --read-only", mcptool.Quote(name))
	}
	return FlagErrorf("tools", "names %s, and --exclude-tools leaves it out with its group (%s); remove one of the two", mcptool.Quote(name), strings.Join(covered[0].Groups, ", "))
}

// suggest returns the names of known close to name: the one that differs
// only in case, else those a few edits away or that contain name, closest
// first, at most three.
func suggest(name string, known []string) []string {
	type candidate struct {
		name     string
		distance int
	}
	var close []candidate
	lower := strings.ToLower(name)
	for _, k := range known {
		kl := strings.ToLower(k)
		// Typing slips: one in a short name, up to three in a long one.
		limit := min(3, 1+utf8.RuneCountInString(k)/6)
		switch {
		case kl == lower:
			return []string{k}
		case utf8.RuneCountInString(lower) >= 4 && strings.Contains(kl, lower):
			close = append(close, candidate{k, limit})
		default:
			if d := distance(lower, kl, limit); d <= limit {
				close = append(close, candidate{k, d})
			}
		}
	}
	slices.SortStableFunc(close, func(a, b candidate) int { return a.distance - b.distance })
	out := make([]string, 0, 3)
	for _, c := range close[:min(len(close), 3)] {
		out = append(out, c.name)
	}
	return out
}

// distance is the edit distance (insertions, deletions, substitutions and
// swaps of neighbours) between a and b, or limit+1 when it is over limit:
// strings whose lengths differ by more are not compared at all, so that a
// huge name costs nothing.
func distance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra)-len(rb) > limit || len(rb)-len(ra) > limit {
		return limit + 1
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
