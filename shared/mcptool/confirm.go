package mcptool

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Confirmation by the person at the client (elicitation), for what cannot be
// undone. The protocol asks in one of two ways, by the version a request
// speaks:
//
//   - 2026-07-28 and later: the call answers input_required with the question
//     (InputRequired, below) and the client, having asked, calls again with
//     the answer and the state it was given. The server keeps nothing between
//     the two calls, so this works on the stateless HTTP transport too.
//   - earlier versions: the server sends elicitation/create while the call
//     waits (ServerSession.Elicit). That needs a way to send the client a
//     request: stdio and stateful HTTP have one; the stateless HTTP transport
//     (the one these servers serve) has none, and its requests carry no
//     capabilities either, so the server cannot know whether the client could
//     have asked.
//
// The go-sdk would send elicitation/create for an earlier version itself when
// a handler returns input requests (and run the handler a second time); the
// request is sent here instead, so that the wait is bounded, a failure is a
// tool error the model can read, and the handler's reads of the API are not
// made twice.

// ConfirmMode is an operator's choice of when the person confirms.
type ConfirmMode string

const (
	// ConfirmAsk asks where the client can ask, and elsewhere runs as
	// without confirmation. The default (also when empty).
	ConfirmAsk ConfirmMode = "ask"
	// ConfirmRequire asks, and refuses where the client cannot ask.
	ConfirmRequire ConfirmMode = "require"
	// ConfirmNever never asks.
	ConfirmNever ConfirmMode = "never"
)

// ConfirmModes are the values a confirmation setting takes, for its help
// and its errors.
var ConfirmModes = Enum{string(ConfirmAsk), string(ConfirmRequire), string(ConfirmNever)}

// ConfirmWait bounds how long a call waits for the person's answer to a
// request sent while it waits (protocol versions before 2026-07-28): a
// person reads and decides, so it is longer than a request's timeout, and
// a client that never answers holds the call no longer than this.
const ConfirmWait = 10 * time.Minute

// MaxConfirmMessage bounds the message shown to the person, in bytes.
const MaxConfirmMessage = 4000

// stateLife bounds how long an answer's state counts: as long as a person
// is waited for, so that a yes is not kept and replayed later.
const stateLife = ConfirmWait

// confirmKey names the question in an input_required result and its answer.
const confirmKey = "confirm"

// stateKey signs the state an input_required result gives the client, so
// that an answer is taken only for a question this process asked about
// this very action. It is made once, when the process starts, and never
// changed: a state from before a restart is asked again.
var stateKey = func() []byte {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	return key
}()

// Confirmation is one action to be confirmed.
type Confirmation struct {
	Mode ConfirmMode
	// Setting names the operator's setting, as its errors show it
	// ("--confirm-mutations").
	Setting string
	// Binding identifies the action exactly (tool, target, arguments, and
	// whatever the person is shown that could change, such as a count): an
	// answer counts only for the action it was given for. Each part is
	// hashed with its length, so no two bindings run together into one. It
	// never leaves the process but as a keyed hash.
	Binding []string
	// What names the action in errors: "mutation createIssue".
	What string
	// NotDone says what did not happen when the answer is not yes:
	// "nothing was sent".
	NotDone string
	// Message reads the question the person sees; it is called only when
	// the person is to be asked (it may have to read the API to say how
	// much would go). It must hold no secret; it is cut to
	// MaxConfirmMessage bytes.
	Message func(ctx context.Context) (string, error)
	// Still, when set, is called after the person's yes, before the action
	// goes ahead: it refuses when what the person was shown is no longer
	// so (the person may have read for minutes). Not called when no one
	// was asked.
	Still  func(ctx context.Context) error
	Logger *slog.Logger
}

// InputRequired is what a tool handler returns, as its error, to answer a
// call with input_required: Register turns it into the result that carries
// the requests. The handler has done nothing that cannot be undone.
type InputRequired struct {
	Requests mcp.InputRequestMap
	State    string
}

func (e *InputRequired) Error() string { return "the call needs the user's answer before it can go on" }

