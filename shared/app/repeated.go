package app

import (
	"fmt"

	"github.com/mcpforge/servers/shared/mcptool"
)

// A JSON-RPC message that gives one key twice (a second "arguments",
// "name", "method", "params" or "id", or any key deeper down) means two
// things: the go-sdk's decoder keeps the last, while a client that shows
// a call for approval, or a log, may show the first. Both transports refuse
// such a message whole, before the SDK reads it, so that what runs is what
// was shown; tools refuse a repeated argument again on their own (for
// servers run on other transports).

// repeatedKey reports whether msg, a JSON text, gives a key twice, and if
// so the refusal's text and whether that key is the message's own "id"
// (which then cannot be read: the refusal's id is null).
func repeatedKey(msg []byte) (refusal string, idRepeated, found bool) {
	r, found, err := mcptool.RepeatedKey(msg)
	if err != nil || !found {
		return "", false, false
	}
	where := "the message"
	if r.In != "" {
		where = r.In
	}
	refusal = fmt.Sprintf("invalid request: the key %s is given twice in %s; JSON readers differ on which of the two counts "+
		"(this server's would take the last, a client or log may show the first), so nothing was run: give each key once", mcptool.Quote(r.Key), where)
	return refusal, r.Key == "id" && r.In == "", true
}
