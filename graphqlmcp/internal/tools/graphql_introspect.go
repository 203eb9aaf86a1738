package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/schema"
	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// IntrospectArgs are graphql_introspect's arguments.
type IntrospectArgs struct {
	Endpoint          string            `json:"endpoint,omitempty" jsonschema:"GraphQL endpoint URL (default: the server's)"`
	Headers           map[string]string `json:"headers,omitempty" jsonschema:"HTTP headers for this call, over the server's of the same name; not Content-Type, Accept or other framing headers"`
	IncludeDeprecated bool              `json:"includeDeprecated,omitempty" jsonschema:"show deprecated members (hidden unless the schema needs them)"`
	Types             []string          `json:"types,omitempty" jsonschema:"only these types' definitions"`
	Search            string            `json:"search,omitempty" jsonschema:"types, fields and arguments named by these words, with paths from Query"`
	Refresh           bool              `json:"refresh,omitempty" jsonschema:"fetch again, not from the cache"`
}

// IntrospectResult is graphql_introspect's structured result. Its text
// content is a summary line, the other members as JSON, then Text alone.
type IntrospectResult struct {
	Endpoint  string `json:"endpoint" jsonschema:"GraphQL endpoint URL (default: the server's)"`
	View      string `json:"view" jsonschema:"sdl (the whole schema), overview, types or search"`
	Text      string `json:"text" jsonschema:"the schema view: SDL, or an overview or search listing"`
	Truncated bool   `json:"truncated" jsonschema:"true when the view was shortened to fit the size limit"`
	TypeCount int    `json:"typeCount" jsonschema:"number of named types, built-ins excluded"`
	SDLBytes  int    `json:"sdlBytes" jsonschema:"size of the whole schema's SDL"`
	Cached    bool   `json:"cached" jsonschema:"true when the schema came from the cache"`
	FetchedAt string `json:"fetchedAt" jsonschema:"when the schema was fetched (RFC 3339)"`
	// HiddenDeprecated counts the whole schema's deprecated members that
	// the view leaves out, whichever part of it the text shows.
	HiddenDeprecated int `json:"hiddenDeprecated" jsonschema:"number of deprecated members (fields, arguments, input fields, enum values) the schema has that are hidden without includeDeprecated"`
}

func (h *handlers) introspectTool() mcptool.Tool[IntrospectArgs, IntrospectResult] {
	return mcptool.Tool[IntrospectArgs, IntrospectResult]{
		Name:  "graphql_introspect",
		Title: "Read a GraphQL schema",
		Description: "Read a GraphQL endpoint's schema as SDL, to learn its queries, types and fields before graphql_query. " +
			"Gives the whole SDL when under 100,000 bytes, else an overview (root fields with arguments, type names by kind); " +
			"then pass types for full definitions, or search to find names. Cached for a few minutes.",
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:   true,
			IdempotentHint: true,
			OpenWorldHint:  ptr(true),
		},
		AdjustInput: func(s *jsonschema.Schema) { s.Properties["endpoint"].Format = "uri" },
		Verbatim:    []string{"text"},
		Handle:      h.graphqlIntrospect,
	}
}

// graphqlIntrospect reads the schema as the caller its HTTP request names
// (--forward-header), as graphql_query sends as it: an endpoint may show
// each caller a schema of its own. Every error it returns is cleaned of
// the forwarded values as well as of the startup headers'.
func (h *handlers) graphqlIntrospect(ctx context.Context, call *mcp.CallToolRequest, args IntrospectArgs) (*mcp.CallToolResult, IntrospectResult, error) {
	who, err := h.forwardedFrom(extraOf(call))
	if err != nil {
		return nil, IntrospectResult{}, err
	}
	result, out, err := h.introspect(ctx, who, args)
	return result, out, who.clean(err)
}

