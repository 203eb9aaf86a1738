package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/mcpforge/servers/graphqlmcp/internal/operation"
	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/jsonx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// The parts of the confirmation's message, each cut to its share of
// mcptool.MaxConfirmMessage so that the endpoint and the closing line always
// show.
const (
	maxShownOperation = 2400
	maxShownVariables = 900
)

// confirm asks the user to confirm a mutation before it is sent, where the
// client can ask (elicitation) and --confirm-mutations says to; an error
// means nothing is sent (an *mcptool.InputRequired asks the client to ask,
// and the call comes again with the answer). The guard (--mutations,
// allowMutations) has already let the mutation through: the user's answer
// is on top of it, never instead of it.
func (h *handlers) confirm(ctx context.Context, call *mcp.CallToolRequest, chosen operation.Chosen, req upstream.Request) error {
	if chosen.Op == nil || chosen.Op.Operation != ast.Mutation || call == nil || call.Params == nil {
		return nil
	}
	variables, err := jsonx.Marshal(req.Variables)
	if err != nil {
		return fmt.Errorf("reading the variables to show them for confirmation: %w", err)
	}
	endpoint := req.Target.URL.String()
	// The headers sent with it decide as whom it runs.
	headers, err := jsonx.Marshal(req.Headers)
	if err != nil {
		return fmt.Errorf("reading the headers to bind the confirmation to them: %w", err)
	}
	// The values forwarded from the client's HTTP request
	// (--forward-header) are secrets too.
	who, err := h.forwardedFrom(extraOf(call))
	if err != nil {
		return err
	}
	return mcptool.Confirm(ctx, call, mcptool.Confirmation{
		Mode:    mcptool.ConfirmMode(h.cfg.ConfirmMutations),
		Setting: "--confirm-mutations",
		// What is sent, exactly, and as whom: the user's yes is for this
		// and nothing else (jsonx.Marshal writes a map's keys in order).
		Binding: []string{call.Params.Name, endpoint, chosen.Text, req.OperationName, string(variables), string(headers)},
		What:    "mutation " + chosen.Name(),
		NotDone: "the mutation was not sent",
		Message: func(context.Context) (string, error) {
			return confirmMessage(h.redactorAs(who), chosen, req, variables), nil
		},
		Logger: h.client.Caller.Logger,
	})
}

// confirmMessage is what the user reads: the endpoint, the operation as it
// will be sent and its variables, without the secrets redact knows
// (redacted whole, then cut, so that no cut leaves half a secret showing).
func confirmMessage(redact upstream.Redactor, chosen operation.Chosen, req upstream.Request, variables []byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The assistant asks to run the GraphQL mutation %s against %s. It changes data there, and this server cannot undo it.\n\n",
		chosen.Name(), httpx.DisplayURL(req.Target.URL))
	b.WriteString(shown(strings.TrimSpace(redact.String(chosen.Text)), maxShownOperation, "the whole operation is in the tool call's arguments"))
	if len(req.Variables) > 0 {
		b.WriteString("\n\nVariables: ")
		b.WriteString(shown(string(redact.Bytes(variables)), maxShownVariables, "all the variables are in the tool call's arguments"))
	}
	b.WriteString("\n\nRun it?")
	return b.String()
}

// shown is text cut to max bytes on a character boundary, saying how much
// more there is and, in where, where to read it whole.
func shown(text string, max int, where string) string {
	if len(text) <= max {
		return text
	}
	cut := max
	for cut > 0 && cut < len(text) && text[cut]&0xC0 == 0x80 {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes more; %s)", strings.ToValidUTF8(text[:cut], ""), len(text)-cut, where)
}
