// Command demo shows both servers doing their job on this machine, with no
// account and no network: it builds graphqlmcp and hookmcp, starts a sample
// GraphQL API and the capture-API fake on loopback, drives each server over
// stdio with the official Go SDK's MCP client (as an assistant would), and
// prints what every tool answers: graphqlmcp's checks and a saved operation
// served as a tool, hookmcp's whole loop, trigger, wait,
// inspect, check a signature, replay to a local server, answer a waiting
// sender. Run it from a clone:
//
//	go run ./scripts/demo
//
// It exits 1 if any step does not give the answer it should.
package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/scripts/internal/loopback"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	bin, err := os.MkdirTemp("", "mcpforge-demo")
	if err != nil {
		return err
	}
	defer os.RemoveAll(bin)
	fmt.Fprintln(out, "Building graphqlmcp, hookmcp, the sample GraphQL API and the capture-API fake ...")
	if _, err := loopback.Build(ctx, bin, "go run ./scripts/demo"); err != nil {
		return err
	}
	d := &demo{out: out, procs: &loopback.Procs{Bin: bin}}
	defer d.procs.StopAll()
	if err := d.graphql(ctx); err != nil {
		return fmt.Errorf("graphqlmcp: %w", err)
	}
	if err := d.hooks(ctx); err != nil {
		return fmt.Errorf("hookmcp: %w", err)
	}
	fmt.Fprintln(out, "\nBoth servers answered every call. Next: README.md, Install.")
	return nil
}

type demo struct {
	out   io.Writer
	procs *loopback.Procs
}

// start runs one of the loopback stand-ins and returns the URL it logs.
func (d *demo) start(name string, args ...string) (string, error) {
	url, _, err := d.procs.Start(name, args...)
	return url, err
}

// connect starts a server binary over stdio with the given environment and
// returns an MCP client session to it.
func (d *demo) connect(ctx context.Context, name string, env []string, args ...string) (*mcp.ClientSession, error) {
	return d.connectWith(ctx, name, env, nil, args...)
}

// connectWith is connect with the client's options (a progress handler).
func (d *demo) connectWith(ctx context.Context, name string, env []string, opts *mcp.ClientOptions, args ...string) (*mcp.ClientSession, error) {
	cmd := exec.Command(filepath.Join(d.procs.Bin, name), args...)
	cmd.Env = append(os.Environ(), env...)
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpforge-demo", Version: "v1"}, opts)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, err
	}
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	fmt.Fprintf(d.out, "tools/list: %s\n", strings.Join(names, ", "))
	return session, nil
}

// call runs a tool, prints its arguments and answer, and fails unless the
// answer is an error exactly when wantError says so.
func (d *demo) call(ctx context.Context, session *mcp.ClientSession, tool string, args map[string]any, wantError bool) (map[string]any, error) {
	argJSON, _ := json.Marshal(args)
	fmt.Fprintf(d.out, "\n> %s %s\n", tool, argJSON)
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	return d.show(tool, res, wantError)
}

// show prints a call's answer under it.
func (d *demo) show(tool string, res *mcp.CallToolResult, wantError bool) (map[string]any, error) {
	var text []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text = append(text, t.Text)
		}
	}
	label := ""
	if res.IsError {
		label = "(tool error, as expected) "
	}
	fmt.Fprintln(d.out, indent(label+strings.Join(text, "\n")))
	if res.IsError != wantError {
		return nil, fmt.Errorf("%s: isError=%v, want %v", tool, res.IsError, wantError)
	}
	structured, _ := res.StructuredContent.(map[string]any)
	return structured, nil
}

func (d *demo) graphql(ctx context.Context) error {
	api, err := d.start("samplegraphql", "-listen", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "\n== graphqlmcp, against a sample GraphQL API (Star Wars) at %s\n", api)
	// A saved operation the operator reviewed becomes a tool of its own
	// (hero_by_episode), whose arguments are the operation's variables.
	ops := filepath.Join(d.procs.Bin, "operations.graphql")
	saved := "# The hero of an episode, with the episodes it appears in.\nquery HeroByEpisode($episode: Episode) {\n  hero(episode: $episode) { name appearsIn }\n}\n"
	if err := os.WriteFile(ops, []byte(saved), 0o600); err != nil {
		return err
	}
	fmt.Fprintf(d.out, "saved operations (--operations %s):\n%s\n", filepath.Base(ops), indent(saved))
	session, err := d.connect(ctx, "graphqlmcp", nil, "--endpoint", api, "--operations", ops)
	if err != nil {
		return err
	}
	defer session.Close()
	steps := []struct {
		tool      string
		args      map[string]any
		wantError bool
	}{
		{"graphql_introspect", map[string]any{"types": []string{"Character"}}, false},
		{"graphql_query", map[string]any{"query": "query Hero($episode: Episode) { hero(episode: $episode) { nmae appearsIn } }", "variables": map[string]any{"episode": "EMPIRE"}}, true},
		{"graphql_query", map[string]any{"query": "query Hero($episode: Episode) { hero(episode: $episode) { name appearsIn } }", "variables": map[string]any{"episode": "EMPIRE"}}, false},
		{"graphql_query", map[string]any{"query": "{ hero { friends { friends { friends { name } } } } }"}, true},
		{"graphql_query", map[string]any{"query": "mutation { createReview(episode: JEDI, review: {stars: 5, commentary: \"Great\"}) { stars commentary } }"}, true},
		{"graphql_query", map[string]any{"query": "mutation { createReview(episode: JEDI, review: {stars: 5, commentary: \"Great\"}) { stars commentary } }", "allowMutations": true}, false},
		{"hero_by_episode", map[string]any{"episode": "JEDI"}, false},
		{"hero_by_episode", map[string]any{"episode": "JEDY"}, true},
	}
	for _, step := range steps {
		if _, err := d.call(ctx, session, step.tool, step.args, step.wantError); err != nil {
			return err
		}
	}
	return nil
}

