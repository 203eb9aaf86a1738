package mcptest

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Asked is what one action that needs the user's yes did, and what its
// question and result must say.
type Asked struct {
	Result *mcp.CallToolResult
	Done   bool // whether the upstream saw the action (sent, deleted)
	// Question are the words the question put to the user must contain.
	Question []string
	// Accepted, Declined, Cancelled and Unticked are what the result must
	// say after each answer: a yes, a no, no choice, and accept with the
	// confirm box left unticked.
	Accepted, Declined, Cancelled, Unticked string
}

// AsksTheUser runs an action on every link a client that can ask is asked
// on (AskingLinks, one subtest each), once for each answer the user can
// give: act connects a new server over l for a user p and runs the action.
// The user must be asked once, with the words of Question; the action is
// done on a yes (accept, box ticked) alone, and the result says what it
// must after each answer, an error unless the user said yes.
func AsksTheUser(t *testing.T, act func(t *testing.T, l Link, p *Person) Asked) {
	t.Helper()
	for _, l := range AskingLinks() {
		t.Run(l.Name, func(t *testing.T) {
			for _, c := range []struct {
				answer *Person
				yes    bool
				says   func(Asked) string
			}{
				{Answering("accept", true), true, func(a Asked) string { return a.Accepted }},
				{Answering("decline", nil), false, func(a Asked) string { return a.Declined }},
				{Answering("cancel", nil), false, func(a Asked) string { return a.Cancelled }},
				{Answering("accept", false), false, func(a Asked) string { return a.Unticked }},
			} {
				got := act(t, l, c.answer)
				asked := c.answer.Questions()
				if len(asked) != 1 {
					t.Fatalf("%s: asked %d times, want once", c.answer.Answer.Action, len(asked))
				}
				for _, want := range got.Question {
					if !strings.Contains(asked[0], want) {
						t.Errorf("the question %q\ndoes not contain %q", asked[0], want)
					}
				}
				text := Text(got.Result)
				if got.Done != c.yes || got.Result.IsError == c.yes {
					t.Fatalf("%s: done %v (error %v: %s), want %v", c.answer.Answer.Action, got.Done, got.Result.IsError, text, c.yes)
				}
				if want := c.says(got); want == "" || !strings.Contains(text, want) {
					t.Errorf("%s: %q\ndoes not contain %q", c.answer.Answer.Action, text, want)
				}
			}
		})
	}
}
