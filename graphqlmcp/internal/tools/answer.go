package tools

import (
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/jsonx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// answerFrameLabel says what the frame of an answer holds.
const answerFrameLabel = "the endpoint's GraphQL response"

// answer turns an endpoint's response into graphql_query's result (a saved
// operation's too): the body as text, then notes on what was changed or
// left out, and the body for the structured result.
func (h *handlers) answer(req upstream.Request, resp *upstream.Response, unchecked string) (*mcp.CallToolResult, []byte) {
	return h.answerAs(h.client.Redactor, req, resp, unchecked)
}

// answerAs is answer for a call whose secrets r holds: the startup
// headers' and those its HTTP request forwards (--forward-header).
func (h *handlers) answerAs(r upstream.Redactor, req upstream.Request, resp *upstream.Response, unchecked string) (*mcp.CallToolResult, []byte) {
	// An endpoint's escapes (a Go server writes \u003c for <) are spelt
	// out: the answer says the same, and the model reads the text itself.
	// The endpoint wrote it, so its text is framed as a third party's
	// (in the one copy that was made of it anyway).
	body := jsonx.Unescape(resp.Body)
	texts := []string{mcptool.Untrusted(answerFrameLabel, body)}
	if len(resp.Dropped) > 0 {
		texts = append(texts, fmt.Sprintf("The response's %s member was left out: it was null or not of the shape GraphQL gives it.", strings.Join(resp.Dropped, " and ")))
	}
	if resp.ReplacedInvalidUTF8 {
		texts = append(texts, "The response held bytes that are not valid UTF-8; each invalid sequence was replaced by U+FFFD (�).")
	}
	if resp.Status < 200 || resp.Status > 299 {
		texts = append(texts, fmt.Sprintf("%s answered HTTP %d with this GraphQL response.", httpx.DisplayURL(req.Target.URL), resp.Status))
	}
	if resp.Incremental != nil {
		// The note joins labels and paths the endpoint chose: joined,
		// they may spell a secret none of them holds alone.
		texts = append(texts, mcptool.Untrusted("notes on the incremental answer, naming its labels and paths", r.String(resp.Incremental.Note())))
	}
	if unchecked != "" {
		// It quotes the endpoint's introspection failure, which may echo
		// a forwarded credential.
		texts = append(texts, mcptool.Untrusted("why the endpoint's schema could not be read, in its words", r.String(unchecked)))
	}
	result := mcptool.Text(texts...)
	result.IsError = !resp.HasData
	return result, body
}
