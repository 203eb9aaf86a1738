package mcptool

import (
	"context"
	"strings"
	"testing"
	"time"
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
	// What the person was shown is rechecked only after a yes: no one
	// said one here.
	c.Still = func(context.Context) error {
		t.Fatal("rechecked with no one asked")
		return nil
	}
	if err := Confirm(context.Background(), req, c); err != nil {
		t.Errorf("ask (empty mode): %v", err)
	}
	c.Mode = ConfirmNever
	if err := Confirm(context.Background(), req, c); err != nil {
		t.Errorf("never: %v", err)
	}
	c.Mode = ConfirmRequire
	err := Confirm(context.Background(), req, c)
	if err == nil || !strings.Contains(err.Error(), "the thing needs the user's confirmation (--confirm-x require), and the user cannot be asked: the call came through no session; nothing was done") {
		t.Errorf("require: %v", err)
	}
}

// TestConfirmStateBinds: a state counts only for the binding it was given
// for, part by part (two bindings whose parts join into the same bytes are
// two bindings), and only for stateLife after it was given; a state from
// the future, a cut one, one of another version or with its hash changed
// is not taken.
func TestConfirmStateBinds(t *testing.T) {
	given := time.Unix(1_800_000_000, 0)
	c := Confirmation{Binding: []string{"delete_requests", "a\x00b", "c"}}
	state := c.state(given)
	if !c.validState(state, given) || !c.validState(state, given.Add(stateLife)) {
		t.Fatalf("the state it was given is not taken: %q", state)
	}
	for name, other := range map[string]Confirmation{
		"parts run together": {Binding: []string{"delete_requests", "a", "b\x00c"}},
		"one part more":      {Binding: []string{"delete_requests", "a\x00b", "c", ""}},
		"another count":      {Binding: []string{"delete_requests", "a\x00b", "d"}},
	} {
		if other.validState(state, given) {
			t.Errorf("%s: another binding's state is taken", name)
		}
	}
	forged := []byte(state)
	forged[len(forged)-10] ^= 1
	// The last character of unpadded base64 has bits no byte holds: one
	// that differs only there is another spelling, refused too.
	respelt := []byte(state)
	respelt[len(respelt)-1] ^= 1
	for name, s := range map[string]string{
		"expired":      "", // checked below with the clock
		"changed hash": string(forged),
		"respelt hash": string(respelt),
		"cut":          state[:len(state)-4],
		"no hash":      strings.SplitAfter(state, ".")[0] + strings.SplitAfter(state, ".")[1],
		"version 1":    "confirm-v1." + strings.SplitN(state, ".", 3)[2],
		"huge":         state + strings.Repeat("A", 1<<20),
	} {
		if s != "" && c.validState(s, given) {
			t.Errorf("%s: taken", name)
		}
	}
	if c.validState(state, given.Add(stateLife+time.Second)) {
		t.Error("a state older than stateLife is taken")
	}
	if c.validState(state, given.Add(-time.Second)) {
		t.Error("a state given in the future is taken")
	}
}

// TestConfirmMessagePlainText: what could make the dialog read otherwise
// than it is (a terminal escape, a carriage return, a right-to-left
// override, a zero-width space, a line separator) is shown escaped; line
// feeds and tabs stay.
func TestConfirmMessagePlainText(t *testing.T) {
	c := Confirmation{Message: func(context.Context) (string, error) {
		return "Delete x?\n\tkept\x1b[2J\rRun y\u202Egnp.exe\u200B\u2028z\u0085", nil
	}}
	params, err := c.params(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := `Delete x?` + "\n\t" + `kept\u{001B}[2J\u{000D}Run y\u{202E}gnp.exe\u{200B}\u{2028}z\u{0085}`
	if params.Message != want {
		t.Errorf("message:\n%q\nwant\n%q", params.Message, want)
	}
}
