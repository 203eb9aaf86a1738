package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clientEntry is one server as an assistant's configuration gives it: a
// command to start over stdio, or a URL to reach over HTTP.
type clientEntry struct {
	where   string // where in the document, for messages
	name    string
	command string
	args    []string
	env     map[string]string
	url     string
	headers map[string]string // sent with the url
}

// DocServer is the server whose configurations CheckClientDocs tries.
type DocServer struct {
	Name   string // the command the docs start, e.g. graphqlmcp
	Binary string // the built binary that stands for it
	// EnvPrefix starts the names of the server's own variables (GRAPHQL_):
	// those of the test's environment are not passed on, so that an entry
	// is tried with its own settings alone.
	EnvPrefix string
}

// CheckClientDocs checks the client configurations in the Markdown file at
// path (README.md, a page of docs/): every ```json block of a client's
// configuration must parse, and every entry that starts the server called
// name, in JSON or in a `claude mcp add` line, is started with its arguments
// and environment and must answer tools/list. Lines of ```sh blocks that
// start the server with --transport http are run too (on a free port), and
// every URL must be a loopback /mcp endpoint. It returns how many entries it
// started.
func CheckClientDocs(t *testing.T, path string, server DocServer) int {
	t.Helper()
	name, binary := server.Name, server.Binary
	jsonBlocks, shBlocks := markdownBlocks(t, path)
	var entries []clientEntry
	for i, block := range jsonBlocks {
		// A client's configuration, or a block meant as one that does not
		// parse; other blocks are examples of results.
		if isClientConfig(block) || strings.Contains(block, `"mcpServers"`) || strings.Contains(block, `"servers"`) {
			entries = append(entries, jsonEntries(t, i+1, block)...)
		}
	}
	for _, block := range shBlocks {
		for _, line := range strings.Split(block, "\n") {
			argv := shellWords(t, line)
			switch {
			case len(argv) >= 3 && argv[0] == "claude" && argv[1] == "mcp" && argv[2] == "add":
				entries = append(entries, claudeEntry(t, line, argv[3:]))
			case len(argv) > 0:
				env, args := splitAssignments(argv)
				if len(args) > 0 && args[0] == name && strings.Contains(line, "--transport http") {
					checkHTTPStart(t, line, binary, env, args[1:])
				}
			}
		}
	}
	started := 0
	for _, entry := range entries {
		switch {
		case entry.url != "":
			checkURL(t, entry.where, entry.url, entry.headers)
		case entry.command == "npx": // a bridge such as mcp-remote, given the URL and headers
			checkURL(t, entry.where, bridgeURL(entry.args), bridgeHeaders(entry.args, entry.env))
		case entry.command == name:
			checkStdioEntry(t, entry, server)
			started++
		}
	}
	return started
}

// markdownBlocks returns the contents of the ```json and the ```sh fenced
// blocks of a Markdown file.
func markdownBlocks(t *testing.T, path string) (jsonBlocks, shBlocks []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fence := regexp.MustCompile("(?ms)^[ \t]*```(json|sh)\n(.*?)^[ \t]*```")
	for _, m := range fence.FindAllStringSubmatch(string(data), -1) {
		if m[1] == "json" {
			jsonBlocks = append(jsonBlocks, m[2])
		} else {
			shBlocks = append(shBlocks, m[2])
		}
	}
	return jsonBlocks, shBlocks
}