// Confirm returns nil when the action may go ahead: the person said yes, or
// the mode lets it go unasked. An *InputRequired asks the client to ask;
// any other error is the refusal to report, with nothing done.
func Confirm(ctx context.Context, req *mcp.CallToolRequest, c Confirmation) error {
	if c.Mode == ConfirmNever {
		return nil
	}
	version := req.ProtocolVersion()
	if version >= "2026-07-28" {
		if !canElicitForm(req.ClientCapabilities()) {
			return c.unasked("the client declares no elicitation capability")
		}
		return c.roundTrip(ctx, req)
	}
	if req.Session == nil {
		return c.unasked("the call came through no session")
	}
	if req.Extra != nil && req.Extra.Header != nil && req.Session.ID() == "" {
		return c.unasked(fmt.Sprintf("on the stateless HTTP transport a server cannot send the client a request, and the client speaks protocol %s, which asks only that way (2026-07-28 asks through the tool result)", Quote(version)))
	}
	if !canElicitForm(req.ClientCapabilities()) {
		return c.unasked("the client declares no elicitation capability")
	}
	return c.ask(ctx, req)
}

// canElicitForm reports a client that can show a form: it declares
// elicitation, and not URL mode alone (an empty declaration is form mode,
// as before modes existed).
func canElicitForm(caps *mcp.ClientCapabilities) bool {
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	return caps.Elicitation.Form != nil || caps.Elicitation.URL == nil
}

// unasked is the outcome where the person cannot be asked: the action goes
// ahead as it did before confirmation existed (ask), or is refused (require).
func (c Confirmation) unasked(why string) error {
	if c.Mode == ConfirmRequire {
		return fmt.Errorf("%s needs the user's confirmation (%s require), and the user cannot be asked: %s; %s. "+
			"Use a client that supports elicitation (form mode) over stdio, or one on protocol 2026-07-28; only the operator can change %s",
			c.What, c.Setting, why, c.NotDone, c.Setting)
	}
	if c.Logger != nil {
		c.Logger.Info("running without the user's confirmation: the user cannot be asked", "action", c.What, "why", why, "setting", c.Setting+" "+string(ConfirmAsk))
	}
	return nil
}

// roundTrip is the 2026-07-28 way: the first call answers input_required;
// the call again with the answer and the state it was given goes on.
func (c Confirmation) roundTrip(ctx context.Context, req *mcp.CallToolRequest) error {
	now := time.Now()
	if answer, ok := req.Params.InputResponses[confirmKey]; ok && c.validState(req.Params.RequestState, now) {
		result, ok := answer.(*mcp.ElicitResult)
		if !ok {
			return fmt.Errorf("the client answered the confirmation of %s with something other than an elicitation result (a sampling or roots answer); %s", c.What, c.NotDone)
		}
		return c.agreed(ctx, result)
	}
	// No answer yet, or one given for another action or by another
	// process: ask.
	params, err := c.params(ctx)
	if err != nil {
		return err
	}
	return &InputRequired{Requests: mcp.InputRequestMap{confirmKey: params}, State: c.state(now)}
}

// ask is the earlier versions' way: elicitation/create while the call waits.
func (c Confirmation) ask(ctx context.Context, req *mcp.CallToolRequest) error {
	params, err := c.params(ctx)
	if err != nil {
		return err
	}
	waitCtx, cancel := context.WithTimeout(ctx, ConfirmWait)
	defer cancel()
	result, err := req.Session.Elicit(waitCtx, params)
	switch {
	case err != nil && ctx.Err() != nil:
		return fmt.Errorf("the call was stopped while waiting for the user to confirm %s; %s", c.What, c.NotDone)
	case err != nil && waitCtx.Err() != nil:
		return fmt.Errorf("the user did not answer the confirmation of %s within %s; %s. Ask again when the user is there", c.What, ConfirmWait, c.NotDone)
	case err != nil:
		return fmt.Errorf("asking the user to confirm %s failed (%s); %s", c.What, cutText(err.Error(), 300), c.NotDone)
	}
	return c.agreed(ctx, result)
}

// agreed is nil when the person said yes and what they were shown still
// holds.
func (c Confirmation) agreed(ctx context.Context, result *mcp.ElicitResult) error {
	if err := c.judge(result); err != nil {
		return err
	}
	if c.Still != nil {
		return c.Still(ctx)
	}
	return nil
}

// params is the question: the message, and a form of one box to tick.
func (c Confirmation) params(ctx context.Context) (*mcp.ElicitParams, error) {
	message, err := c.Message(ctx)
	if err != nil {
		return nil, err
	}
	return &mcp.ElicitParams{
		Mode:    "form",
		Message: cutText(plainText(message), MaxConfirmMessage),
		RequestedSchema: &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				confirmKey: {Type: "boolean", Title: "Yes, do it", Description: "Tick to let the assistant go ahead; this cannot be undone.", Default: []byte("false")},
			},
			Required: []string{confirmKey},
		},
	}, nil
}

