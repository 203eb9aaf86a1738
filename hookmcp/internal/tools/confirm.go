package tools

import (
	"context"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/shared/mcptool"
)

// maxUnconfirmedDelete is the most requests a filtered delete_requests
// deletes without the user's confirmation: list_requests' largest page
// (per_page 100). Up to that many, the assistant can have shown the user
// every request the filter matches, in one preview with the same filters,
// before deleting; past it, no one has seen them all. delete_token and
// delete_requests with all: true are confirmed whatever their count.
const maxUnconfirmedDelete = 100

// confirmDelete asks the user to confirm a delete, where the client can ask
// and --confirm-deletes says to (mcptool.Confirm). An error means nothing
// was deleted; an *mcptool.InputRequired asks the client to ask, and the
// call comes again with the answer. binding names the delete exactly (the
// call's arguments as given), so that a yes counts for it alone; message
// says what goes, without secrets, and is read only when the user is asked;
// still, when not nil, refuses after a yes what no longer is as shown.
func (h *handlers) confirmDelete(ctx context.Context, req *mcp.CallToolRequest, what string, binding []string, key string, message func(ctx context.Context) (string, error), still func(ctx context.Context) error) error {
	if req == nil || req.Params == nil {
		return nil
	}
	return mcptool.Confirm(ctx, req, mcptool.Confirmation{
		Mode:    h.cfg.ConfirmDeletes,
		Setting: "--confirm-deletes",
		Binding: append([]string{req.Params.Name, key}, binding...),
		What:    what,
		NotDone: "nothing was deleted",
		Message: func(ctx context.Context) (string, error) {
			text, err := message(ctx)
			// A query or a token as pasted may hold a key.
			return h.secrets(key).String(text), err
		},
		Still:  still,
		Logger: h.logger,
	})
}

// requestsCount says how many requests there are, in words.
func requestsCount(n int) string {
	switch n {
	case 0:
		return "no requests"
	case 1:
		return "1 request"
	}
	return strconv.Itoa(n) + " requests"
}
