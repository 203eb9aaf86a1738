package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The clients that run the docs' command lines. scripts/e2e installs them,
// pinned, from scripts/e2e-clients, and sets these variables; without them
// TestDocClients skips, and scripts/e2e fails when a test it runs was
// skipped.
const (
	claudeEnv     = "CLAUDE_CODE"     // @anthropic-ai/claude-code's claude
	npmClientsEnv = "MCP_CLIENTS_DIR" // where `npx -y <package>@<version>` finds the pinned packages
)

// DocLine is one thing the docs tell a user to give a client: a
// `claude mcp add` line or an MCP Inspector CLI line of a ```sh block, or a
// Claude Desktop entry that starts a bridge (mcp-remote) with npx.
type DocLine struct {
	Where  string // file:line
	Client string // "claude", "inspector" or "mcp-remote"
	Server string // the server it registers (graphqlmcp, hookmcp)
	Name   string // the name the client gives it
	Line   string // the shell line as written (claude)
	Argv   []string
	Env    map[string]string // the entry's env (mcp-remote)
}

// DocLines scans the Markdown files for every command line a client runs.
// Every line of a ```sh block must be one it knows: a `claude mcp add`
// line, an MCP Inspector CLI line (npx of the pinned inspector with --cli),
// a server started by hand (one of servers), or go and bash commands (a
// build or the test scripts); anything else fails the test, so that no
// documented line goes untried. Each client line is tied to the server it
// registers: by the command it starts, by the docs' line that serves its
// URL, or else by its name, which the docs use for one server throughout.
func DocLines(t *testing.T, servers []string, files ...string) []DocLine {
	t.Helper()
	return docLines(t, servers, files...)
}

// reporter is the part of testing.T the docs' scanners report problems
// with, so that a test can collect what they find in a page made wrong on
// purpose.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
}

