package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptest"
)

// TestSchemaFileReloadBinary: the built binary, over stdio, with --schema
// and no saved operations, reads the schema file again on SIGHUP (which
// once ended it) and serves the new schema; a file that does not load
// keeps the last good schema, and stderr says why.
func TestSchemaFileReloadBinary(t *testing.T) {
	file := filepath.Join(t.TempDir(), "schema.graphql")
	write := func(sdl string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(sdl), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("type Query { hello: String }")
	cmd := exec.Command(binary, "-e", "http://127.0.0.1:9/graphql", "--schema", file)
	stderr := &mcptest.SyncBuffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	changed := make(chan struct{}, 10)
	client := mcp.NewClient(&mcp.Implementation{Name: "reload-test", Version: "1"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- struct{}{} },
	})
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	sdl := func() string {
		t.Helper()
		res, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "graphql://schema"})
		if err != nil {
			t.Fatalf("reading graphql://schema: %v; stderr:\n%s", err, stderr.String())
		}
		return res.Contents[0].Text
	}
	if got := sdl(); !strings.Contains(got, "hello: String") {
		t.Fatalf("at start:\n%s", got)
	}

	write("type Query { hello: String goodbye: Int }")
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed: // the resource's size changed
	case <-ctx.Done():
		t.Fatalf("no notifications/resources/list_changed after SIGHUP; stderr:\n%s", stderr.String())
	}
	if got := sdl(); !strings.Contains(got, "goodbye: Int") {
		t.Errorf("after SIGHUP:\n%s", got)
	}

	write("type Query {")
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if err := stderr.Await(ctx, "--schema not reloaded; the last good schema stays"); err != nil {
		t.Fatalf("%v; stderr:\n%s", err, stderr.String())
	}
	if got := sdl(); !strings.Contains(got, "goodbye: Int") {
		t.Errorf("after a file that does not load:\n%s", got)
	}
}
