package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/mcpforge/servers/graphqlmcp/internal/complexity"
	"github.com/mcpforge/servers/graphqlmcp/internal/config"
	"github.com/mcpforge/servers/graphqlmcp/internal/operation"
	"github.com/mcpforge/servers/shared/app"
	"github.com/mcpforge/servers/shared/mcptool"
)

// QueryArgs are graphql_query's arguments. Variables is raw, so that a
// JSON string holding the object (as some models send it) reaches
// readVariables, which accepts it with a note; its schema stays an object
// (AdjustInput), the form models are asked for.
type QueryArgs struct {
	Query         string            `json:"query" jsonschema:"the GraphQL operation text, e.g. query { viewer { login } }"`
	Variables     json.RawMessage   `json:"variables,omitempty" jsonschema:"values of the operation's variables, by name"`
	OperationName string            `json:"operationName,omitempty" jsonschema:"which operation to run when query holds several"`
	Endpoint      string            `json:"endpoint,omitempty" jsonschema:"GraphQL endpoint URL (default: the server's)"`
	Headers       map[string]string `json:"headers,omitempty" jsonschema:"HTTP headers for this call, over the server's of the same name; not Content-Type, Accept or other framing headers"`
	// A float64, as JSON Schema's integer admits 5000.0: Whole refuses
	// 1.5 with its rule, instead of the decoder refusing 5000.0.
	Timeout        *float64 `json:"timeout,omitempty" jsonschema:"time limit in milliseconds"`
	AllowMutations bool     `json:"allowMutations,omitempty" jsonschema:"set true to let a mutation run; mutations are refused otherwise"`
	DryRun         bool     `json:"dryRun,omitempty" jsonschema:"check, price and show the request; send nothing"`
}

// QueryResult describes the GraphQL response that graphql_query passes on
// as the endpoint sent it; it gives the output schema, not the value.
type QueryResult struct {
	Data       map[string]any   `json:"data,omitempty" jsonschema:"the operation's result; null or absent when it did not run"`
	Errors     []map[string]any `json:"errors,omitempty" jsonschema:"GraphQL errors"`
	Extensions map[string]any   `json:"extensions,omitempty" jsonschema:"endpoint-specific extras, such as cost or tracing"`
}

type mutationTexts struct{ instructions, tool, argument string }

// mutationText is what mutationsSaid gives for m, per-call when m is unset.
func mutationText(m config.Mutations) mutationTexts {
	if texts, ok := mutationsSaid[m]; ok {
		return texts
	}
	return mutationsSaid[config.MutationsPerCall]
}

// mutationsSaid say, for each --mutations setting, how mutations run: in
// the server's instructions, graphql_query's description and its
// allowMutations argument.
var mutationsSaid = map[config.Mutations]mutationTexts{
	config.MutationsNever: {
		"Mutations are disabled on this server.",
		"This server refuses every mutation (--mutations never); subscriptions are not supported either.",
		"has no effect: this server refuses every mutation (--mutations never)",
	},
	config.MutationsAlways: {
		"Mutations are allowed.",
		"Mutations run on this server without further permission (--mutations always): confirm with the user before changing data; subscriptions are not supported.",
		"not needed: this server runs mutations without it (--mutations always)",
	},
	config.MutationsPerCall: {
		"Mutations run only when the call passes allowMutations: true; ask the user before changing data.",
		"Mutations need allowMutations: true; subscriptions are not supported.",
		"set true to let a mutation run; mutations are refused otherwise",
	},
}

// timeoutMS is the rule of the timeout argument, in milliseconds.
var timeoutMS = mcptool.Whole{Min: 1, Max: config.MaxTimeoutMS}