func docLines(t reporter, servers []string, files ...string) []DocLine {
	t.Helper()
	var lines []DocLine
	nameServer := map[string]string{}
	tie := func(where, name, server string) {
		if prev, ok := nameServer[name]; ok && prev != server {
			t.Errorf("%s: the name %s stands for %s here and for %s elsewhere; give each server its own names", where, name, server, prev)
		}
		nameServer[name] = server
	}
	isServer := func(word string) bool { return contains(servers, word) }
	served := map[string]string{} // a URL the docs serve a server at → the server
	for _, file := range files {
		shLines, _ := fencedLines(t, file)
		for _, sh := range shLines {
			_, words := splitAssignments(shellWords(t, sh.text))
			for i := 1; len(words) > 0 && isServer(words[0]) && i < len(words); i++ {
				if words[i-1] == "--listen" {
					served["http://"+words[i]+"/mcp"] = words[0]
				}
			}
		}
	}
	for _, file := range files {
		shLines, jsonBlocks := fencedLines(t, file)
		for _, sh := range shLines {
			argv := shellWords(t, sh.text)
			_, words := splitAssignments(argv)
			if len(words) == 0 {
				continue
			}
			switch {
			case len(words) >= 3 && words[0] == "claude" && words[1] == "mcp" && words[2] == "add":
				add, err := parseClaudeAdd(words[3:])
				if err != nil {
					t.Errorf("%s: %s\nClaude Code would not read this line as meant: %v", sh.where, sh.text, err)
					continue
				}
				line := DocLine{Where: sh.where, Client: "claude", Name: add.name, Line: sh.text}
				if add.transport == "stdio" {
					if !isServer(add.target) {
						t.Errorf("%s: %s\nstarts %s, which is not one of %v", sh.where, sh.text, add.target, servers)
					}
					line.Server = add.target
					tie(sh.where, add.name, add.target)
				}
				lines = append(lines, line)
			case words[0] == "npx" && contains(words, "@modelcontextprotocol/inspector@"+inspectorVersion) && contains(words, "--cli"):
				line := DocLine{Where: sh.where, Client: "inspector", Line: sh.text}
				for i, word := range words {
					switch {
					case word == "--" && i+1 < len(words):
						line.Server = words[i+1]
					case word == "--server-url" && i+1 < len(words):
						line.Server = served[words[i+1]]
					}
				}
				if !isServer(line.Server) {
					t.Errorf("%s: %s\nno server of %v is started by it (after --) or served at its --server-url by a line of the docs", sh.where, sh.text, servers)
				}
				lines = append(lines, line)
			case isServer(words[0]), words[0] == "go", words[0] == "bash":
				// A server started by hand (CheckClientDocs runs the HTTP
				// ones, and StartDocServer serves the docs' URLs with
				// them), or a build or test command: no client runs these.
			default:
				t.Errorf("%s: %s\nno test knows how to run this line: teach mcptest.DocLines to run it, or take it out of the ```sh block", sh.where, sh.text)
			}
		}
		for _, block := range jsonBlocks {
			if !isClientConfig(block.text) {
				continue // an example of a result, not a client's configuration
			}
			for _, entry := range jsonEntries(t, 0, block.text) {
				switch {
				case isServer(entry.command):
					tie(block.where, entry.name, entry.command)
				case entry.command == "npx":
					if !contains(entry.args, "mcp-remote@"+mcpRemoteVersion) {
						t.Errorf("%s, server %s: npx %q: the tests run mcp-remote@%s only; pin that version", block.where, entry.name, entry.args, mcpRemoteVersion)
						continue
					}
					lines = append(lines, DocLine{Where: block.where + " " + entry.name, Client: "mcp-remote",
						Name: entry.name, Argv: append([]string{entry.command}, entry.args...), Env: entry.env})
				case entry.command != "":
					t.Errorf("%s, server %s: no test knows how to run %s", block.where, entry.name, entry.command)
				}
			}
		}
	}
	for i, line := range lines {
		if line.Server == "" && line.Name != "" { // an Inspector line without a server was reported above
			if lines[i].Server = nameServer[line.Name]; lines[i].Server == "" {
				t.Errorf("%s: no stdio entry in the docs names %s, so no test knows which server it is", line.Where, line.Name)
			}
		}
	}
	return lines
}

// isClientConfig says whether a JSON block is an assistant's configuration:
// servers under "mcpServers" (Claude Desktop, Cursor) or "servers" (VS Code).
func isClientConfig(block string) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal([]byte(block), &top) != nil {
		return false
	}
	_, desktop := top["mcpServers"]
	_, vscode := top["servers"]
	return desktop || vscode
}

// The versions the docs give, which scripts/e2e-clients pins.
const (
	mcpRemoteVersion = "0.15.1"
	inspectorVersion = "2.12.0"
)

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// fencedText is a line of a ```sh block, or a whole ```json block, and
// where it is.
type fencedText struct{ where, text string }

// fencedLines returns the lines of the ```sh blocks of a Markdown file and
// its ```json blocks, each with its place (file:line).
func fencedLines(t reporter, path string) (shLines, jsonBlocks []fencedText) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%v", err)
		return nil, nil
	}
	name := filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
	if filepath.Base(filepath.Dir(path)) == ".." {
		name = filepath.Base(path)
	}
	var lang string
	var block fencedText
	for i, text := range strings.Split(string(data), "\n") {
		where := fmt.Sprintf("%s:%d", name, i+1)
		trimmed := strings.TrimSpace(text)
		switch {
		case strings.HasPrefix(trimmed, "```") && lang == "":
			lang = strings.TrimPrefix(trimmed, "```")
			if lang == "" {
				lang = "text"
			}
			block = fencedText{where: where}
		case strings.HasPrefix(trimmed, "```"):
			if lang == "json" {
				jsonBlocks = append(jsonBlocks, block)
			}
			lang = ""
		case lang == "sh":
			if trimmed != "" && !strings.HasPrefix(trimmed, "#") {
				shLines = append(shLines, fencedText{where: where, text: trimmed})
			}
		case lang == "json":
			block.text += text + "\n"
		}
	}
	return shLines, jsonBlocks
}