// introspect is graphql_introspect for the caller who. The schema was
// fetched with the startup headers' secrets taken out (the store's
// client); those who forwards are taken out of what is shown here.
func (h *handlers) introspect(ctx context.Context, who forwarded, args IntrospectArgs) (*mcp.CallToolResult, IntrospectResult, error) {
	for _, name := range args.Types {
		if strings.TrimSpace(name) == "" {
			return nil, IntrospectResult{}, errors.New("types must hold type names such as \"User\"; remove the empty entry")
		}
	}
	if err := schema.CheckSearch(args.Search); err != nil {
		return nil, IntrospectResult{}, err
	}
	req, err := h.targetAs(who, args.Endpoint, args.Headers, h.cfg.Timeout)
	if err != nil {
		return nil, IntrospectResult{}, err
	}
	got, err := h.schemaOf(ctx, req, args.Refresh)
	var refused *schema.FetchError
	if errors.As(err, &refused) && refused.SendUnchecked && len(args.Headers) > 0 {
		// Headers can make an endpoint misread a request: the failure
		// may be theirs rather than the endpoint's introspection.
		return nil, IntrospectResult{}, errors.New(addToSentence(err, fmt.Sprintf("; this call's headers (%s) were sent with it: call again without them to tell whether they caused it", headerNames(args.Headers))))
	}
	if err != nil {
		return nil, IntrospectResult{}, err
	}
	s := got.Schema
	view := s.View(args.IncludeDeprecated)
	out := IntrospectResult{
		Endpoint:  httpx.DisplayURL(req.Target.URL),
		TypeCount: s.TypeCount(),
		SDLBytes:  len(view.SDL),
		Cached:    got.Cached,
		FetchedAt: got.FetchedAt.UTC().Format(time.RFC3339),
	}
	noneFound := false
	search := strings.TrimSpace(args.Search) != ""
	switch {
	case len(args.Types) > 0 || search:
		found := view.Lookup(args.Types, args.Search)
		out.Text, out.Truncated = found.Text, found.Truncated
		if len(args.Types) > 0 {
			out.View = "types"
		}
		if search {
			out.View = strings.TrimPrefix(out.View+"+search", "+")
		}
		// None of the types asked for exists, and a search beside them
		// found nothing: an error, so that the model notices and reads
		// the suggestions.
		noneFound = found.NoneFound
	case len(view.SDL) <= schema.MaxViewBytes-len(schema.HiddenNote(view.Hidden, "")):
		out.View, out.Text = "sdl", schema.HiddenNote(view.Hidden, "")+view.SDL
	default:
		out.View = "overview"
		out.Text, out.Truncated = view.Overview()
	}
	out.HiddenDeprecated = view.Hidden
	if !who.redactor.Empty() {
		out.Text = who.redactor.String(out.Text)
	}
	summary := introspectSummary(out)
	// The model reads the schema to write a query next: the validator's
	// copy of the schema (GitHub's takes about 15 ms, once per schema) is
	// built now, within this call, so that the query does not wait for it,
	// and a schema the validator cannot load is told now, not at the query.
	if h.cfg.Validate {
		if _, err := s.Validator(); err != nil {
			summary += " graphql_query cannot check operations against this schema before sending them (it will send them unchecked)" + validatorReason(err)
		}
	}
	// The schema's names and descriptions are its endpoint's words: the
	// view is framed as a third party's. Names none of which is a type
	// are answered with notes in the server's words, quoting names alone
	// (GraphQL names hold no spaces or punctuation): an error, kept
	// within an error's bound.
	text := out.Text
	if !noneFound {
		text = mcptool.Untrusted("the endpoint's schema (names and descriptions)", out.Text)
	}
	res := mcptool.Text(summary, text)
	res.IsError = noneFound
	return res, out, nil
}

// introspectSummary is the line a reader sees before the schema view.
func introspectSummary(out IntrospectResult) string {
	source := "fetched"
	if out.Cached {
		source = "cached, fetched"
	}
	views := map[string]string{
		"sdl": "the whole schema as SDL", "overview": "an overview (the whole SDL is too large to show)",
		"types": "the definitions asked for", "search": "the search's matches", "types+search": "the definitions asked for, then the search's matches",
	}
	line := fmt.Sprintf("Schema of %s: %d types, %d bytes of SDL, %s %s. Below: %s", out.Endpoint, out.TypeCount, out.SDLBytes, source, out.FetchedAt, views[out.View])
	if out.Truncated {
		line += ", shortened to fit the size limit"
	}
	line += "."
	if out.HiddenDeprecated > 0 {
		line += fmt.Sprintf(" %d deprecated members are hidden; includeDeprecated: true shows them.", out.HiddenDeprecated)
	}
	return line
}
