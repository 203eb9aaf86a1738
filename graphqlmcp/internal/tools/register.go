package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/mcpforge/servers/graphqlmcp/internal/config"
	"github.com/mcpforge/servers/graphqlmcp/internal/operation"
	"github.com/mcpforge/servers/shared/app"
	"github.com/mcpforge/servers/shared/mcptool"
)

// registerTools adds the tools the operator's filter lets through: the two
// built-in tools and the saved operations. It refuses a filter that names a
// tool or group graphqlmcp does not have, or that leaves no tool
// (app.CheckToolFilter); a call to a tool left out is answered with why
// (Filter.Withheld). It returns what starts the reloads of the files
// (watch), which the caller calls once everything a reload changes is
// listed: a reload asked for at start would be listed, then overwritten.
func (h *handlers) registerTools(ctx context.Context, server *mcp.Server) (startWatch func(), err error) {
	query := h.queryTool()
	if h.tools.ReadOnly {
		query = readOnlyQuery(query)
	}
	builtIn := slices.Clip(h.tools.Register(server, query, h.introspectTool()))
	// Before the operations are read, so that an edit while they load is
	// seen by the first poll.
	watched := h.watchFrom(h.cfg.Schema)
	saved, err := h.addOperationTools(ctx, server)
	if err != nil {
		return nil, err
	}
	offered := append(builtIn, saved.offered()...)
	if err := app.CheckToolFilter(h.tools, offered, app.ToolGroup{Name: savedGroup, Fill: "load saved operations with --operations"}); err != nil {
		return nil, err
	}
	// A reload changes the saved operations: a call is judged against
	// those there are at the time.
	server.AddReceivingMiddleware(h.tools.WithheldFrom(func() []mcptool.Offered {
		return append(builtIn, saved.offered()...)
	}))
	if len(h.cfg.Operations) == 0 && h.cfg.SchemaFile == "" {
		return func() {}, nil
	}
	// Registered now: a SIGHUP from here on reloads, not ends the process.
	hup := reloadSignal(ctx)
	return func() { go h.watch(ctx, server, saved, hup, watched) }, nil
}

// readOnlyQueryText replaces, under --read-only, what graphql_query's
// description says of mutations: the operator's reason, not --mutations.
const readOnlyQueryText = "This server is read-only (--read-only): it refuses every mutation; subscriptions are not supported either."

// readOnlyQuery is graphql_query under --read-only, where every mutation
// is refused whatever --mutations says: it only reads, and says so in its
// description, its allowMutations argument, its annotations (which
// --read-only lists it by) and its refusal of a mutation, which names
// --read-only rather than --mutations.
func readOnlyQuery(t mcptool.Tool[QueryArgs, mcptool.Document[QueryResult]]) mcptool.Tool[QueryArgs, mcptool.Document[QueryResult]] {
	t.Description = strings.Replace(t.Description, mutationText(config.MutationsNever).tool, readOnlyQueryText, 1)
	t.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(true)}
	adjust := t.AdjustInput
	t.AdjustInput = func(s *jsonschema.Schema) {
		if adjust != nil {
			adjust(s)
		}
		if arg := s.Properties["allowMutations"]; arg != nil {
			arg.Description = "has no effect: this server refuses every mutation (--read-only)"
		}
	}
	handle := t.Handle
	t.Handle = func(ctx context.Context, req *mcp.CallToolRequest, args QueryArgs) (*mcp.CallToolResult, mcptool.Document[QueryResult], error) {
		// An operation that does not parse is left to graphql_query,
		// which says why.
		if chosen, err := operation.Choose(args.Query, args.OperationName); err == nil && chosen.Op.Operation == ast.Mutation {
			return nil, nil, fmt.Errorf("operation %s is a mutation, and this server is read-only (--read-only): it refuses all mutations, and only its operator can change that", chosen.Name())
		}
		return handle(ctx, req, args)
	}
	return t
}
