package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptool"
)

// TestTypeResource: graphql://type/{name} reads one type's SDL with the
// types it references named, shares the tools' introspection, and answers
// an unknown type with close names and a malformed one with the rule.
func TestTypeResource(t *testing.T) {
	srv, rec := testservers.Start(t, testservers.Starwars())
	h := connect(t, testConfig(t, srv.URL), nil)
	ctx := context.Background()

	templates, err := h.session.ListResourceTemplates(ctx, nil)
	if err != nil || !hasTemplate(templates, "graphql://type/{name}") {
		t.Fatalf("resources/templates/list: %v %+v", err, templates)
	}
	read, err := h.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "graphql://type/Human"})
	if err != nil {
		t.Fatal(err)
	}
	introspected := rec.Introspections()
	text, framed := mcptool.Unframe(read.Contents[0].Text)
	if !framed {
		t.Errorf("graphql://type/Human is not framed as the endpoint's words:\n%s", read.Contents[0].Text)
	}
	if !strings.Contains(text, "\ntype Human implements Character {\n") || !strings.HasSuffix(text, "}\n\n# References: Character, Episode, FriendsConnection, LengthUnit, Starship\n") {
		t.Errorf("graphql://type/Human:\n%s", text)
	}
	if read.Contents[0].MIMEType != "text/plain" || read.CacheScope != "private" || read.TTLMs != int(testConfig(t, srv.URL).SchemaCacheTTL.Milliseconds()) {
		t.Errorf("mime type %q, cache %s/%d", read.Contents[0].MIMEType, read.CacheScope, read.TTLMs)
	}
	// A type that references nothing but built-in scalars lists nothing.
	read, err = h.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "graphql://type/Episode"})
	if episode, _ := mcptool.Unframe(read.Contents[0].Text); err != nil || strings.Contains(episode, "References") || !strings.HasPrefix(strings.TrimLeft(episode, `"`), "The episodes in the Star Wars trilogy") {
		t.Errorf("graphql://type/Episode: %v %+v", err, read)
	}
	if n := rec.Introspections(); n != introspected {
		t.Errorf("the second read introspected again (%d, then %d): the type resource must read the schema store's", introspected, n)
	}

	_, err = h.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "graphql://type/Humann"})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || !strings.Contains(rpcErr.Message, `No type named "Humann". Similar: Human`) {
		t.Errorf("an unknown type: %v", err)
	}
	_, err = h.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "graphql://type/9lives"})
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpcErr.Message, "a GraphQL type name") {
		t.Errorf("a name GraphQL cannot have: %v", err)
	}
}

func hasTemplate(list *mcp.ListResourceTemplatesResult, uri string) bool {
	for _, tmpl := range list.ResourceTemplates {
		if tmpl.URITemplate == uri {
			return true
		}
	}
	return false
}

// TestTypeText: a type too large for one read is cut at a line end with a
// note, and a long reference list is cut with its count, within the bound.
func TestTypeText(t *testing.T) {
	var sdl strings.Builder
	sdl.WriteString("type Big {\n")
	for i := 0; sdl.Len() < 3*maxTypeText; i++ {
		sdl.WriteString("  fieldNumber" + strings.Repeat("x", i%7) + ": String\n")
	}
	sdl.WriteString("}")
	refs := make([]string, 5000)
	for i := range refs {
		refs[i] = "Type" + strings.Repeat("y", i%9)
	}
	text := typeText(sdl.String(), refs)
	if len(text) > maxTypeText {
		t.Errorf("%d bytes, over %d", len(text), maxTypeText)
	}
	if !strings.Contains(text, ": String\n# Cut here, at ") || !strings.Contains(text, "graphql://schema has the whole type.") || !strings.HasSuffix(text, " … (5000 types in all)\n") {
		t.Errorf("the cut text ends:\n%s", text[len(text)-600:])
	}
	if small := typeText("type A {\n  b: B\n}", []string{"B"}); small != "type A {\n  b: B\n}\n\n# References: B\n" {
		t.Errorf("a small type: %q", small)
	}
	// An endpoint's schema may name a type with more bytes than the list
	// has room for, first or after others: the list is cut, not the read.
	huge := "H" + strings.Repeat("u", maxTypeText/3)
	for _, refs := range [][]string{{huge}, {huge, "Small"}, {"Small", huge}} {
		text := typeText("type A {\n  h: "+refs[0]+"\n}", refs)
		if len(text) > maxTypeText || !strings.HasSuffix(text, fmt.Sprintf(" … (%d types in all)\n", len(refs))) {
			t.Errorf("references %.20q…: %d bytes, ending %q", refs, len(text), text[max(0, len(text)-80):])
		}
	}
}

// TestTypeCompletions: the template's name completes to the schema's type
// names, by prefix without case, sorted, at most a hundred; any other
// reference or argument completes to nothing.
func TestTypeCompletions(t *testing.T) {
	srv, _ := testservers.Start(t, testservers.Starwars())
	h := connect(t, testConfig(t, srv.URL), nil)
	complete := func(ref *mcp.CompleteReference, arg, value string) []string {
		t.Helper()
		res, err := h.session.Complete(context.Background(), &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Completion.Total < len(res.Completion.Values) || res.Completion.HasMore != (res.Completion.Total > len(res.Completion.Values)) {
			t.Errorf("total %d, hasMore %v for %d values", res.Completion.Total, res.Completion.HasMore, len(res.Completion.Values))
		}
		return res.Completion.Values
	}
	typeRef := &mcp.CompleteReference{Type: "ref/resource", URI: "graphql://type/{name}"}
	for value, want := range map[string]string{
		"":     "Character,Droid,Episode,FriendsConnection,FriendsEdge,Human,LengthUnit,Mutation,PageInfo,Query,Review,ReviewInput,SearchResult,Starship",
		"s":    "SearchResult,Starship",
		"FRIE": "FriendsConnection,FriendsEdge",
		"__":   "",
		"nope": "",
	} {
		if got := strings.Join(complete(typeRef, "name", value), ","); got != want {
			t.Errorf("completing %q: %q, want %q", value, got, want)
		}
	}
	if got := complete(typeRef, "other", "D"); len(got) != 0 {
		t.Errorf("another argument: %v", got)
	}
	if got := complete(&mcp.CompleteReference{Type: "ref/resource", URI: "graphql://schema"}, "name", "D"); len(got) != 0 {
		t.Errorf("another resource: %v", got)
	}
}