// judge reads the person's answer: only accept with confirm true goes ahead.
func (c Confirmation) judge(result *mcp.ElicitResult) error {
	if result == nil {
		return fmt.Errorf("the client gave no answer to the confirmation of %s; %s", c.What, c.NotDone)
	}
	switch result.Action {
	case "decline":
		return fmt.Errorf("the user declined %s; %s. Do not retry it unless the user asks", c.What, c.NotDone)
	case "cancel":
		return fmt.Errorf("the user cancelled the confirmation of %s without choosing; %s. Ask the user before trying again", c.What, c.NotDone)
	case "accept":
	default:
		return fmt.Errorf("the client answered the confirmation of %s with action %s, which is not accept, decline or cancel; %s", c.What, Quote(result.Action), c.NotDone)
	}
	confirmed, ok := result.Content[confirmKey].(bool)
	if !ok {
		return fmt.Errorf("the client accepted the confirmation of %s without the form's answer (content.%s must be true or false); %s", c.What, confirmKey, c.NotDone)
	}
	if !confirmed {
		return fmt.Errorf("the user did not tick the box confirming %s; %s. Do not retry it unless the user asks", c.What, c.NotDone)
	}
	return nil
}

// state is what the client echoes back: when it was given, and the keyed
// hash of that time and the binding.
func (c Confirmation) state(issued time.Time) string {
	return stateVersion + strconv.FormatInt(issued.Unix(), 10) + "." + base64.RawURLEncoding.EncodeToString(c.mac(issued.Unix()))
}

const stateVersion = "confirm-v2."

// validState reports a state this process gave for this binding, at most
// stateLife ago; the hashes are compared in constant time.
func (c Confirmation) validState(state string, now time.Time) bool {
	rest, ok := strings.CutPrefix(state, stateVersion)
	if !ok || len(rest) > 100 {
		return false
	}
	when, sum, ok := strings.Cut(rest, ".")
	issued, err := strconv.ParseInt(when, 10, 64)
	if !ok || err != nil {
		return false
	}
	given, err := base64.RawURLEncoding.Strict().DecodeString(sum)
	if err != nil || !hmac.Equal(given, c.mac(issued)) {
		return false
	}
	age := now.Unix() - issued
	return age >= 0 && age <= int64(stateLife/time.Second)
}

// mac hashes the time a state was given and every part of the binding,
// each after its length.
func (c Confirmation) mac(issued int64) []byte {
	mac := hmac.New(sha256.New, stateKey)
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(issued))
	mac.Write(n[:])
	for _, part := range c.Binding {
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		mac.Write(n[:])
		mac.Write([]byte(part))
	}
	return mac.Sum(nil)
}

// plainText escapes what could make the message read otherwise than it is:
// control characters but the line feed and the tab (a terminal's escape
// sequences, a carriage return that writes over a line), and the Unicode
// marks that reorder or hide text (bidirectional overrides and isolates,
// zero-width characters, line and paragraph separators). Parts of the
// message come from the model (an operation, a query), and a person is
// about to trust what it says.
func plainText(s string) string {
	if !strings.ContainsFunc(s, hiddenRune) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if hiddenRune(r) {
			fmt.Fprintf(&b, "\\u{%04X}", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func hiddenRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7F || (r >= 0x80 && r < 0xA0):
		return true
	case r == 0x061C || r == 0x200B || r == 0x200C || r == 0x200D || r == 0x200E || r == 0x200F || r == 0xFEFF:
		return true
	case r >= 0x2028 && r <= 0x202E, r >= 0x2060 && r <= 0x206F:
		return true
	case r == utf8.RuneError:
		return true
	}
	return false
}

// cutText cuts s to at most max bytes on a character boundary, saying so.
func cutText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const mark = "… (cut)"
	cut := max - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.ToValidUTF8(s[:cut], "") + mark
}

// IsInputRequired reports an error that asks for input rather than refuses.
func IsInputRequired(err error) bool {
	var input *InputRequired
	return errors.As(err, &input)
}

// AsInputRequired is the result a handler's error asks for when it is an
// *InputRequired (wrapped or not): input_required, carrying the requests
// and the state, with no content. A tool registered without Register must
// answer it so, not as a tool error, or a 2026-07-28 client never asks.
func AsInputRequired(err error) (*mcp.CallToolResult, bool) {
	var input *InputRequired
	if !errors.As(err, &input) {
		return nil, false
	}
	return &mcp.CallToolResult{InputRequests: input.Requests, RequestState: input.State}, true
}
