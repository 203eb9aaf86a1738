package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/mcpforge/servers/graphqlmcp/internal/coerce"
	"github.com/mcpforge/servers/graphqlmcp/internal/complexity"
	"github.com/mcpforge/servers/graphqlmcp/internal/config"
	"github.com/mcpforge/servers/graphqlmcp/internal/operations"
	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// savedGroup is the name the tool filter gives all saved operations
// (--tools operations); register.go checks the operator's names with it.
const savedGroup = "operations"

// allowMutationsArgument is the one argument of a saved mutation's tool
// that is not a variable, under --mutations per-call.
const allowMutationsArgument = "allowMutations"

// savedTool is one saved operation, checked against the schema it is
// called with.
type savedTool struct {
	op      *operations.Operation
	checker *ast.Schema
	def     *mcp.Tool
	// output is def's output schema, resolved: an answer that does not
	// match it is given as text only (see shapeOf).
	output *jsonschema.Resolved
	// perCall is set for a mutation that runs only when the call passes
	// allowMutations: true.
	perCall bool
}

// addOperationTools registers a tool for each saved operation (--operations)
// that the tool filter allows, and returns the set of all of them, listed
// or not and kept current by reloads (watch), so that the filter's names can be
// checked against them and a call to one it leaves out answered with why. Every operation is
// checked against the default endpoint's schema and priced first: any
// problem refuses the start, with one line per problem.
func (h *handlers) addOperationTools(ctx context.Context, server *mcp.Server) (*savedSet, error) {
	listed := &savedSet{}
	if len(h.cfg.Operations) == 0 {
		return listed, nil
	}
	saved, err := h.loadSaved(ctx, false)
	if err != nil {
		return nil, err
	}
	h.swapSaved(server, listed, saved)
	return listed, nil
}

// savedSet is the names of the saved operations' tools listed now, and
// every saved operation as the tool filter judges it, listed or not.
type savedSet struct {
	mu    sync.Mutex
	names []string
	all   []mcptool.Offered
}

// offered is every saved operation now, listed or not.
func (s *savedSet) offered() []mcptool.Offered {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.all
}

// reloadSaved reads the operations again and swaps them in, or keeps the
// last good set and logs why. refresh asks the endpoint for its schema
// again.
func (h *handlers) reloadSaved(ctx context.Context, server *mcp.Server, listed *savedSet, refresh bool) {
	logger := h.logger()
	saved, err := h.loadSaved(ctx, refresh)
	if err != nil {
		logger.Warn("saved operations not reloaded; the last good set stays", "problems", err.Error())
		return
	}
	before := listed.offered()
	h.swapSaved(server, listed, saved)
	logger.Info("saved operations reloaded", "tools", len(saved))
	// The operator named it to be offered, and it no longer is: say so
	// rather than let it vanish from the list in silence.
	now := listed.offered()
	for _, name := range h.tools.Only {
		named := func(o mcptool.Offered) bool { return o.Name == name }
		if slices.ContainsFunc(before, named) && !slices.ContainsFunc(now, named) {
			logger.Warn("a saved operation --tools names is gone after the reload: its file no longer defines it, so it is not offered", "tool", name)
		}
	}
}

