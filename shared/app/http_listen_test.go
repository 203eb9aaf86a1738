package app

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// TestListenFlag: a --listen without its port says the port is missing (not
// "not a loopback address"); --listen alone serves HTTP, and --listen with
// an explicit --transport stdio is refused naming both.
func TestListenFlag(t *testing.T) {
	for _, tt := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--transport", "http", "--listen", "127.0.0.1"}, nil, `testmcp: --listen (TESTMCP_LISTEN) has no port: "127.0.0.1" is a host alone; give host:port. For example --listen 127.0.0.1:8080`},
		{[]string{"--listen", "localhost"}, nil, `has no port: "localhost" is a host alone; give host:port. For example --listen localhost:8080`},
		{[]string{"--listen", "[::1]"}, nil, `For example --listen [::1]:8080`},
		{[]string{"--listen", "127.0.0.1:"}, nil, `has no port: "127.0.0.1:" ends with a colon. For example --listen 127.0.0.1:8080`},
		{[]string{"--listen", "::1:8080"}, nil, `must be host:port with an IPv6 host in brackets; got "::1:8080". For example --listen [::1]:8080`},
		{nil, map[string]string{"TESTMCP_LISTEN": "127.0.0.1", "TESTMCP_TRANSPORT": "http"}, `has no port`},
		{[]string{"--transport", "http"}, map[string]string{"TESTMCP_LISTEN": "127.0.0.1"}, `has no port`},
		{[]string{"--transport", "stdio", "--listen", "127.0.0.1:9000"}, nil, `--listen (TESTMCP_LISTEN) is 127.0.0.1:9000, an address to serve Streamable HTTP on, but --transport is stdio: remove --listen to serve over stdio, or use --transport http`},
		{[]string{"--listen", "127.0.0.1:9000"}, map[string]string{"TESTMCP_TRANSPORT": "stdio"}, `but --transport is stdio`},
		{[]string{"--listen", "0.0.0.0:0"}, nil, "not a loopback address"}, // --listen alone is HTTP, so its rules apply
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			var stderr strings.Builder
			code := Run(context.Background(), testSpec(), append([]string{"testmcp"}, tt.args...), Streams{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &stderr})
			if code != exitUsage || !strings.Contains(stderr.String(), tt.want) || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("%v %v: exit %d, stderr %q; want %d and %q", tt.args, tt.env, code, stderr.String(), exitUsage, tt.want)
			}
		})
	}
}

// TestListenImpliesHTTP: --listen on the command line with no --transport
// serves Streamable HTTP there, even when its variable holds the same
// address; the variable gives the address with --transport http. Each run
// logs its URL and stops on the context's end.
func TestListenImpliesHTTP(t *testing.T) {
	for _, tt := range []struct {
		args []string
		env  map[string]string
	}{
		{[]string{"--listen", "127.0.0.1:0"}, nil},
		{[]string{"--listen", "127.0.0.1:0"}, map[string]string{"TESTMCP_LISTEN": "127.0.0.1:0"}},
		{[]string{"--listen", "127.0.0.1:0"}, map[string]string{"TESTMCP_LISTEN": "127.0.0.1:1"}},
		{[]string{"--transport", "http"}, map[string]string{"TESTMCP_LISTEN": "127.0.0.1:0"}},
		{nil, map[string]string{"TESTMCP_LISTEN": "127.0.0.1:0", "TESTMCP_TRANSPORT": "http"}},
	} {
		t.Run(fmt.Sprint(tt.args, tt.env), func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			log := newSyncLog()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan int, 1)
			go func() {
				done <- Run(ctx, testSpec(), append([]string{"testmcp"}, tt.args...), Streams{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: log})
			}()
			log.await(t, `url=http://127.0.0.1:`)
			cancel()
			if code := <-done; code != exitOK {
				t.Errorf("exit %d", code)
			}
			if strings.Contains(log.String(), "127.0.0.1:1/") {
				t.Errorf("served on the variable's address, not the command line's: %s", log.String())
			}
		})
	}
}

// TestListenVariableAloneIsStdio: the listen variable alone (a stdio
// client that inherits it) leaves the server on stdio, where it answers,
// rather than listening while the client waits for ever.
func TestListenVariableAloneIsStdio(t *testing.T) {
	t.Setenv("TESTMCP_LISTEN", "127.0.0.1:0")
	var stdout, stderr strings.Builder
	in := initialize + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	// A safety net: a server that listens instead ends only with it.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	code := Run(ctx, testSpec(), []string{"testmcp"}, Streams{Stdin: strings.NewReader(in), Stdout: &stdout, Stderr: &stderr})
	if code != exitOK || !strings.Contains(stdout.String(), `"id":1`) || !strings.Contains(stdout.String(), `{"jsonrpc":"2.0","id":2,"result":{}}`) ||
		strings.Contains(stderr.String(), "Streamable HTTP") {
		t.Errorf("exit %d; stdout %q; stderr %q; want both answers over stdio", code, stdout.String(), stderr.String())
	}
}