func (h *handlers) queryTool() mcptool.Tool[QueryArgs, mcptool.Document[QueryResult]] {
	return mcptool.Tool[QueryArgs, mcptool.Document[QueryResult]]{
		Name:  "graphql_query",
		Title: "Run a GraphQL operation",
		Description: "Run a GraphQL query (or, when allowed, a mutation) against a GraphQL endpoint and return its response " +
			"(data, errors, extensions) as JSON. Uses the server's default endpoint unless endpoint is given. " +
			"Before sending, the operation is " + checkedText(h.cfg.Validate) + "priced by the list items it can return " +
			fmt.Sprintf("(each list's first/last/limit, else 10, times the items enclosing it); over %d is refused, so ask for fewer items. ", h.cfg.MaxComplexity) +
			mutationText(h.cfg.Mutations).tool + " " +
			"If you do not know the schema, call graphql_introspect first.",
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:    false,
			DestructiveHint: ptr(true),
			IdempotentHint:  false,
			OpenWorldHint:   ptr(true),
		},
		AdjustInput: func(s *jsonschema.Schema) {
			s.Properties["allowMutations"].Description = mutationText(h.cfg.Mutations).argument
			s.Properties["query"].MinLength = ptr(1)
			timeoutMS.Schema(s.Properties["timeout"])
			s.Properties["endpoint"].Format = "uri"
			variables := s.Properties["variables"]
			*variables = jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{}, Description: variables.Description}
		},
		AdjustOutput: func(s *jsonschema.Schema) {
			s.Description = "the endpoint's GraphQL response, as received"
			s.AdditionalProperties = nil // an endpoint may add members
			data := s.Properties["data"]
			data.Type, data.Types, data.AdditionalProperties = "", nil, nil
			data.AnyOf = []*jsonschema.Schema{{Type: "object"}, {Type: "null"}}
		},
		Verbatim: []string{"body"}, // a dry run's request body, given whole in a block of its own
		Handle:   h.graphqlQuery,
	}
}

// graphqlQuery runs a call as the caller its HTTP request names
// (--forward-header): every error it returns is cleaned of the forwarded
// values as well as of the startup headers'.
func (h *handlers) graphqlQuery(ctx context.Context, call *mcp.CallToolRequest, args QueryArgs) (*mcp.CallToolResult, mcptool.Document[QueryResult], error) {
	who, err := h.forwardedFrom(extraOf(call))
	if err != nil {
		return nil, nil, err
	}
	result, out, err := h.query(ctx, call, who, args)
	return result, out, who.clean(err)
}