// jsonEntries parses one JSON block, which must be valid, and returns its
// servers: under "mcpServers" (Claude Desktop, Cursor) or "servers" (VS Code).
func jsonEntries(t reporter, n int, block string) []clientEntry {
	t.Helper()
	type server struct {
		Type    string            `json:"type"`
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	var config struct {
		MCPServers map[string]server `json:"mcpServers"`
		Servers    map[string]server `json:"servers"`
		Inputs     []map[string]any  `json:"inputs"`
	}
	decoder := json.NewDecoder(strings.NewReader(block))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(&config); err != nil {
		t.Errorf("JSON block %d does not parse as a client configuration: %v\n%s", n, err, block)
		return nil
	}
	var entries []clientEntry
	for _, servers := range []map[string]server{config.MCPServers, config.Servers} {
		for name, s := range servers {
			if (s.Command == "") == (s.URL == "") {
				t.Errorf("JSON block %d, server %q: give a command or a url", n, name)
			}
			entries = append(entries, clientEntry{where: fmt.Sprintf("JSON block %d, server %s", n, name),
				name: name, command: s.Command, args: s.Args, env: s.Env, url: s.URL, headers: s.Headers})
		}
	}
	return entries
}

// claudeEntry reads the arguments of `claude mcp add` as Claude Code does
// (parseClaudeAdd): the name, then a URL (--transport http) or the server's
// command line.
func claudeEntry(t *testing.T, line string, argv []string) clientEntry {
	t.Helper()
	entry := clientEntry{where: line, env: map[string]string{}, headers: map[string]string{}}
	add, err := parseClaudeAdd(argv)
	if err != nil {
		t.Errorf("%s: Claude Code would not read this line as meant: %v", line, err)
		return entry
	}
	for _, kv := range add.env {
		k, v, _ := strings.Cut(kv, "=")
		entry.env[k] = v
	}
	for _, h := range add.headers {
		k, v, _ := strings.Cut(h, ":")
		entry.headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	entry.name = add.name
	if add.transport == "stdio" {
		entry.command, entry.args = add.target, add.args
	} else {
		entry.url = add.target
	}
	return entry
}

// checkStdioEntry starts the server as the entry would and lists its tools.
// Its environment is the entry's alone (with VS Code's ${input:...} filled
// in), as the server variables of the test's own environment are dropped.
func checkStdioEntry(t *testing.T, entry clientEntry, server DocServer) {
	t.Helper()
	cmd := exec.Command(server.Binary, entry.args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, server.EnvPrefix) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	input := regexp.MustCompile(`\$\{input:[^}]+\}`)
	for k, v := range entry.env {
		cmd.Env = append(cmd.Env, k+"="+input.ReplaceAllString(v, "input-value-0123456789"))
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "docs-test", Version: "v1"}, nil)
	session, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Errorf("%s: the server did not start: %v\n%s", entry.where, err, stderr.String())
		return
	}
	defer session.Close()
	tools, err := session.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) == 0 {
		t.Errorf("%s: tools/list: %v %+v\n%s", entry.where, err, tools, stderr.String())
	}
}

// checkHTTPStart runs a documented command line that serves over HTTP, on a
// free port instead of the documented one, and waits until it listens.
func checkHTTPStart(t *testing.T, line, binary string, env map[string]string, args []string) {
	t.Helper()
	for i := range args {
		if i > 0 && args[i-1] == "--listen" {
			args[i] = "127.0.0.1:0"
		}
	}
	cmd := exec.Command(binary, args...)
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	endpoint := StartHTTP(t, cmd)
	checkLoopbackURL(t, line, endpoint)
	Stop(t, cmd)
}

// checkURL checks a URL a client is given: a loopback /mcp endpoint, or,
// for a server serving beyond this machine, an https /mcp endpoint reached
// with a bearer token (the servers refuse such a listener without one).
func checkURL(t *testing.T, where, raw string, headers map[string]string) {
	t.Helper()
	u, err := url.Parse(raw)
	if err == nil && u.Scheme == "https" && u.Path == "/mcp" && strings.HasPrefix(headers["Authorization"], "Bearer ") {
		return
	}
	checkLoopbackURL(t, where, raw)
}

// bridgeURL is the URL argument of a bridge such as mcp-remote.
func bridgeURL(args []string) string {
	for _, arg := range args {
		if strings.HasPrefix(arg, "http://") || strings.HasPrefix(arg, "https://") {
			return arg
		}
	}
	return ""
}

// bridgeHeaders are the --header arguments of a bridge, with ${VAR} filled
// from its environment.
func bridgeHeaders(args []string, env map[string]string) map[string]string {
	headers := map[string]string{}
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--header" {
			k, v, _ := strings.Cut(os.Expand(args[i+1], func(name string) string { return env[name] }), ":")
			headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return headers
}

func checkLoopbackURL(t *testing.T, where, raw string) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" || u.Path != "/mcp" {
		t.Errorf("%s: %q is not a loopback MCP endpoint http://127.0.0.1:<port>/mcp", where, raw)
	}
}

// shellWords splits a command line the way bash does, by asking bash.
func shellWords(t reporter, line string) []string {
	t.Helper()
	if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
		return nil
	}
	out, err := exec.Command("bash", "-c", `eval "set -- $1" && printf '%s\0' "$@"`, "bash", line).Output()
	if err != nil {
		t.Errorf("bash cannot split %q: %v", line, err)
		return nil
	}
	words := strings.Split(string(out), "\x00")
	return words[:len(words)-1] // printf ends every word with a NUL
}

// splitAssignments separates leading VAR=value words from a command line.
func splitAssignments(argv []string) (map[string]string, []string) {
	env := map[string]string{}
	variable := regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)
	for len(argv) > 0 {
		k, v, ok := strings.Cut(argv[0], "=")
		if !ok || !variable.MatchString(k) {
			break
		}
		env[k] = v
		argv = argv[1:]
	}
	return env, argv
}