func (d *demo) hooks(ctx context.Context) error {
	api, err := d.start("fakehooksvc", "-listen", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "\n== hookmcp, against the capture-API fake at %s\n", api)
	// The wait's first progress notification says it is watching: the
	// demo fires the webhook then, as a person would once the assistant
	// says it is waiting.
	waiting := make(chan struct{}, 1)
	session, err := d.connectWith(ctx, "hookmcp", []string{"HOOKSVC_API_URL=" + api}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case waiting <- struct{}{}:
			default:
			}
		},
	})
	if err != nil {
		return err
	}
	defer session.Close()
	created, err := d.call(ctx, session, "create_token", map[string]any{"default_content": "thanks", "request_limit": 100}, false)
	if err != nil {
		return err
	}
	token, _ := created["token"].(map[string]any)
	id, _ := token["uuid"].(string)

	// The debugging loop: wait for the webhook while it is sent, then
	// inspect what arrived.
	waitArgs := map[string]any{"token_id": id, "timeout_seconds": 30}
	argJSON, _ := json.Marshal(waitArgs)
	fmt.Fprintf(d.out, "\n> wait_for_request %s   (running while the next call fires the webhook)\n", argJSON)
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	waited := make(chan answer, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "wait_for_request", Arguments: waitArgs}
		params.SetProgressToken("demo-wait")
		res, err := session.CallTool(ctx, params)
		waited <- answer{res, err}
	}()
	select {
	case <-waiting:
	case got := <-waited:
		return fmt.Errorf("wait_for_request ended before it started waiting: %v %v", got.err, got.res)
	}
	sent, err := d.call(ctx, session, "send_test_request", map[string]any{
		"token_id": id, "path": "shop/orders", "query": map[string]any{"source": "shop"},
		"headers": map[string]any{"X-Shop-Event": "order.paid"}, "body": `{"event":"order.paid","order":42}`,
	}, false)
	if err != nil {
		return err
	}
	got := <-waited
	if got.err != nil {
		return fmt.Errorf("wait_for_request: %w", got.err)
	}
	fmt.Fprintln(d.out, "\n< wait_for_request answers:")
	arrived, err := d.show("wait_for_request", got.res, false)
	if err != nil {
		return err
	}
	if arrived["request_id"] != sent["request_id"] {
		return fmt.Errorf("wait_for_request returned %v, want the request sent, %v", arrived["request_id"], sent["request_id"])
	}
	// The other order: the sender fires first, the wait comes after and
	// finds the request at once (it starts after the last one shown).
	again, err := d.call(ctx, session, "send_test_request", map[string]any{
		"token_id": id, "path": "shop/refunds", "body": `{"event":"order.refunded","order":42}`,
	}, false)
	if err != nil {
		return err
	}
	found, err := d.call(ctx, session, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 30}, false)
	if err != nil {
		return err
	}
	if found["request_id"] != again["request_id"] || found["waited_seconds"] != nil {
		return fmt.Errorf("wait_for_request after the send returned %v after %v s, want %v at once", found["request_id"], found["waited_seconds"], again["request_id"])
	}

	steps := []struct {
		tool string
		args map[string]any
	}{
		{"get_request", map[string]any{"token_id": id, "request_id": sent["request_id"]}},
		{"get_token", map[string]any{"token_id": id}},
		{"update_token", map[string]any{"token_id": id, "default_status": 201}},
		{"list_requests", map[string]any{"token_id": id}},
		{"get_latest_request", map[string]any{"token_id": id}},
	}
	for _, step := range steps {
		if _, err := d.call(ctx, session, step.tool, step.args, false); err != nil {
			return err
		}
	}
	if err := d.checkReplayAnswer(ctx, session, api, id); err != nil {
		return err
	}
	uri := "hooksvc://token/" + id + "/requests"
	fmt.Fprintf(d.out, "\n> resources/read %s\n", uri)
	read, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return fmt.Errorf("resources/read: %w", err)
	}
	fmt.Fprintln(d.out, indent(read.Contents[0].Text))
	for _, step := range []struct {
		tool string
		args map[string]any
	}{
		{"delete_request", map[string]any{"token_id": id, "request_id": sent["request_id"]}},
		{"delete_requests", map[string]any{"token_id": id, "all": true}},
		{"delete_token", map[string]any{"token_id": id}},
	} {
		if _, err := d.call(ctx, session, step.tool, step.args, false); err != nil {
			return err
		}
	}
	return nil
}

