package mcptool

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCutText: a message over the bound is cut on a character boundary to
// at most the bound, saying so; one within it is left whole.
func TestCutText(t *testing.T) {
	for _, s := range []string{strings.Repeat("é", 3000), strings.Repeat("a", 3999) + "日本", strings.Repeat("x", MaxConfirmMessage)} {
		got := cutText(s, MaxConfirmMessage)
		if len(got) > MaxConfirmMessage || !utf8.ValidString(got) {
			t.Errorf("cut to %d bytes (valid UTF-8 %v), want at most %d", len(got), utf8.ValidString(got), MaxConfirmMessage)
		}
		if (len(s) > MaxConfirmMessage) != strings.HasSuffix(got, "… (cut)") {
			t.Errorf("%d bytes: cut mark %v", len(s), strings.HasSuffix(got, "… (cut)"))
		}
	}
}

// TestConfirmWithoutSession: a call that came through no session (a
// handler called directly) cannot ask: ask lets it go, require refuses, and
// the message is never read.
func TestConfirmWithoutSession(t *testing.T) {
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t"}}
	c := Confirmation{Setting: "--confirm-x", What: "the thing", NotDone: "nothing was done", Message: func(context.Context) (string, error) {
		t.Fatal("the message was read")
		return "", nil
	}}
	if err := Confirm(context.Background(), req, c); err != nil {
		t.Errorf("ask (empty mode): %v", err)
	}
	c.Mode = ConfirmRequire
	err := Confirm(context.Background(), req, c)
	if err == nil || !strings.Contains(err.Error(), "the thing needs the user's confirmation (--confirm-x require), and the user cannot be asked: the call came through no session; nothing was done") {
		t.Errorf("require: %v", err)
	}
}