// CheckToolListing checks the line of the Markdown file at path that says
// what server name offers, written
//
//   - `name`: N tools: `a`, `b`, …; …
//
// against want, the tools tools/list gives: the count and the names.
func CheckToolListing(t *testing.T, path, name string, want []string) {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile("(?m)^- `" + regexp.QuoteMeta(name) + "`: (\\d+) tools: ([^;]+);").FindSubmatch(text)
	if line == nil {
		t.Fatalf("%s has no line \"- `%s`: N tools: …;\"", path, name)
	}
	var names []string
	for _, quoted := range strings.Split(string(line[2]), ",") {
		names = append(names, strings.Trim(strings.TrimSpace(quoted), "`"))
	}
	if count := string(line[1]); count != strconv.Itoa(len(want)) {
		t.Errorf("%s says %s has %s tools; tools/list gives %d", path, name, count, len(want))
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("%s lists %s's tools (-tools/list +doc):\n%s", path, name, diff)
	}
}

// DocError is one row of a docs page's error table: the situation, and the
// messages it quotes (each `…` stands for any text).
type DocError struct {
	Cause    string
	Messages []string
}

// DocErrorTable reads the error table under the heading "## Errors" of the
// Markdown file at path: rows of two columns, the situation and the quoted
// message(s) (several in one row are separated by " / " or prose).
func DocErrorTable(t *testing.T, path string) []DocError {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Errors\n")
	if !ok {
		t.Fatalf("%s has no \"## Errors\" section", path)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var rows []DocError
	quoted := regexp.MustCompile("`([^`]+)`")
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(strings.TrimSpace(line), " | ")
		if len(cells) != 2 || !strings.HasPrefix(cells[0], "| ") || !strings.HasSuffix(cells[1], " |") {
			continue
		}
		row := DocError{Cause: strings.TrimPrefix(cells[0], "| ")}
		for _, m := range quoted.FindAllStringSubmatch(cells[1], -1) {
			row.Messages = append(row.Messages, m[1])
		}
		if len(row.Messages) > 0 {
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no error table under \"## Errors\"", path)
	}
	return rows
}

// CheckDocErrors checks every row of the error table of the Markdown file at
// path against what the server sends: scenarios gives, for each situation
// (the row's first cell), the texts the server answered when driven into it.
// With as many texts as the row quotes messages, each text must start with
// its message; with one text, it must start with the first message and hold
// the others. A row no scenario covers, and a scenario for no row, fail.
func CheckDocErrors(t *testing.T, path string, scenarios map[string]func(t *testing.T) []string) {
	t.Helper()
	seen := map[string]bool{}
	for _, row := range DocErrorTable(t, path) {
		seen[row.Cause] = true
		scenario, ok := scenarios[row.Cause]
		if !ok {
			t.Errorf("%s: no test drives the server into %q; add a scenario for it", path, row.Cause)
			continue
		}
		t.Run(row.Cause, func(t *testing.T) {
			texts := scenario(t)
			if len(texts) != len(row.Messages) && len(texts) != 1 {
				t.Fatalf("%s quotes %d messages for %q:\n  %s\nthe server sent %d:\n  %s", path, len(row.Messages), row.Cause,
					strings.Join(row.Messages, "\n  "), len(texts), strings.Join(texts, "\n  "))
			}
			for i, message := range row.Messages {
				text := texts[min(i, len(texts)-1)]
				anchored := len(texts) > 1 || i == 0
				if !docMessagePattern(message, anchored).MatchString(text) {
					t.Errorf("%s quotes, for %q:\n  %s\nthe server sends:\n  %s", path, row.Cause, message, text)
				}
			}
		})
	}
	for cause := range scenarios {
		if !seen[cause] {
			t.Errorf("a scenario for %q, which %s's error table no longer has", cause, path)
		}
	}
}

// docMessagePattern matches a quoted message: literally, except that "…"
// stands for any text; anchored, it must start the text.
func docMessagePattern(message string, anchored bool) *regexp.Regexp {
	parts := strings.Split(message, "…")
	for i, part := range parts {
		// "https://…" stands for any endpoint, the tests' http:// ones too.
		parts[i] = strings.ReplaceAll(regexp.QuoteMeta(part), "https://", "https?://")
	}
	pattern := "(?s)" + strings.Join(parts, ".*?")
	if anchored {
		pattern = "(?s)^" + strings.Join(parts, ".*?")
	}
	return regexp.MustCompile(pattern)
}

// ErrorText returns a scenario step of CheckDocErrors: it calls tool on s,
// which must fail, and gives the text the client sees (a protocol error's
// message when the call is not a tool error at all).
func ErrorText(s *mcp.ClientSession, tool string, args map[string]any) func(*testing.T) string {
	return func(t *testing.T) string {
		res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return "protocol error: " + err.Error()
		}
		if !res.IsError {
			t.Errorf("%s %v: not an error: %s", tool, args, Text(res))
		}
		return Text(res)
	}
}
