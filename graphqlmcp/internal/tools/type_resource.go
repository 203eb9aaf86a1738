package tools

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/schema"
	"github.com/mcpforge/servers/shared/mcptool"
)

// The template of one type of the default endpoint's schema.
const (
	typeURITemplate = "graphql://type/{name}"
	typeURIPrefix   = "graphql://type/"
)

// graphQLName is the spec's Name: what a type may be called.
var graphQLName = regexp.MustCompile(`^[_A-Za-z][_0-9A-Za-z]*$`)

// maxTypeText bounds a read of one type, as graphql_introspect bounds its
// views: a type of thousands of fields is cut, and the note says where the
// whole of it is.
const maxTypeText = schema.MaxViewBytes

// maxCompletions is the most values one completion answer lists, the
// protocol's own ceiling.
const maxCompletions = 100

// addTypeResource lists graphql://type/{name}: one type's SDL, for a client
// that attaches a type to a conversation rather than the whole schema, with
// the types it references named so that a reader can follow them.
func (h *handlers) addTypeResource(server *mcp.Server) {
	server.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: typeURITemplate,
		Name:        "type",
		Title:       "A type of the GraphQL schema",
		Description: "One named type of the default endpoint's schema as SDL, deprecated members included, followed by the names of the types it references. Type names complete.",
		MIMEType:    "text/plain",
	}, h.readType)
}

func (h *handlers) readType(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	name, ok := strings.CutPrefix(uri, typeURIPrefix)
	if !ok || !graphQLName.MatchString(name) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"%s: the resource's URI is %s, with a GraphQL type name (letters, digits and _, not starting with a digit), such as %sQuery",
			mcptool.Quote(shorten(uri, 200)), typeURITemplate, typeURIPrefix)}
	}
	view, who, err := h.defaultView(ctx, req.Extra)
	if err != nil {
		return nil, who.clean(err)
	}
	sdl, refs, ok := view.TypeDefinition(name)
	if !ok {
		// The view's note for a missing name suggests close ones.
		note, _, _ := view.Types([]string{name}, 1000)
		return nil, who.clean(mcptool.ResourceNotFound(req, uri, strings.TrimSpace(strings.TrimPrefix(note, "# "))+" graphql://schema lists every type."))
	}
	text := typeText(sdl, refs)
	if !who.redactor.Empty() {
		// The endpoint answered the client's own credential: what it
		// echoes of it (a description) is not shown, as in graphql://schema.
		text = who.redactor.String(text)
	}
	// The endpoint wrote the type (its names and descriptions): framed as
	// a third party's words (mcptool.Untrusted), as graphql://schema is.
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: mcptool.Untrusted("the endpoint's schema: one type as SDL", text)}}}, nil
}

// typeText is the type's SDL, then a comment line naming the types it
// references, the whole within maxTypeText: the SDL is cut first at a line
// end, then the list, each with a note that says so.
func typeText(sdl string, refs []string) string {
	tail := "\n"
	if len(refs) > 0 {
		tail = "\n\n# References: " + strings.Join(refs, ", ") + "\n"
	}
	if len(tail) > maxTypeText/4 {
		// The first name alone may be longer than the room (an
		// endpoint's schema names its types): then none is listed.
		cut := max(strings.LastIndex(tail[:maxTypeText/4], ", "), len("\n\n# References:"))
		tail = tail[:cut] + fmt.Sprintf(" … (%d types in all)\n", len(refs))
	}
	room := maxTypeText - len(tail)
	if len(sdl) <= room {
		return sdl + tail
	}
	// The note's numbers are at most as long as len(sdl): room for the
	// note is kept with len(sdl) written twice.
	noteOf := func(at int) string {
		return fmt.Sprintf("\n# Cut here, at %d of %d bytes: graphql://schema has the whole type.", at, len(sdl))
	}
	end := room - len(noteOf(len(sdl)))
	for end > 0 && !utf8.RuneStart(sdl[end]) {
		end--
	}
	if nl := strings.LastIndexByte(sdl[:end], '\n'); nl > 0 {
		end = nl
	}
	note := noteOf(end)
	return sdl[:end] + note + tail
}

// defaultView is the default endpoint's schema, deprecated members
// included, as graphql://schema reads it: with --forward-header, as the
// HTTP client that asks (extra holds its headers), not as the operator.
// Its errors are for who.clean, which takes the client's values out.
func (h *handlers) defaultView(ctx context.Context, extra *mcp.RequestExtra) (*schema.View, forwarded, error) {
	who, err := h.forwardedFrom(extra)
	if err != nil {
		return nil, who, err
	}
	req, err := h.targetAs(who, "", nil, h.cfg.Timeout)
	if err != nil {
		return nil, who, err
	}
	got, err := h.schemaOf(ctx, req, false)
	if err != nil {
		return nil, who, err
	}
	return got.Schema.View(true), who, nil
}

// complete answers completion/complete for the type template's name: the
// schema's type names that start with what was typed, without case. Any
// other reference or argument has no completions (an empty answer, not an
// error: a client asks as the user types).
func (h *handlers) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := req.Params
	none := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	if p == nil || p.Ref == nil || p.Ref.Type != "ref/resource" || p.Ref.URI != typeURITemplate || p.Argument.Name != "name" {
		return none, nil
	}
	if len(p.Argument.Value) > 256 {
		return none, nil
	}
	view, who, err := h.defaultView(ctx, req.Extra)
	if err != nil {
		return nil, who.clean(err)
	}
	names, total := view.TypeNames(p.Argument.Value, maxCompletions)
	if !who.redactor.Empty() {
		// A name is the endpoint's to choose: one that spells the client's
		// credential is not offered.
		kept := names[:0]
		for _, n := range names {
			if who.redactor.String(n) == n {
				kept = append(kept, n)
			}
		}
		names = kept
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: names, Total: total, HasMore: total > len(names)}}, nil
}

// shorten cuts s to at most n characters, for quoting in an error.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
