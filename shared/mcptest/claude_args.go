package mcptest

import (
	"fmt"
	"strings"
)

// claudeAdd is a `claude mcp add` command line as Claude Code reads it.
type claudeAdd struct {
	name      string
	transport string // stdio unless --transport says otherwise
	target    string // the command (stdio) or the URL
	args      []string
	env       []string // KEY=value
	headers   []string // Name: value
}

// claudeAddOptions are the options of `claude mcp add` (2.1.330) and how
// many values each takes: -1 for any number, up to the next word that starts
// with "-" (commander's variadic options, which is how `--env K=v name`
// loses its name).
var claudeAddOptions = map[string]struct {
	long   string
	values int
}{
	"-e": {"--env", -1}, "--env": {"--env", -1},
	"-H": {"--header", -1}, "--header": {"--header", -1},
	"-s": {"--scope", 1}, "--scope": {"--scope", 1},
	"-t": {"--transport", 1}, "--transport": {"--transport", 1},
	"--client-id":     {"--client-id", 1},
	"--callback-port": {"--callback-port", 1},
	"--client-secret": {"--client-secret", 0},
}

// parseClaudeAdd reads the words after `claude mcp add` the way Claude
// Code's parser (commander) does: options anywhere before "--", variadic
// options taking every word up to the next option, then the positional
// <name> <commandOrUrl> [args...]. The errors say what a user must change.
func parseClaudeAdd(argv []string) (claudeAdd, error) {
	add := claudeAdd{transport: "stdio"}
	var positional []string
	for i := 0; i < len(argv); i++ {
		word := argv[i]
		if word == "--" {
			positional = append(positional, argv[i+1:]...)
			break
		}
		if !strings.HasPrefix(word, "-") || word == "-" {
			positional = append(positional, word)
			continue
		}
		flag, inline, hasInline := strings.Cut(word, "=")
		option, ok := claudeAddOptions[flag]
		if !ok {
			return add, fmt.Errorf("unknown option %s (claude mcp add takes %s)", flag, "--transport, --scope, --env, --header, --client-id, --client-secret, --callback-port")
		}
		var values []string
		switch {
		case hasInline:
			values = []string{inline}
		case option.values == 1:
			if i+1 >= len(argv) {
				return add, fmt.Errorf("option %s has no value", flag)
			}
			i++
			values = []string{argv[i]}
		case option.values < 0:
			for i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
				i++
				values = append(values, argv[i])
			}
			if len(values) == 0 {
				return add, fmt.Errorf("option %s has no value", flag)
			}
		}
		switch option.long {
		case "--env":
			for _, v := range values {
				if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
					return add, fmt.Errorf("--env takes %q as a variable: it is not KEY=value; %s", v, nameFirst)
				}
			}
			add.env = append(add.env, values...)
		case "--header":
			for _, v := range values {
				if k, _, ok := strings.Cut(v, ":"); !ok || strings.TrimSpace(k) == "" || strings.Contains(k, " ") {
					return add, fmt.Errorf("--header takes %q as a header: it is not \"Name: value\"; %s", v, nameFirst)
				}
			}
			add.headers = append(add.headers, values...)
		case "--transport":
			add.transport = values[0]
		}
	}
	switch {
	case len(positional) < 2:
		return add, fmt.Errorf("want <name> and a command or URL, got %q; %s", positional, nameFirst)
	case add.transport != "stdio" && len(positional) != 2:
		return add, fmt.Errorf("--transport %s takes <name> <url>, got %q", add.transport, positional)
	}
	add.name, add.target, add.args = positional[0], positional[1], positional[2:]
	return add, nil
}

const nameFirst = "write the name right after `claude mcp add`, and --header after the URL, as --env and --header take every word up to the next option"