// checkReplayAnswer is the rest of the loop: check a sender's signature,
// replay its request to the developer's own server (one the demo runs on
// loopback), and answer a sender that waits for its response.
func (d *demo) checkReplayAnswer(ctx context.Context, session *mcp.ClientSession, api, id string) error {
	// A GitHub-style webhook signed with a secret the demo makes up.
	const secret = "demo-signing-secret"
	body := `{"action":"opened","number":7}`
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(body))
	signed, err := d.call(ctx, session, "send_test_request", map[string]any{
		"token_id": id, "path": "github", "body": body,
		"headers": map[string]any{"X-GitHub-Event": "pull_request", "X-Hub-Signature-256": "sha256=" + hex.EncodeToString(mac.Sum(nil))},
	}, false)
	if err != nil {
		return err
	}
	verdict, err := d.call(ctx, session, "verify_signature", map[string]any{"token_id": id, "request_id": signed["request_id"], "provider": "github", "secret": secret}, false)
	if err != nil {
		return err
	}
	if verdict["verdict"] != "valid" {
		return fmt.Errorf("verify_signature: verdict %v, want valid", verdict["verdict"])
	}

	// The developer's own server, on loopback, where replays may go.
	received := make(chan string, 1)
	local := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		select {
		case received <- r.Method + " " + r.URL.Path + " " + string(b):
		default:
		}
		io.WriteString(w, "handled by the local server")
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go local.Serve(ln)
	defer local.Close()
	replayed, err := d.call(ctx, session, "replay_request", map[string]any{"token_id": id, "request_id": signed["request_id"], "target": "http://" + ln.Addr().String() + "/webhooks"}, false)
	if err != nil {
		return err
	}
	select {
	case got := <-received:
		if want := "POST /webhooks/github " + body; got != want || replayed["status"] != float64(200) {
			return fmt.Errorf("replay_request: the local server got %q and answered %v, want %q and 200", got, replayed["status"], want)
		}
	default:
		return fmt.Errorf("replay_request: nothing reached the local server (%v)", replayed["message"])
	}

	// A sender that waits for its answer: Slack's url_verification
	// expects its challenge back. The token holds the sender while it
	// listens; the assistant waits for the request and answers it.
	if _, err := d.call(ctx, session, "update_token", map[string]any{"token_id": id, "listen": 10}, false); err != nil {
		return err
	}
	type reply struct {
		status int
		body   string
		err    error
	}
	replied := make(chan reply, 1)
	go func() {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, api+"/"+id+"/slack/events", strings.NewReader(`{"type":"url_verification","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"}`))
		if err != nil {
			replied <- reply{err: err}
			return
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			replied <- reply{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		replied <- reply{resp.StatusCode, string(b), err}
	}()
	waiting, err := d.call(ctx, session, "wait_for_request", map[string]any{"token_id": id, "timeout_seconds": 30}, false)
	if err != nil {
		return err
	}
	if _, err := d.call(ctx, session, "set_response", map[string]any{
		"token_id": id, "request_id": waiting["request_id"], "status": 200,
		"content": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P", "headers": map[string]any{"Content-Type": "text/plain"},
	}, false); err != nil {
		return err
	}
	got := <-replied
	fmt.Fprintf(d.out, "\n< the waiting sender received: HTTP %d %s\n", got.status, got.body)
	if got.err != nil || got.status != 200 || got.body != "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" {
		return fmt.Errorf("set_response: the sender received %d %q (%v), want 200 and its challenge", got.status, got.body, got.err)
	}
	return nil
}

// indent shows an answer under its call, JSON laid out on lines, cut to a
// screenful.
func indent(s string) string {
	const maxLines, maxLine = 16, 200
	var pretty bytes.Buffer
	if json.Indent(&pretty, []byte(s), "", "  ") == nil {
		s = pretty.String()
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	more := len(lines) - maxLines
	if more > 0 {
		lines = lines[:maxLines]
	}
	for i, line := range lines {
		if len(line) > maxLine {
			line = line[:maxLine] + fmt.Sprintf(" … (%d more bytes)", len(line)-maxLine)
		}
		lines[i] = "  " + line
	}
	if more > 0 {
		lines = append(lines, fmt.Sprintf("  … (%d more lines)", more))
	}
	return strings.Join(lines, "\n")
}