// DocClients runs the docs' client lines in the real clients.
type DocClients struct {
	claude string
	npmDir string
}

// NewDocClients finds the clients scripts/e2e installed, or skips the test.
func NewDocClients(t *testing.T) *DocClients {
	t.Helper()
	clients := &DocClients{claude: os.Getenv(claudeEnv), npmDir: os.Getenv(npmClientsEnv)}
	if clients.claude == "" || clients.npmDir == "" {
		t.Skipf("%s and %s are not set; scripts/e2e installs Claude Code and mcp-remote and runs this test", claudeEnv, npmClientsEnv)
	}
	return clients
}

// Stand says how the docs' lines run on this machine: the built binaries
// stand for the installed ones, and local stand-ins for the documented URLs.
type Stand struct {
	Bin  string            // the directory of the built binaries, first on PATH
	URLs map[string]string // a documented URL → the stand-in's
	Env  []string          // more KEY=value for every process (such as the API URL a server defaults to)
}

// substitute replaces every URL of text with its stand-in's. A URL with no
// stand-in fails the test: the line would reach beyond this machine.
func (s Stand) substitute(t *testing.T, where, text string) string {
	t.Helper()
	return regexp.MustCompile(`https?://[^\s"'\\]+`).ReplaceAllStringFunc(text, func(u string) string {
		local, ok := s.URLs[u]
		if !ok {
			t.Errorf("%s: no stand-in for %s: give the test one", where, u)
		}
		return local
	})
}

// env is the environment the clients and servers run in: HOME is a scratch
// directory (Claude Code keeps its configuration there, mcp-remote its
// tokens), the built binaries come first on PATH, nothing of this machine's
// Claude Code or servers' settings leaks in, and Claude Code neither
// updates itself nor reports anything, so it runs offline and logged out.
func (s Stand) env(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == "HOME", strings.HasPrefix(k, "CLAUDE"), strings.HasPrefix(k, "ANTHROPIC_"),
			strings.HasPrefix(k, "GRAPHQL_"), strings.HasPrefix(k, "HOOKSVC_"):
		case k == "PATH":
			env = append(env, "PATH="+s.Bin+string(os.PathListSeparator)+v)
		default:
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+home, "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "npm_config_offline=true", "npm_config_update_notifier=false")
	return append(env, s.Env...)
}

// Run runs one docs line in its client and checks the server answers there:
// a `claude mcp add` line through bash, then `claude mcp list` must show the
// server connected; an Inspector line through bash, which must print tools
// named want (tools/list) or a result that is not an error (tools/call); a
// bridge entry is started as Claude Desktop would and must list want, the
// server's tools, and pass exercise (when not nil).
func (c *DocClients) Run(t *testing.T, line DocLine, stand Stand, want []string, exercise func(*testing.T, *mcp.ClientSession)) {
	t.Helper()
	home := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a safety net; each step takes about a second
	defer cancel()
	switch line.Client {
	case "claude":
		c.runClaude(ctx, t, line, stand, home)
	case "mcp-remote":
		c.runBridge(ctx, t, line, stand, home, want, exercise)
	case "inspector":
		c.runInspector(ctx, t, line, stand, home, want)
	default:
		t.Fatalf("%s: no client %q", line.Where, line.Client)
	}
}

func (c *DocClients) runClaude(ctx context.Context, t *testing.T, line DocLine, stand Stand, home string) {
	t.Helper()
	shell := stand.substitute(t, line.Where, line.Line)
	// The docs call Claude Code "claude"; it is the pinned one, first on PATH.
	bin := filepath.Join(home, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(c.claude, filepath.Join(bin, "claude")); err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(home, "project") // the default scope is the directory claude runs in
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	env := stand.env(home)
	for i, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			env[i] = "PATH=" + bin + string(os.PathListSeparator) + v
		}
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.Dir, cmd.Env = project, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s\n%s: %v\n%s", line.Where, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("bash", "-c", shell)
	list := run(filepath.Join(bin, "claude"), "mcp", "list")
	connected := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(line.Name) + `: .* - ✔ Connected\s*$`)
	if !connected.MatchString(list) {
		t.Errorf("%s: after\n  %s\n`claude mcp list` does not show %s connected:\n%s", line.Where, shell, line.Name, list)
	}
}