// swapSaved lists saved in place of the tools listed before: one that
// stays is replaced in place, so no tools/list between finds it missing,
// and the server tells clients the list changed.
func (h *handlers) swapSaved(server *mcp.Server, listed *savedSet, saved []*savedTool) {
	listed.mu.Lock()
	defer listed.mu.Unlock()
	var now []string
	all := make([]mcptool.Offered, 0, len(saved))
	for _, t := range saved {
		all = append(all, mcptool.Offered{Name: t.def.Name, Groups: []string{savedGroup}, ReadOnly: t.def.Annotations.ReadOnlyHint})
		if !h.tools.Allows(t.def.Name, []string{savedGroup}, t.def.Annotations.ReadOnlyHint) {
			continue
		}
		server.AddTool(t.def, h.savedHandler(t))
		now = append(now, t.def.Name)
	}
	var gone []string
	for _, name := range listed.names {
		if !slices.Contains(now, name) {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		server.RemoveTools(gone...)
	}
	listed.names, listed.all = now, all
}

func (h *handlers) logger() *slog.Logger {
	if h.client != nil && h.client.Caller != nil && h.client.Caller.Logger != nil {
		return h.client.Caller.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// loadSaved reads, checks and prices every saved operation, and returns
// them all, or every problem as one error with one line each. refresh
// skips the schema cache.
func (h *handlers) loadSaved(ctx context.Context, refresh bool) ([]*savedTool, error) {
	ops, err := operations.Load(h.cfg.Operations)
	var loadProblems operations.Problems
	if errors.As(err, &loadProblems) {
		return nil, savedProblems{loadProblems}
	}
	if err != nil {
		return nil, err
	}
	req, err := h.target("", nil, h.cfg.Timeout)
	if err != nil {
		return nil, err
	}
	got, err := h.schemaOf(ctx, req, refresh)
	if err != nil {
		return nil, fmt.Errorf("--operations: the saved operations are checked against the schema of %s, which could not be read: %v; give the schema with --schema, or make the endpoint answer introspection",
			httpx.DisplayURL(req.Target.URL), err)
	}
	checker, err := got.Schema.Validator()
	if err != nil {
		return nil, fmt.Errorf("--operations: the schema of %s does not load in the validator, so saved operations cannot be checked: %v", httpx.DisplayURL(req.Target.URL), err)
	}
	var problems operations.Problems
	var saved []*savedTool
	for _, op := range ops {
		t, opProblems := h.checkSaved(ctx, op, checker)
		problems = append(problems, opProblems...)
		if t != nil {
			saved = append(saved, t)
		}
	}
	if len(problems) > 0 {
		return nil, savedProblems{problems}
	}
	return saved, nil
}

// savedProblems refuses the saved operations: what it stops, then one
// problem a line, file:line:col: message, which the process prints one a
// line (Lines) and a reload logs.
type savedProblems struct{ problems operations.Problems }

func (e savedProblems) Error() string {
	return "--operations: the saved operations cannot be served:\n" + e.problems.Error()
}

// Lines are the refusal's lines, for the process to print each on its own.
func (e savedProblems) Lines() []string { return strings.Split(e.Error(), "\n") }

func (e savedProblems) Unwrap() error { return e.problems }

// checkSaved checks one operation as graphql_query checks a query, and
// builds its tool.
func (h *handlers) checkSaved(ctx context.Context, op *operations.Operation, checker *ast.Schema) (*savedTool, operations.Problems) {
	var problems operations.Problems
	at := func(line, column int, format string, args ...any) {
		problems = append(problems, op.Problem(line, column, fmt.Sprintf(format, args...)))
	}
	switch op.Tool {
	case "graphql_query", "graphql_introspect":
		at(0, 0, "operation %s makes the tool name %s, which is graphqlmcp's own: rename the operation", op.Name, op.Tool)
	case savedGroup:
		// The filter could not tell the tool from the group.
		at(0, 0, "operation %s makes the tool name %s, the name --tools and --exclude-tools give all saved operations: rename the operation", op.Name, op.Tool)
	}
	switch {
	case op.Type == ast.Subscription:
		at(0, 0, "operation %s is a subscription, which one HTTP request cannot carry: save a query or a mutation", op.Name)
	case op.Type == ast.Mutation && h.cfg.Mutations == config.MutationsNever && !h.tools.ReadOnly:
		// Under --read-only the filter leaves saved mutations out; a
		// mutation saved beside --mutations never is the operator's
		// contradiction.
		at(0, 0, "operation %s is a mutation, and this server refuses all mutations (--mutations never): remove it, or change --mutations", op.Name)
	}
	errs, total, err := h.rulesCheck(ctx, h.cfg.Timeout, checker, op.Chosen.Sent)
	if err != nil {
		at(0, 0, "%v", err)
		return nil, problems
	}
	for _, e := range errs {
		line, column := 0, 0
		if len(e.Locations) > 0 {
			line, column = e.Locations[0].Line, e.Locations[0].Column
		}
		at(line, column, "%s", httpx.Snippet([]byte(e.Message), maxMessageBytes))
	}
	if total > len(errs) {
		at(0, 0, "and %d more problems with operation %s", total-len(errs), op.Name)
	}
	if len(errs) > 0 {
		return nil, problems
	}
	score, err := complexity.Score(op.Chosen.Doc, op.Chosen.Op, nil, checker)
	switch {
	case err != nil:
		at(0, 0, "operation %s cannot be priced: %v", op.Name, err)
	case score.Score > h.cfg.MaxComplexity:
		at(0, 0, "operation %s: %s", op.Name, strings.ReplaceAll(strings.Replace(overCeiling(score, h.cfg.MaxComplexity).Error(), "so it was not sent", "so it cannot be served", 1), "\n", " "))
	}
	perCall := op.Type == ast.Mutation && h.cfg.Mutations == config.MutationsPerCall
	input := operations.InputSchema(checker, op.Chosen.Sent, op.Chosen.Op)
	if perCall {
		if _, clash := input.Properties[allowMutationsArgument]; clash {
			at(0, 0, "operation %s has a variable $%s, the name of the argument that lets a mutation run (--mutations per-call): rename the variable", op.Name, allowMutationsArgument)
		}
		input.Properties[allowMutationsArgument] = &jsonschema.Schema{Type: "boolean", Description: "set true to let this mutation run; it is refused otherwise"}
		input.PropertyOrder = append(input.PropertyOrder, allowMutationsArgument)
	}
	if len(problems) > 0 {
		return nil, problems
	}
	readOnly := op.Type == ast.Query
	description := op.Description()
	if perCall {
		description += " It changes data: pass allowMutations: true to run it (confirm with the user first)."
	}
	output := operations.OutputSchema(checker, op.Chosen.Sent, op.Chosen.Op)
	resolvedOutput, err := output.Resolve(nil)
	if err != nil {
		at(0, 0, "operation %s: its result's JSON Schema does not resolve: %v", op.Name, err)
		return nil, problems
	}
	return &savedTool{op: op, checker: checker, perCall: perCall, output: resolvedOutput, def: &mcp.Tool{
		Name:         op.Tool,
		Title:        op.Name,
		Description:  description,
		InputSchema:  input,
		OutputSchema: output,
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:    readOnly,
			DestructiveHint: ptr(!readOnly),
			IdempotentHint:  readOnly,
			OpenWorldHint:   ptr(true),
		},
	}}, nil
}

func (h *handlers) savedHandler(t *savedTool) mcp.ToolHandler {
	return func(ctx context.Context, call *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		result, err := h.runSaved(ctx, call, t)
		if asked, ok := mcptool.AsInputRequired(err); ok {
			// Not a failure: the call asks the client for input (the
			// user's confirmation of a mutation) and is made again with it.
			return asked, nil
		}
		if err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
		}
		return result, nil
	}
}

// runSaved runs a call as the caller its HTTP request names
// (--forward-header), as graphql_query does: every error it returns is
// cleaned of the forwarded values as well as of the startup headers'.
func (h *handlers) runSaved(ctx context.Context, call *mcp.CallToolRequest, t *savedTool) (*mcp.CallToolResult, error) {
	who, err := h.forwardedFrom(extraOf(call))
	if err != nil {
		return nil, err
	}
	result, err := h.runSavedAs(ctx, call, who, t)
	return result, who.clean(err)
}

// runSavedAs checks a call's arguments as the operation's variables, then
// sends the operation as graphql_query sends a query, for the caller who.
func (h *handlers) runSavedAs(ctx context.Context, call *mcp.CallToolRequest, who forwarded, t *savedTool) (*mcp.CallToolResult, error) {
	var raw json.RawMessage
	if call != nil && call.Params != nil {
		raw = call.Params.Arguments
	}
	variables, allow, err := t.arguments(raw)
	if err != nil {
		return nil, err
	}
	if err := loneSurrogates(wrapVariables(raw)); err != nil {
		return nil, err
	}
	chosen := t.op.Chosen
	if err := h.checkOperationType(ctx, chosen, allow); err != nil {
		return nil, err
	}
	if coerced := coerce.Variables(t.checker, chosen.Op.VariableDefinitions, variables, maxValidationErrors, h.redactorAs(who).String); coerced.Total > 0 {
		return nil, h.quoting(invalidArguments(t.def.Name, coerced))
	}
	score, err := complexity.Score(chosen.Doc, chosen.Op, variables, t.checker)
	if err != nil {
		return nil, err
	}
	if score.Score > h.cfg.MaxComplexity {
		return nil, overCeiling(score, h.cfg.MaxComplexity)
	}
	req, err := h.targetAs(who, "", nil, h.cfg.Timeout)
	if err != nil {
		return nil, err
	}
	req.Variables, req.OperationName = variables, chosen.Op.Name
	req.Incremental = usesIncremental(chosen.Sent)
	switch t.op.Protocol {
	case operations.APQ:
		req.Extensions = map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": t.op.ID}}
	case operations.DocID:
		req.DocID = t.op.ID
	default:
		req.Query = chosen.Text
	}
	if err := h.confirm(ctx, call, chosen, req); err != nil {
		return nil, err
	}
	client := h.clientAs(who)
	resp, err := client.Post(ctx, req)
	if err != nil {
		return nil, err
	}
	if t.op.Protocol != operations.Text && persistedNotFound(resp) {
		// The persisted-query protocols: the endpoint does not know the
		// id, so the text goes with it, as stored; an endpoint that asks
		// again is answered with what it said, not asked a third time.
		req.Query = t.op.Body
		if resp, err = client.Post(ctx, req); err != nil {
			return nil, err
		}
	}
	result, body := h.answerAs(h.redactorAs(who), req, resp, "")
	if problem := t.shapeOf(body); problem != "" {
		// A client holds structured content to the output schema and
		// fails the whole call on a mismatch; the text still shows
		// what the endpoint said.
		result.IsError = true
		// The schema validator's words quote the answer's values, the
		// endpoint's: they come after the sentence, framed.
		result.Content = append(result.Content, &mcp.TextContent{Text: fmt.Sprintf(
			"This answer does not have the shape %s's selection gives its result (how, quoted below): the endpoint does not follow the schema the operation was checked against, so the answer is given as text only.\n%s",
			t.def.Name, mcptool.Untrusted("how the endpoint's answer breaks the output schema, quoting its values", problem))})
		return result, nil
	}
	result.StructuredContent = json.RawMessage(body)
	return result, nil
}

// shapeOf says how an answer breaks the tool's output schema, or "" when
// it does not.
func (t *savedTool) shapeOf(body []byte) string {
	var answer any
	if err := json.Unmarshal(body, &answer); err != nil {
		return "it is not JSON"
	}
	if err := t.output.Validate(answer); err != nil {
		return httpx.Snippet([]byte(err.Error()), maxMessageBytes)
	}
	return ""
}

// arguments decodes a call's arguments: the operation's variables, and
// allowMutations for a mutation under --mutations per-call. Numbers stay
// as written (json.Number), as graphql_query's variables do.
func (t *savedTool) arguments(raw json.RawMessage) (variables map[string]any, allow bool, err error) {
	variables = map[string]any{}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return variables, false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&variables); err != nil || variables == nil {
		return nil, false, fmt.Errorf("arguments must be a JSON object of %s's variables; see its input schema", t.def.Name)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false, fmt.Errorf("arguments must be one JSON object; see the input schema of %s", t.def.Name)
	}
	if err := uniqueKeys(raw); err != nil {
		return nil, false, fmt.Errorf("%v; give each argument of %s once", err, t.def.Name)
	}
	accepted := slices.Sorted(func(yield func(string) bool) {
		for name := range t.def.InputSchema.(*jsonschema.Schema).Properties {
			if !yield(name) {
				return
			}
		}
	})
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for name := range variables {
			if !yield(name) {
				return
			}
		}
	}) {
		if !slices.Contains(accepted, name) {
			return nil, false, fmt.Errorf("unknown argument %s: %s accepts only %s; remove it or check its spelling",
				mcptool.QuoteUpTo(name, 80), t.def.Name, orNone(accepted))
		}
	}
	if t.perCall {
		if value, given := variables[allowMutationsArgument]; given {
			b, ok := value.(bool)
			if !ok {
				return nil, false, fmt.Errorf("allowMutations must be true or false; pass true to let %s run", t.def.Name)
			}
			allow = b
			delete(variables, allowMutationsArgument)
		}
	}
	return variables, allow, nil
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none (call it with {})"
	}
	return strings.Join(names, ", ")
}

