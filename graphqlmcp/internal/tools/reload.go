package tools

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/operations"
	"github.com/mcpforge/servers/graphqlmcp/internal/schema"
	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// pollSaved is how often the files a reload reads (--operations,
// --schema) are looked at for a change of name, size or time.
const pollSaved = 2 * time.Second

// reloadKey carries, in the context New is given, a channel that asks for
// a reload in place of SIGHUP: a test inside a synctest bubble, where the
// signal package's goroutine may not touch a channel.
type reloadKey struct{}

// reloadSignal is the channel that asks for a reload: SIGHUP's, registered
// before New returns, so that a SIGHUP from then on reloads instead of
// ending the process; or the context's. It is stopped when ctx ends.
func reloadSignal(ctx context.Context) <-chan struct{} {
	if ch, ok := ctx.Value(reloadKey{}).(chan struct{}); ok {
		return ch
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	asked := make(chan struct{}, 1)
	go func() {
		defer signal.Stop(hup)
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				select {
				case asked <- struct{}{}:
				default: // a reload is asked for already
				}
			}
		}
	}()
	return asked
}

// watching is what the last reload read, which the next is told apart
// from.
type watching struct {
	// operationFiles and schemaFile are the watched files' names, sizes
	// and times, which a poll compares; operations is what the operation
	// files hold.
	operationFiles, schemaFile, operations string
	// schema is the --schema file's schema served now.
	schema *schema.Schema
}

// watchFrom is what the files hold at start, with the schema served.
func (h *handlers) watchFrom(served *schema.Schema) watching {
	return watching{operationFiles: operations.Fingerprint(h.cfg.Operations), schemaFile: h.schemaFileStamp(),
		operations: operations.Contents(h.cfg.Operations), schema: served}
}

// schemaFileStamp is the poll's fingerprint of the --schema file, "" when
// there is none.
func (h *handlers) schemaFileStamp() string {
	if h.cfg.SchemaFile == "" {
		return ""
	}
	return operations.Fingerprint([]string{h.cfg.SchemaFile})
}

// watch reloads the --schema file and the saved operations when asked
// (SIGHUP), and when a poll finds their files changed, until ctx ends. A
// file touched but not changed reloads nothing: the endpoint is asked for
// its schema again only on SIGHUP (the operator may reload because the API
// changed) or for operations that changed, and the schema file, which may
// be big, is parsed again only on SIGHUP or when its own stamp changed.
func (h *handlers) watch(ctx context.Context, server *mcp.Server, listed *savedSet, hup <-chan struct{}, last watching) {
	ticker := time.NewTicker(pollSaved)
	defer ticker.Stop()
	for {
		asked := false
		select {
		case <-ctx.Done():
			return
		case <-hup:
			asked = true
		case <-ticker.C:
		}
		// Taken before reading, so an edit during the reload is seen
		// by the next poll; a bad edit is logged once, not at every
		// poll.
		now := watching{operationFiles: operations.Fingerprint(h.cfg.Operations), schemaFile: h.schemaFileStamp(), schema: last.schema}
		if !asked && now.operationFiles == last.operationFiles && now.schemaFile == last.schemaFile {
			continue
		}
		if asked || now.schemaFile != last.schemaFile {
			now.schema = h.reloadSchema(last.schema)
		}
		now.operations = operations.Contents(h.cfg.Operations)
		schemaChanged := now.schema != last.schema
		operationsChanged := now.operations != last.operations
		if len(h.cfg.Operations) > 0 && (asked || schemaChanged || operationsChanged) {
			h.reloadSaved(ctx, server, listed, asked || operationsChanged)
		}
		last = now
	}
}

// reloadSchema reads the --schema file again and serves its schema when it
// differs from served, and returns the schema served from now on. One that
// does not load, or that the validator cannot take, is logged with why,
// and served stays.
func (h *handlers) reloadSchema(served *schema.Schema) *schema.Schema {
	if h.cfg.SchemaFile == "" {
		return served
	}
	logger := h.logger()
	read, err := schema.Load(h.cfg.SchemaFile, h.now())
	if err == nil {
		_, err = read.Validator()
	}
	if err != nil {
		logger.Warn("--schema not reloaded; the last good schema stays", "file", h.cfg.SchemaFile, "problem", httpx.Snippet([]byte(err.Error()), maxSchemaProblem))
		return served
	}
	sdl := read.View(true).SDL
	if served != nil && sdl == served.View(true).SDL {
		return served
	}
	h.schemas.SetFile(read)
	h.describeSchema(mcptool.FramedLen(schemaFrameLabel, len(sdl)), "from --schema")
	logger.Info("--schema reloaded", "file", h.cfg.SchemaFile, "bytes", len(sdl))
	return read
}

// maxSchemaProblem bounds what a log line quotes of a schema file's
// problem: a parser quotes the file's text, which may be huge.
const maxSchemaProblem = 300