func (c *DocClients) runInspector(ctx context.Context, t *testing.T, line DocLine, stand Stand, home string, want []string) {
	t.Helper()
	shell := stand.substitute(t, line.Where, line.Line)
	cmd := exec.CommandContext(ctx, "bash", "-c", shell)
	// npx finds the pinned Inspector installed here, with no registry.
	cmd.Dir, cmd.Env = c.npmDir, stand.env(home)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s\n%s: %v\n%s%s", line.Where, shell, err, out, stderr.String())
	}
	var result struct {
		Tools   []*mcp.Tool `json:"tools"`
		Content []any       `json:"content"`
		IsError bool        `json:"isError"`
	}
	if err := json.Unmarshal(out, &result); err != nil {
		t.Fatalf("%s: the Inspector printed no JSON result: %v\n%s", line.Where, err, out)
	}
	switch {
	case result.Tools != nil:
		checkNames(t, result.Tools, want)
	case result.Content != nil && result.IsError:
		t.Errorf("%s: the tool answered an error:\n%s", line.Where, out)
	case result.Content == nil:
		t.Errorf("%s: the Inspector printed neither tools nor a tool result:\n%s", line.Where, out)
	}
}

func (c *DocClients) runBridge(ctx context.Context, t *testing.T, line DocLine, stand Stand, home string, want []string, exercise func(*testing.T, *mcp.ClientSession)) {
	t.Helper()
	argv := make([]string, len(line.Argv))
	for i, arg := range line.Argv {
		argv[i] = stand.substitute(t, line.Where, arg)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	// npx finds the pinned package installed here, with no registry.
	cmd.Dir, cmd.Env = c.npmDir, stand.env(home)
	for k, v := range line.Env { // as the client passes the entry's env
		cmd.Env = append(cmd.Env, k+"="+stand.substitute(t, line.Where, v))
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "docs-bridge-test", Version: "v1"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("%s: %q did not connect: %v\n%s", line.Where, argv, err, stderr.String())
	}
	defer session.Close()
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("%s: tools/list through %q: %v\n%s", line.Where, argv, err, stderr.String())
	}
	checkNames(t, tools.Tools, want)
	if exercise != nil {
		exercise(t, session)
	}
}

// StartDocServer runs the docs' line that starts server over HTTP with
// `--listen <listen>`, through bash as written, but listening on a free
// loopback port and with stand's URLs, and returns its endpoint. It is
// stopped when the test ends.
func StartDocServer(t *testing.T, server, listen string, stand Stand, files ...string) string {
	t.Helper()
	for _, file := range files {
		shLines, _ := fencedLines(t, file)
		for _, sh := range shLines {
			_, words := splitAssignments(shellWords(t, sh.text))
			if len(words) == 0 || words[0] != server || !strings.Contains(sh.text, "--listen "+listen) {
				continue
			}
			shell := stand.substitute(t, sh.where, strings.Replace(sh.text, "--listen "+listen, "--listen 127.0.0.1:0", 1))
			// bash runs a lone command in its own process (no fork), so
			// stopping bash stops the server.
			cmd := exec.Command("bash", "-c", shell)
			cmd.Env = stand.env(t.TempDir())
			return StartHTTP(t, cmd)
		}
	}
	t.Fatalf("no line of %v starts %s with --listen %s", files, server, listen)
	return ""
}

// DocFiles are README.md and every page of docs/, from a server's
// directory.
func DocFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("../docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in ../docs: %v", err)
	}
	return append([]string{"../README.md"}, pages...)
}
