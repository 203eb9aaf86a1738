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
		// The note is the server's sentence; the labels and paths the
		// endpoint chose come after it, in a frame. Joined, they may
		// spell a secret none of them holds alone: they are redacted
		// joined.
		note := r.String(resp.Incremental.Note())
		if named := resp.Incremental.Named(); named != "" {
			note += "\n" + mcptool.Untrusted("the labels and paths the endpoint gave its increments", r.String(named))
		}
		texts = append(texts, note)
	}
	if unchecked != "" {
		// The server's sentence, then the endpoint's words it quotes,
		// framed already (uncheckedParts): framed again, the sentence
		// would read as the endpoint's. They may echo a forwarded
		// credential.
		texts = append(texts, r.String(unchecked))
	}
	result := mcptool.Text(texts...)
	result.IsError = !resp.HasData
	return result, body
}