// query is graphql_query for the caller who. A dry run stops before the
// user is asked to confirm a mutation: nothing is sent to confirm.
func (h *handlers) query(ctx context.Context, call *mcp.CallToolRequest, who forwarded, args QueryArgs) (*mcp.CallToolResult, mcptool.Document[QueryResult], error) {
	if strings.TrimSpace(args.Query) == "" {
		return nil, nil, errors.New("query is required: pass the GraphQL operation text, e.g. { __typename }")
	}
	if call != nil && call.Params != nil {
		if err := loneSurrogates(call.Params.Arguments); err != nil {
			return nil, nil, err
		}
	}
	variables, note, err := readVariables(args.Variables)
	if err != nil {
		return nil, nil, err
	}
	timeout, err := h.timeout(args.Timeout)
	if err != nil {
		return nil, nil, err
	}
	chosen, err := operation.Choose(args.Query, args.OperationName)
	if err != nil {
		return nil, nil, err
	}
	// A dry run of a mutation the guard refuses still checks and prices
	// it: the model learns whether it is right before asking the user.
	guard := h.checkOperationType(ctx, chosen, args.AllowMutations)
	if guard != nil && !(args.DryRun && chosen.Op.Operation == ast.Mutation) {
		return nil, nil, guard
	}
	req, err := h.targetAs(who, args.Endpoint, args.Headers, timeout)
	if err != nil {
		return nil, nil, err
	}
	checked, unchecked, err := h.validate(ctx, req, callTarget{args.Endpoint, args.Headers, who}, chosen, variables)
	if err != nil {
		return nil, nil, err
	}
	score, err := complexity.Score(chosen.Doc, chosen.Op, variables, checked)
	if err != nil {
		return nil, nil, err
	}
	if score.Score > h.cfg.MaxComplexity {
		return nil, nil, overCeiling(score, h.cfg.MaxComplexity)
	}
	req.Query, req.Variables, req.OperationName = chosen.Text, variables, args.OperationName
	req.Incremental = usesIncremental(chosen.Sent)
	if args.DryRun {
		return h.dryRun(req, chosen, h.redactorAs(who), dryRunChecks{checked: checked != nil, unchecked: unchecked, score: score, guard: guard, note: note})
	}
	if err := h.confirm(ctx, call, chosen, req); err != nil {
		return nil, nil, err
	}
	resp, err := h.clientAs(who).Post(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	result, body := h.answerAs(h.redactorAs(who), req, resp, unchecked)
	if note != "" {
		result.Content = append(result.Content, &mcp.TextContent{Text: note})
	}
	return result, mcptool.Document[QueryResult](body), nil
}

func (h *handlers) timeout(ms *float64) (time.Duration, error) {
	if ms == nil {
		return h.cfg.Timeout, nil
	}
	n, err := timeoutMS.Check("timeout", *ms)
	if err != nil {
		return 0, fmt.Errorf("timeout must be a whole number of milliseconds from %g to %g, got %g; omit it to use the default of %d",
			timeoutMS.Min, timeoutMS.Max, *ms, h.cfg.Timeout.Milliseconds())
	}
	return time.Duration(n) * time.Millisecond, nil
}

// checkOperationType refuses subscriptions, and mutations that neither the
// server's --mutations ceiling nor the call allows, nor the caller's OAuth
// token (app.WritesAllowed: a token with only the read scope runs queries).
func (h *handlers) checkOperationType(ctx context.Context, chosen operation.Chosen, allowMutations bool) error {
	switch chosen.Op.Operation {
	case ast.Subscription:
		return fmt.Errorf("operation %s is a subscription: its events need a streaming connection that one HTTP request cannot carry; run a query instead", chosen.Name())
	case ast.Mutation:
		switch {
		case !app.WritesAllowed(ctx):
			return fmt.Errorf("operation %s is a mutation, and your access token lacks the OAuth scope %s that changing data needs: sign in again asking for it, or run queries only", chosen.Name(), app.WriteScope(ctx))
		case h.cfg.Mutations == config.MutationsNever:
			return fmt.Errorf("operation %s is a mutation, and this server refuses all mutations (--mutations never); only its operator can change that", chosen.Name())
		case h.cfg.Mutations == config.MutationsPerCall && !allowMutations:
			return fmt.Errorf("operation %s is a mutation, and mutations are not allowed for this call: pass allowMutations: true to run it (confirm with the user first)", chosen.Name())
		}
	}
	return nil
}

// usesIncremental reports an operation that asks for incremental delivery:
// @defer or @stream anywhere in it or in the fragments it uses (sent holds
// only those). Its answer may then come in parts (multipart/mixed), which
// the request must accept.
func usesIncremental(sent *ast.QueryDocument) bool {
	var inSelections func(ast.SelectionSet) bool
	inSelections = func(set ast.SelectionSet) bool {
		for _, sel := range set {
			var directives ast.DirectiveList
			var below ast.SelectionSet
			switch sel := sel.(type) {
			case *ast.Field:
				directives, below = sel.Directives, sel.SelectionSet
			case *ast.InlineFragment:
				directives, below = sel.Directives, sel.SelectionSet
			case *ast.FragmentSpread:
				directives = sel.Directives // its fragment is one of sent's
			}
			if directives.ForName("defer") != nil || directives.ForName("stream") != nil || inSelections(below) {
				return true
			}
		}
		return false
	}
	for _, op := range sent.Operations {
		if inSelections(op.SelectionSet) {
			return true
		}
	}
	for _, fragment := range sent.Fragments {
		if inSelections(fragment.SelectionSet) {
			return true
		}
	}
	return false
}

// checkedText is the part of graphql_query's description that says
// whether operations are validated.
func checkedText(validate bool) string {
	if validate {
		return "checked against the endpoint's schema and "
	}
	return ""
}

func ptr[T any](v T) *T { return &v }