// uniqueKeys refuses an object whose top level names a member twice: a
// decoder keeps the last, a client may show the first.
func uniqueKeys(raw json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return err
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if seen[key] {
			return fmt.Errorf("argument %s is given twice", mcptool.QuoteUpTo(key, 80))
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
}

// wrapVariables puts a saved operation's arguments where loneSurrogates
// looks for variables.
func wrapVariables(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	return append(append([]byte(`{"variables":`), raw...), '}')
}

// invalidArguments lists each problem with the arguments as graphql-js
// words it: the variable (the argument), the place inside its value and
// the expected type.
func invalidArguments(tool string, coerced coerce.Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "arguments do not match %s's input schema, so nothing was sent:", tool)
	lines := make([]string, len(coerced.Errors))
	for i, e := range coerced.Errors {
		lines[i] = httpx.Snippet([]byte(e.Message), maxMessageBytes)
	}
	writeList(&b, lines, coerced.Total-len(coerced.Errors))
	b.WriteString("\nFix the arguments and call again; each is a variable of the saved operation, $name being argument name.")
	return errors.New(b.String())
}

// persistedNotFound reports an answer on which the persisted-query
// protocols send the text with the id: the endpoint does not know the id
// (PersistedQueryNotFound, code PERSISTED_QUERY_NOT_FOUND), or takes no
// persisted queries (PersistedQueryNotSupported), or, as a server that
// knows nothing of them answers a request without a query, refuses it as
// a bad request (HTTP 400) without running it. Apollo's client sends the
// text on all three.
func persistedNotFound(resp *upstream.Response) bool {
	if resp == nil || resp.HasData || len(resp.Errors) == 0 {
		return false
	}
	if resp.Status == http.StatusBadRequest {
		return true
	}
	var errs []struct {
		Message    string `json:"message"`
		Extensions struct {
			Code string `json:"code"`
		} `json:"extensions"`
	}
	if json.Unmarshal(resp.Errors, &errs) != nil {
		return false
	}
	for _, e := range errs {
		switch {
		case e.Message == "PersistedQueryNotFound", e.Extensions.Code == "PERSISTED_QUERY_NOT_FOUND",
			e.Message == "PersistedQueryNotSupported", e.Extensions.Code == "PERSISTED_QUERY_NOT_SUPPORTED":
			return true
		}
	}
	return false
}
